//! Handshake-era sessions shared by two replicas through Redis (`RedisSessionStore`, feature
//! `redis`): a session opened on one replica is served by the other, a change made through one
//! (the log level) is seen by the other, `DELETE` through one ends it on both, and Redis itself
//! holds the record (and drops it at `DELETE` and when idle past the TTL). A client message
//! about a call on the other replica (an elicitation answer, `notifications/cancelled`) reaches
//! it through the relay (Redis pub/sub), and the latency that adds is printed. Needs Debian's
//! `redis-server`; skipped without it unless `MCP_INTEROP_REQUIRED` is set.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::http::RedisSessionStore;
use mcp_runtime::http::{HttpOptions, router};
use serde_json::{Value, json};
use test_support::http::{Served, serve_app};
use test_support::redis::Redis;
use test_support::redis_cluster::RedisLike;

/// A replica: the kit server on a free port, its sessions in `redis`.
async fn replica(redis: &impl RedisLike, idle: Duration) -> Served {
    let store = RedisSessionStore::connect(redis.url()).await.unwrap();
    let options = HttpOptions::default()
        .session_store(Arc::new(store))
        .session_idle_timeout(idle);
    serve_app(router(
        &integration_tests::kit::builder().build().unwrap(),
        options,
    ))
    .await
}

/// POSTs `body` in `session` (none for `initialize`); the status, the session header and the
/// JSON-RPC messages of the answer (one JSON body, or each event of a stream).
async fn post(
    to: &Served,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Vec<Value>) {
    post_on(&reqwest::Client::new(), to, session, body).await
}

/// [`post`] over `http`'s connections (kept alive between requests).
async fn post_on(
    http: &reqwest::Client,
    to: &Served,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Vec<Value>) {
    common::post_in_session(http, &to.url, session, "2025-06-18", body).await
}

async fn open(to: &Served) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "two-replicas", "version": "1.0"}
    }});
    let (status, id, _) = post(to, None, init).await;
    assert_eq!(status, 200);
    id.expect("a session id")
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A `tools/call` of `name` without arguments.
fn call(id: u64, name: &str) -> Value {
    request(id, "tools/call", json!({"name": name, "arguments": {}}))
}

/// Two replicas on `redis` (sessions idle for 10 minutes), and a session opened on the first.
pub(crate) async fn two_replicas(redis: &impl RedisLike) -> (Served, Served, String) {
    let a = replica(redis, Duration::from_secs(600)).await;
    let b = replica(redis, Duration::from_secs(600)).await;
    let session = open(&a).await;
    (a, b, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_serve_one_session_through_redis() {
    let Some(redis) = Redis::start() else { return };
    two_replicas_serve_one_session_through_redis_on(&redis).await;
}

/// The body of [`two_replicas_serve_one_session_through_redis`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn two_replicas_serve_one_session_through_redis_on(redis: &impl RedisLike) {
    let (a, b, session) = two_replicas(&redis).await;
    let key = format!("mcp:session:{session}");
    assert_eq!(redis.keys("mcp:session:*"), [key.as_str()]);
    let ttl: u64 = redis.cli(&["PTTL", &key]).parse().unwrap();
    assert!(
        ttl > 590_000 && ttl <= 600_000,
        "the idle TTL is set: {ttl} ms"
    );

    // The rest of the handshake, and a call, on the replica that never saw `initialize`.
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&b, Some(&session), initialized).await.0, 202);
    let (status, _, answer) = post(&b, Some(&session), call(1, "whoami")).await;
    assert_eq!(status, 200, "{answer:?}");
    assert_eq!(
        answer[0]["result"]["structuredContent"]["client"],
        "two-replicas"
    );

    // The log level set through B filters the messages of a call on A.
    let set = request(2, "logging/setLevel", json!({"level": "warning"}));
    assert_eq!(post(&b, Some(&session), set).await.0, 200);
    let record: Value = serde_json::from_str(&redis.cli(&["GET", &key])).unwrap();
    assert_eq!(record["logLevel"], "warning");
    assert_eq!(record["initialized"], true);
    assert_eq!(record["clientInfo"]["name"], "two-replicas");
    let (_, _, messages) = post(&a, Some(&session), call(3, "chatty")).await;
    let levels: Vec<&Value> = messages.iter().map(|m| &m["params"]["level"]).collect();
    assert_eq!(
        levels,
        [&json!("warning"), &json!("error"), &Value::Null],
        "{messages:?}"
    );

    // DELETE through A: the key is gone from Redis, and B no longer knows the session.
    let deleted = reqwest::Client::new()
        .delete(&a.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 204);
    assert!(redis.keys("mcp:session:*").is_empty());
    let (status, _, answer) = post(&b, Some(&session), request(4, "tools/list", json!({}))).await;
    assert_eq!(status, 404, "{answer:?}");
    let (status, _, _) = post(&a, Some(&session), request(5, "tools/list", json!({}))).await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_expires_in_redis_and_a_use_pushes_its_expiry_back() {
    let Some(redis) = Redis::start() else { return };
    let idle = Duration::from_millis(1500);
    let a = replica(&redis, idle).await;
    let b = replica(&redis, idle).await;
    let kept = open(&a).await;
    let dropped = open(&a).await;
    // Used on B at about two-thirds of the TTL, twice: `kept` outlives the TTL it was opened with.
    for id in 1..=2 {
        tokio::time::sleep(idle * 2 / 3).await;
        let (status, _, _) = post(&b, Some(&kept), request(id, "tools/list", json!({}))).await;
        assert_eq!(status, 200);
    }
    let keys = redis.keys("mcp:session:*");
    assert_eq!(
        keys,
        [format!("mcp:session:{kept}")],
        "Redis expired the idle one"
    );
    let (status, _, _) = post(&a, Some(&dropped), request(3, "tools/list", json!({}))).await;
    assert_eq!(status, 404);
    tokio::time::sleep(idle + Duration::from_millis(300)).await;
    assert!(redis.keys("mcp:session:*").is_empty());
    let (status, _, _) = post(&b, Some(&kept), request(4, "tools/list", json!({}))).await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_fail_clearly_while_redis_is_down_and_recover_after() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let a = replica(&redis, Duration::from_secs(600)).await;
    let session = open(&a).await;
    redis.stop();
    let (status, _, answer) = post(&a, Some(&session), request(1, "tools/list", json!({}))).await;
    assert_eq!(status, 503, "{answer:?}");
    assert_eq!(answer[0]["error"]["code"], -32000);
    let (status, _, _) = post(
        &a,
        None,
        json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}
        }}),
    )
    .await;
    assert_eq!(status, 503, "no session is opened that no store holds");
    // Back, empty: the old session is gone (404), a new one works.
    redis.restart();
    let mut status = 0;
    for _ in 0..100 {
        status = post(&a, Some(&session), request(3, "tools/list", json!({})))
            .await
            .0;
        if status != 503 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, 404, "the replica reconnected");
    let fresh = open(&a).await;
    let (status, _, _) = post(&a, Some(&fresh), request(4, "tools/list", json!({}))).await;
    assert_eq!(status, 200);
}

/// POSTs the request `body` in `session` and keeps its answer open, read one message at a time.
async fn call_events(to: &Served, session: &str, body: Value) -> common::Events {
    let response = reqwest::Client::new()
        .post(&to.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-06-18")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    common::Events::of(response)
}

/// Asks for a color on `caller`, answers on `answerer`; the tool's text, and how long the answer
/// took from its POST to the call's result.
pub(crate) async fn elicit(
    caller: &Served,
    answerer: &Served,
    session: &str,
    id: u64,
) -> (String, Duration) {
    let mut events = call_events(caller, session, call(id, "pick_color")).await;
    let ask = events.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "action": "accept", "content": {"color": "green"}
    }});
    let sent = Instant::now();
    let (status, _, _) = post(answerer, Some(session), answer).await;
    assert_eq!(status, 202);
    let result = events.next().await;
    let took = sent.elapsed();
    let text = result["result"]["content"][0]["text"].as_str().unwrap();
    (text.to_owned(), took)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_answer_and_a_cancellation_reach_the_call_on_another_replica() {
    let Some(redis) = Redis::start() else { return };
    an_elicitation_answer_and_a_cancellation_reach_the_call_on_another_replica_on(&redis).await;
}

/// The body of [`an_elicitation_answer_and_a_cancellation_reach_the_call_on_another_replica`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn an_elicitation_answer_and_a_cancellation_reach_the_call_on_another_replica_on(
    redis: &impl RedisLike,
) {
    let (a, b, session) = two_replicas(&redis).await;

    // Answered on B while the call runs on A (and the other way round: B's ids are its own).
    let (text, _) = elicit(&a, &b, &session, 1).await;
    assert_eq!(text, "picked Green (sure: None)");
    let (text, _) = elicit(&b, &a, &session, 2).await;
    assert_eq!(text, "picked Green (sure: None)");

    // Cancelled through B while it runs on A: the call ends there, its tool dropped.
    let running = tokio::spawn({
        let (url, session) = (a.url.clone(), session.clone());
        async move {
            reqwest::Client::new()
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", session)
                .body(
                    request(
                        3,
                        "tools/call",
                        json!({"name": "slow", "arguments": {"ms": 60_000}}),
                    )
                    .to_string(),
                )
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    });
    let stats = async || post(&a, Some(&session), call(4, "stats")).await.2;
    test_support::wait::until("the call to start", stats, |s| {
        s[0]["result"]["structuredContent"]["running"] == 1
    })
    .await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 3, "reason": "changed my mind"}});
    assert_eq!(post(&b, Some(&session), cancel).await.0, 202);
    let status = tokio::time::timeout(test_support::HANG, running).await;
    assert_eq!(
        status.unwrap().unwrap(),
        202,
        "the call ended without an answer"
    );
    let counts = stats().await;
    let counts = &counts[0]["result"]["structuredContent"];
    assert_eq!(
        (&counts["running"], &counts["dropped"]),
        (&json!(0), &json!(1))
    );

    // What relaying costs: the same answer, given to the replica running the call or the other.
    let rounds = 40;
    let (mut here, mut relayed) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        here.push(elicit(&a, &a, &session, 100 + 2 * round).await.1);
        relayed.push(elicit(&a, &b, &session, 101 + 2 * round).await.1);
    }
    let (here, relayed) = (median(here), median(relayed));
    eprintln!(
        "elicitation answer to result, median of {rounds}: {here:?} on the calling replica, \
         {relayed:?} through the other one (relay adds {:?})",
        relayed.saturating_sub(here)
    );
}

/// How long one `tools/call` of `add` takes in `session` on `to`, over `http`'s kept-alive
/// connection.
async fn timed_call(http: &reqwest::Client, to: &Served, session: &str, id: u64) -> Duration {
    let body = request(
        id,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    );
    let started = Instant::now();
    let (status, _, answer) = post_on(http, to, Some(session), body).await;
    let took = started.elapsed();
    assert_eq!(status, 200);
    assert_eq!(
        answer[0]["result"]["structuredContent"]["result"], 3,
        "{answer:?}"
    );
    took
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_call_costs_with_sessions_in_memory_and_in_redis() {
    let Some(redis) = Redis::start() else { return };
    let server = integration_tests::kit::builder().build().unwrap();
    let in_memory = serve_app(router(&server, HttpOptions::default())).await;
    let on_redis = replica(&redis, Duration::from_secs(600)).await;
    let (memory_session, redis_session) = (open(&in_memory).await, open(&on_redis).await);
    let http = reqwest::Client::new();
    let (rounds, warm_up) = (400, 50);
    let (mut memory, mut shared) = (Vec::new(), Vec::new());
    // Interleaved, so that whatever else the machine does weighs on both alike.
    for id in 0..warm_up + rounds {
        let m = timed_call(&http, &in_memory, &memory_session, id).await;
        let r = timed_call(&http, &on_redis, &redis_session, id).await;
        if id >= warm_up {
            memory.push(m);
            shared.push(r);
        }
    }
    let (memory, shared) = (median(memory), median(shared));
    eprintln!(
        "a session's tools/call over HTTP, median of {rounds}: {memory:?} with the memory store, \
         {shared:?} with the Redis store (+{:?})",
        shared.saturating_sub(memory)
    );
}
