//! Resumable streams across replicas through Redis (`RedisEventStore`, feature `redis`): the
//! events of a call running on replica A are in Redis as A writes them, a client whose stream
//! broke resumes it on replica B with `Last-Event-ID` (what it missed, then the rest live, while
//! the call still runs on A), and when A dies mid-call the stream resumed on B ends with a
//! JSON-RPC error for the call once A's lease has lapsed. Redis holds each stream as one key that
//! expires after the store's TTL, and the writer's lease only while the call runs. A resource
//! update raised on either replica reaches the session's `GET` stream, wherever it is held, once,
//! and only while the session (subscribed through the other replica) is subscribed. Needs Debian's
//! `redis-server`; skipped without it unless `MCP_INTEROP_REQUIRED` is set.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::ResourceUpdates;
use mcp_runtime::http::{HttpOptions, router};
use mcp_runtime::http::{RedisEventStore, RedisSessionStore};
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::{Served, serve_app, serve_guarded};
use test_support::redis::Redis;
use test_support::redis_cluster::RedisLike;
use tokio::sync::Semaphore;

/// Lets `slow` past its middle once per permit.
struct Gate(Semaphore);

/// Sends progress, waits at the gate, sends progress again, answers.
#[tool]
async fn slow(ctx: &Context, gate: &Gate) -> String {
    ctx.progress(1.0, Some(2.0), Some("one"));
    let _ = gate.0.acquire().await.map(|p| p.forget());
    ctx.progress(2.0, Some(2.0), Some("two"));
    "done".into()
}

/// The TTL of a stream in Redis, short enough to watch it go.
const TTL: Duration = Duration::from_secs(2);

fn server(gate: &Arc<Gate>) -> Server {
    Server::builder("streams", "1.0.0")
        .state_arc(gate.clone())
        .tools(tools![slow])
        .build()
        .unwrap()
}

/// A replica's options: sessions and streams in `redis`, a 300 ms lease.
async fn options(redis: &impl RedisLike) -> HttpOptions {
    let sessions = RedisSessionStore::connect(redis.url()).await.unwrap();
    let events = RedisEventStore::beside(&sessions).ttl(TTL);
    HttpOptions::default()
        .session_store(Arc::new(sessions))
        .event_store(Arc::new(events))
        .stream_lease(Duration::from_millis(300))
}

/// A replica's router, with [`options`].
async fn app(server: &Server, redis: &impl RedisLike) -> axum::Router {
    router(server, options(redis).await)
}

async fn post(url: &str, session: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(id) = session {
        request = request.header("mcp-session-id", id);
    }
    request.send().await.unwrap()
}

async fn resume(url: &str, session: &str, last: &str) -> common::Events {
    let response = reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("last-event-id", last)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    common::Events::of(response)
}

async fn open(url: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "resumer", "version": "1"}}});
    let opened = post(url, None, init).await;
    let id = opened.headers()["mcp-session-id"].to_str().unwrap();
    id.to_owned()
}

fn call_slow(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}}})
}

fn progress(message: &Value) -> f64 {
    assert_eq!(message["method"], "notifications/progress", "{message}");
    message["params"]["progress"].as_f64().unwrap()
}

/// Waits until no key matches `pattern` (each expires by itself).
async fn until_gone(redis: &impl RedisLike, pattern: &str) {
    let deadline = std::time::Instant::now() + TTL * 3;
    while !redis.keys(pattern).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "left: {:?}",
            redis.keys(pattern)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_written_on_one_replica_resumes_on_the_other_through_redis() {
    let Some(redis) = Redis::start() else { return };
    a_stream_written_on_one_replica_resumes_on_the_other_through_redis_on(&redis).await;
}

/// The body of [`a_stream_written_on_one_replica_resumes_on_the_other_through_redis`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn a_stream_written_on_one_replica_resumes_on_the_other_through_redis_on(
    redis: &impl RedisLike,
) {
    let gate = Arc::new(Gate(Semaphore::new(0)));
    let server = server(&gate);
    let a = serve_app(app(&server, &redis).await).await;
    let b = serve_app(app(&server, &redis).await).await;
    let session = open(&a.url).await;

    let mut stream = common::Events::of(post(&a.url, Some(&session), call_slow(1)).await);
    let (primed, none) = stream.next_event().await.unwrap();
    assert_eq!(none, None, "the priming event has no data");
    let (first_id, first) = stream.next_event().await.unwrap();
    assert_eq!(progress(&first.unwrap()), 1.0);
    let first_id = first_id.unwrap();
    drop(stream);
    // In Redis as A wrote it: the stream (its opening and the progress) and A's lease.
    let name = first_id.split_once('/').unwrap().0;
    let key = redis.events_key(&session, name);
    assert_eq!(
        redis.keys(&format!("{}*", redis.events_key(&session, ""))),
        [key.clone(), format!("{key}:lease")]
    );
    assert_eq!(redis.cli(&["XLEN", &key]), "2");
    let ttl: u64 = redis.cli(&["PTTL", &key]).parse().unwrap();
    assert!(ttl > 0 && ttl <= 2000, "{ttl}");

    // Resumed on B while the call still waits on A; then A goes on and B relays it live.
    let mut resumed = resume(&b.url, &session, &first_id).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    gate.0.add_permits(1);
    assert_eq!(progress(&resumed.next().await), 2.0);
    let answer = resumed.next().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"result": "done"})
    );
    assert_eq!(
        resumed.next_event().await,
        None,
        "the stream ends with its answer"
    );

    // Resumed again from the priming event, on A: the whole stream, once more.
    let mut again = resume(&a.url, &session, &primed.unwrap()).await;
    assert_eq!(progress(&again.next().await), 1.0);
    assert_eq!(progress(&again.next().await), 2.0);
    assert_eq!(again.next().await["id"], 1);

    // The lease went with the answer; the stream goes with its TTL.
    assert_eq!(redis.keys(&format!("{key}:lease")), Vec::<String>::new());
    until_gone(&redis, "mcp:events:*").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_on_a_replica_that_died_ends_with_an_error_on_the_stream_resumed_elsewhere() {
    let Some(redis) = Redis::start() else { return };
    a_call_on_a_replica_that_died_ends_with_an_error_on_the_stream_resumed_elsewhere_on(&redis)
        .await;
}

/// The body of [`a_call_on_a_replica_that_died_ends_with_an_error_on_the_stream_resumed_elsewhere`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn a_call_on_a_replica_that_died_ends_with_an_error_on_the_stream_resumed_elsewhere_on(
    redis: &impl RedisLike,
) {
    let gate = Arc::new(Gate(Semaphore::new(0)));
    let server = server(&gate);
    // Replica A on a runtime of its own, which the test shuts down mid-call.
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let app_a = app(&server, &redis).await;
    let replica_a = std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let served: Served = runtime.block_on(serve_app(app_a));
        url_tx.send(served.url.clone()).unwrap();
        let _ = stop_rx.recv();
        runtime.shutdown_background();
    });
    let a_url = url_rx.recv().unwrap();
    let b = serve_app(app(&server, &redis).await).await;
    let session = open(&a_url).await;

    let mut stream = common::Events::of(post(&a_url, Some(&session), call_slow(4)).await);
    let (primed, _) = stream.next_event().await.unwrap();
    assert_eq!(progress(&stream.next().await), 1.0);
    stop_tx.send(()).unwrap();
    replica_a.join().unwrap();
    assert_eq!(stream.next_event().await, None, "A's stream broke");

    let mut resumed = resume(&b.url, &session, &primed.unwrap()).await;
    assert_eq!(progress(&resumed.next().await), 1.0);
    let ended = resumed.next().await;
    assert_eq!(ended["id"], 4);
    assert_eq!(ended["error"]["code"], -32603);
    // The session goes on through B, and nothing of the lost call stays in Redis.
    let (status, _, answer) = common::post_in_session(
        &reqwest::Client::new(),
        &b.url,
        Some(&session),
        "2025-11-25",
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    )
    .await;
    assert_eq!((status, &answer[0]["result"]), (200, &json!({})));
    until_gone(&redis, "mcp:events:*").await;
}

/// One note, by its title.
#[resource(uri = "notes://{title}", mime_type = "text/plain")]
fn note(title: String) -> String {
    format!("the note {title}")
}

/// A replica's own server (its own resource registry, as in a process of its own) and router.
async fn notes_replica(redis: &impl RedisLike) -> (ResourceUpdates, Served) {
    let server = Server::builder("notes", "1.0.0")
        .resources(resources![note])
        .build()
        .unwrap();
    let updates = server.resource_updates().clone();
    (updates, serve_app(app(&server, redis).await).await)
}

/// The next message on `stream`, or `None` when none comes within `within`.
async fn next_within(stream: &mut common::Events, within: Duration) -> Option<Value> {
    loop {
        let (_, data) = tokio::time::timeout(within, stream.next_event())
            .await
            .ok()??;
        if data.is_some() {
            return data;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_update_raised_on_any_replica_reaches_the_stream_another_holds_once() {
    let Some(redis) = Redis::start() else { return };
    a_resource_update_raised_on_any_replica_reaches_the_stream_another_holds_once_on(&redis).await;
}

/// The body of [`a_resource_update_raised_on_any_replica_reaches_the_stream_another_holds_once`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn a_resource_update_raised_on_any_replica_reaches_the_stream_another_holds_once_on(
    redis: &impl RedisLike,
) {
    let (updates_a, a) = notes_replica(&redis).await;
    let (updates_b, b) = notes_replica(&redis).await;
    let session = open(&a.url).await;
    // Subscribed through B; the session's GET stream is held by A.
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": "notes://a"}});
    assert_eq!(post(&b.url, Some(&session), subscribe).await.status(), 200);
    let response = reqwest::Client::new()
        .get(&a.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = common::Events::of(response);
    let updated = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
        "params": {"uri": "notes://a"}});

    // Raised on B, which does not hold the stream; then on A, which does: one notification each.
    updates_b.updated("notes://a");
    assert_eq!(next_within(&mut stream, HANG).await, Some(updated.clone()));
    updates_a.updated("notes://a");
    assert_eq!(next_within(&mut stream, HANG).await, Some(updated.clone()));
    updates_b.updated("notes://b");
    let quiet = Duration::from_millis(500);
    assert_eq!(
        next_within(&mut stream, quiet).await,
        None,
        "no duplicate, nothing unasked"
    );

    // Unsubscribed through B: an update raised anywhere is not sent.
    let unsubscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/unsubscribe",
        "params": {"uri": "notes://a"}});
    assert_eq!(
        post(&b.url, Some(&session), unsubscribe).await.status(),
        200
    );
    updates_b.updated("notes://a");
    updates_a.updated("notes://a");
    assert_eq!(next_within(&mut stream, quiet).await, None);
}

/// Progress `n` times, 100 ms apart, each message the time it was sent (µs since the epoch).
#[tool]
async fn ticks(ctx: &Context, n: u32) -> String {
    for i in 1..=n {
        if i > 1 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let now = mcp_runtime::http::store::now_us().to_string();
        ctx.progress(f64::from(i), Some(f64::from(n)), Some(&now));
    }
    "ticked".into()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// A session call answered on an event stream (one progress message, then the answer), timed
/// over `http`'s kept-alive connection.
async fn timed_stream_call(http: &reqwest::Client, url: &str, session: &str, id: u64) -> Duration {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "ticks", "arguments": {"n": 1}, "_meta": {"progressToken": id}}});
    let started = std::time::Instant::now();
    let (status, _, messages) =
        common::post_in_session(http, url, Some(session), "2025-11-25", call).await;
    let took = started.elapsed();
    assert_eq!((status, messages.len()), (200, 2), "{messages:?}");
    took
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_recording_and_following_a_stream_cost() {
    let Some(redis) = Redis::start() else { return };
    let server = Server::builder("ticks", "1.0.0")
        .tools(tools![ticks])
        .build()
        .unwrap();
    // Served as `Server::serve_http_on` serves (`TCP_NODELAY` on each connection, as a
    // deployment has): the timings are the server's, not Nagle's algorithm meeting delayed ACKs.
    let memory = serve_guarded(&server, HttpOptions::default()).await;
    let a = serve_guarded(&server, options(&redis).await).await;
    let b = serve_guarded(&server, options(&redis).await).await;
    let (in_memory, in_redis) = (open(&memory.url).await, open(&a.url).await);
    let http = reqwest::Client::new();
    let (mut memory_times, mut redis_times) = (Vec::new(), Vec::new());
    for id in 1..=40 {
        memory_times.push(timed_stream_call(&http, &memory.url, &in_memory, id).await);
        redis_times.push(timed_stream_call(&http, &a.url, &in_redis, id).await);
    }
    // A call on A, its stream resumed on B after the first event: how long each later event
    // takes from A's tool to the client reading it through B.
    let call = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {
        "name": "ticks", "arguments": {"n": 21}, "_meta": {"progressToken": 99}}});
    let mut stream = common::Events::of(post(&a.url, Some(&in_redis), call).await);
    stream.next_event().await.unwrap();
    let (first, _) = stream.next_event().await.unwrap();
    drop(stream);
    let mut resumed = resume(&b.url, &in_redis, &first.unwrap()).await;
    let mut lags = Vec::new();
    loop {
        let message = resumed.next().await;
        let Some(sent) = message["params"]["message"].as_str() else {
            assert_eq!(message["id"], 99);
            break;
        };
        let sent: u64 = sent.parse().unwrap();
        let now = mcp_runtime::http::store::now_us();
        lags.push(Duration::from_micros(now.saturating_sub(sent)));
    }
    // The first events were replayed (written before the resume): only the live ones count.
    let live = lags.split_off(lags.len().min(3));
    eprintln!(
        "a session call answered on an event stream (2 events), medians of 40: events in memory \
         {:?}, in Redis {:?}; an event from A's tool to a client following on B: median {:?} \
         (max {:?}) over {} live events",
        median(memory_times),
        median(redis_times),
        median(live.clone()),
        live.iter().max().unwrap(),
        live.len()
    );
    assert!(live.len() >= 15, "{lags:?} {live:?}");
}
