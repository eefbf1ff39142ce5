//! Tasks (2025-11-25, and stateless 2026-07-28 ones) shared by two replicas through Redis
//! (`RedisTaskStore`, feature `redis`), sessions shared too (`RedisSessionStore`): a task started
//! on one replica runs there and is read, listed, awaited and cancelled through the other, and
//! its question answered through the other (over the session, or by a stateless `tasks/update`);
//! its keys expire in Redis itself; the limits count the tasks of every replica; a lost Redis
//! gives clear errors, and the store works again once Redis is back; a server binary's
//! `--redis URL` shares its tasks as well as its sessions.
//! Needs Debian's `redis-server`; skipped without it unless `MCP_INTEROP_REQUIRED` is set.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::cli::ServeArgs;
use mcp_runtime::http::RedisSessionStore;
use mcp_runtime::http::{HttpOptions, router};
use mcp_runtime::prelude::*;
use mcp_runtime::task::{RedisTaskStore, TaskLimits, TaskRecord, TaskStatus, TaskStore, now_ms};
use serde_json::{Value, json};
use test_support::http::{STATELESS, Served, serve_app};
use test_support::redis::Redis;
use test_support::redis_cluster::RedisLike;

/// How often a replica running a task re-reads its record, and `tasks/result` polls.
const POLL: Duration = Duration::from_millis(100);
/// How long one step of `count` takes.
const STEP: Duration = Duration::from_millis(50);

/// The steps each `count` call has taken, by its tag.
static STEPS: Mutex<Option<HashMap<String, u32>>> = Mutex::new(None);

/// `tag`, marked on a cluster: the same test on one Redis and on a cluster runs in one process,
/// and each counts its own steps.
fn tagged(redis: &impl RedisLike, tag: &str) -> String {
    if redis.is_cluster() {
        format!("{tag}@cluster")
    } else {
        tag.to_owned()
    }
}

fn steps(tag: &str) -> u32 {
    let steps = STEPS.lock().unwrap();
    steps
        .as_ref()
        .and_then(|s| s.get(tag))
        .copied()
        .unwrap_or(0)
}

/// Count to `steps`, one step every 50 ms, each reported as progress.
#[tool(task)]
async fn count(ctx: &Context, steps: u32, tag: String) -> String {
    for step in 1..=steps {
        tokio::time::sleep(STEP).await;
        *STEPS
            .lock()
            .unwrap()
            .get_or_insert_with(HashMap::new)
            .entry(tag.clone())
            .or_default() = step;
        let message = format!("step {step} of {steps}");
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some(&message));
    }
    format!("counted to {steps}")
}

/// A server whose tasks are kept in `tasks`, a session keeping `per_session` of them at most
/// and the fleet `total`.
fn server(tasks: RedisTaskStore, per_session: usize, total: usize) -> Server {
    Server::builder("redis-tasks", "1.0.0")
        .tools(tools![count, ask_first])
        .task_poll_interval(POLL)
        .max_tasks_per_session(per_session)
        .max_tasks(total)
        .build()
        .unwrap()
        .with_task_store(Arc::new(tasks))
}

/// A replica: sessions and tasks in `redis`, on one connection.
async fn replica(redis: &impl RedisLike, per_session: usize, total: usize) -> Served {
    let sessions = RedisSessionStore::connect(redis.url()).await.unwrap();
    let tasks = RedisTaskStore::with_connection(sessions.connection(), "mcp");
    let options = HttpOptions::default().session_store(Arc::new(sessions));
    serve_app(router(&server(tasks, per_session, total), options)).await
}

/// POSTs `body` in `session` (none for `initialize`); the status, the session header and the
/// JSON-RPC messages of the answer (one JSON body, or each event of a stream).
async fn post(to: &str, session: Option<&str>, body: Value) -> (u16, Option<String>, Vec<Value>) {
    let http = reqwest::Client::new();
    common::post_in_session(&http, to, session, "2025-11-25", body).await
}

/// Opens a 2025-11-25 session on `to`.
async fn open(to: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "two-replicas", "version": "1.0"}
    }});
    let (status, id, _) = post(to, None, init).await;
    assert_eq!(status, 200);
    let session = id.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(to, Some(&session), initialized).await.0, 202);
    session
}

/// The response to the request `method` with `params` in `session` at the endpoint `to`.
async fn ask(to: &str, session: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let (status, _, messages) = post(to, Some(session), body).await;
    assert_eq!(status, 200, "{messages:?}");
    let response = messages.into_iter().find(|m| m.get("id").is_some());
    response.expect("a response")
}

/// Starts `count` to `steps` as a task with `ttl` ms; the response.
async fn start(to: &str, session: &str, steps: u32, tag: &str, ttl: u64) -> Value {
    let params = json!({"name": "count", "arguments": {"steps": steps, "tag": tag},
        "task": {"ttl": ttl}});
    ask(to, session, "tools/call", params).await
}

/// The id of the task `start` created.
fn task_id(created: &Value) -> String {
    let id = created["result"]["task"]["taskId"].as_str();
    id.unwrap_or_else(|| panic!("a task: {created}")).to_owned()
}

async fn get(to: &str, session: &str, id: &str) -> Value {
    ask(to, session, "tasks/get", json!({"taskId": id})).await
}

/// Waits (polling every 20 ms, up to 10 s) until `done` holds.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_replica_is_read_listed_and_awaited_on_the_other() {
    let Some(redis) = Redis::start() else { return };
    a_task_started_on_one_replica_is_read_listed_and_awaited_on_the_other_on(&redis).await;
}

/// The body of [`a_task_started_on_one_replica_is_read_listed_and_awaited_on_the_other`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn a_task_started_on_one_replica_is_read_listed_and_awaited_on_the_other_on(
    redis: &impl RedisLike,
) {
    let t = |tag: &str| tagged(redis, tag);
    let (a, b) = (
        replica(&redis, 64, 1024).await,
        replica(&redis, 64, 1024).await,
    );
    let session = open(&a.url).await;
    let id = task_id(&start(&a.url, &session, 10, &t("awaited"), 60_000).await);

    // B reads it from Redis while it runs on A.
    let working = get(&b.url, &session, &id).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    assert_eq!(working["result"]["pollInterval"], 100);
    let listed = ask(&b.url, &session, "tasks/list", json!({})).await;
    let ids: Vec<&Value> = listed["result"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["taskId"])
        .collect();
    assert_eq!(ids, [&json!(id)], "{listed}");
    // A progress step reaches the record that B reads.
    until("a step on A", || steps(&t("awaited")) >= 2).await;
    let later = get(&b.url, &session, &id).await;
    let message = later["result"]["statusMessage"]
        .as_str()
        .unwrap_or_default();
    assert!(message.starts_with("step "), "{later}");

    // `tasks/result` on B waits for the body's end on A.
    let started = Instant::now();
    let result = ask(&b.url, &session, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["structuredContent"]["result"], "counted to 10",
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        json!(id)
    );
    assert_eq!(steps(&t("awaited")), 10);
    assert!(started.elapsed() < Duration::from_secs(5));
    let done = get(&b.url, &session, &id).await;
    assert_eq!(done["result"]["status"], "completed");

    // Another session sees none of it, on either replica.
    let other = open(&b.url).await;
    let theirs = ask(&a.url, &other, "tasks/list", json!({})).await;
    assert_eq!(theirs["result"]["tasks"], json!([]), "{theirs}");
    let refused = get(&b.url, &other, &id).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_cancelled_on_another_replica_stops_and_stays_cancelled() {
    let Some(redis) = Redis::start() else { return };
    a_task_cancelled_on_another_replica_stops_and_stays_cancelled_on(&redis).await;
}

/// The body of [`a_task_cancelled_on_another_replica_stops_and_stays_cancelled`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn a_task_cancelled_on_another_replica_stops_and_stays_cancelled_on(
    redis: &impl RedisLike,
) {
    let p = redis.task_prefix();
    let t = |tag: &str| tagged(redis, tag);
    let (a, b) = (
        replica(&redis, 64, 1024).await,
        replica(&redis, 64, 1024).await,
    );
    let session = open(&a.url).await;
    let id = task_id(&start(&a.url, &session, 400, &t("cancelled"), 60_000).await);
    until("the body runs on A", || steps(&t("cancelled")) >= 2).await;

    let cancelled = ask(&b.url, &session, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    // A reads the record within one poll interval and stops the body.
    tokio::time::sleep(POLL * 3).await;
    let stopped_at = steps(&t("cancelled"));
    tokio::time::sleep(STEP * 6).await;
    assert_eq!(steps(&t("cancelled")), stopped_at, "the body stopped on A");
    assert!(stopped_at < 400);

    for replica in [&a.url, &b.url] {
        let record = get(replica, &session, &id).await;
        assert_eq!(record["result"]["status"], "cancelled", "{record}");
    }
    let result = ask(&a.url, &session, "tasks/result", json!({"taskId": id})).await;
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("was cancelled"), "{result}");
    let again = ask(&a.url, &session, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["error"]["code"], -32602, "{again}");
    let stored: Value = serde_json::from_str(&redis.cli(&["GET", &format!("{p}:task:{id}")]))
        .expect("the record, as JSON");
    assert_eq!(stored["status"], "cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_keys_expire_in_redis_after_the_ttl() {
    let Some(redis) = Redis::start() else { return };
    task_keys_expire_in_redis_after_the_ttl_on(&redis).await;
}

/// The body of [`task_keys_expire_in_redis_after_the_ttl`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn task_keys_expire_in_redis_after_the_ttl_on(redis: &impl RedisLike) {
    let p = redis.task_prefix();
    let (a, b) = (
        replica(&redis, 64, 1024).await,
        replica(&redis, 64, 1024).await,
    );
    let session = open(&a.url).await;
    let ttl = 1500;
    let id = task_id(&start(&a.url, &session, 2, "expiring", ttl).await);
    let keys = [
        format!("{p}:task:{id}"),
        format!("{p}:tasks"),
        format!("{p}:tasks:owner:session:{session}"),
    ];
    for key in &keys {
        assert_eq!(redis.cli(&["EXISTS", key]), "1", "{key}");
        let left: u64 = redis.cli(&["PTTL", key]).parse().unwrap();
        assert!(
            left > 0 && left <= ttl,
            "{key} expires within the ttl: {left} ms"
        );
    }
    let result = ask(&b.url, &session, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["structuredContent"]["result"],
        "counted to 2"
    );

    tokio::time::sleep(Duration::from_millis(ttl + 300)).await;
    for key in &keys {
        assert_eq!(redis.cli(&["EXISTS", key]), "0", "{key} expired");
    }
    let gone = get(&b.url, &session, &id).await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    let listed = ask(&a.url, &session, "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_count_the_tasks_of_every_replica() {
    let Some(redis) = Redis::start() else { return };
    limits_count_the_tasks_of_every_replica_on(&redis).await;
}

/// The body of [`limits_count_the_tasks_of_every_replica`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn limits_count_the_tasks_of_every_replica_on(redis: &impl RedisLike) {
    let t = |tag: &str| tagged(redis, tag);
    let (a, b) = (replica(&redis, 2, 3).await, replica(&redis, 2, 3).await);
    let first = open(&a.url).await;
    for tag in [t("limit-1"), t("limit-2")] {
        let created = start(&a.url, &first, 200, &tag, 60_000).await;
        task_id(&created);
    }
    // The session's third, on the replica that started none of them.
    let refused = start(&b.url, &first, 200, &t("limit-3"), 60_000).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("a session keeps 2 tasks at most"),
        "{refused}"
    );

    // Another session gets the fleet's third place, and no fourth.
    let second = open(&b.url).await;
    task_id(&start(&b.url, &second, 200, &t("limit-4"), 60_000).await);
    let full = start(&a.url, &second, 200, &t("limit-5"), 60_000).await;
    let message = full["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the server keeps 3 tasks at most"),
        "{full}"
    );
    assert_eq!(
        steps(&t("limit-3")) + steps(&t("limit-5")),
        0,
        "refused tasks never ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_store_fails_clearly_while_redis_is_down_and_recovers_after() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    // Sessions in memory, tasks in Redis: only the task store loses Redis.
    let tasks = RedisTaskStore::connect(redis.url()).await.unwrap();
    let a = serve_app(router(&server(tasks, 64, 1024), HttpOptions::default())).await;
    let session = open(&a.url).await;
    let id = task_id(&start(&a.url, &session, 4, "down", 60_000).await);

    redis.stop();
    let failed = get(&a.url, &session, &id).await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("task store failed"), "{failed}");
    let refused = start(&a.url, &session, 1, "down-2", 60_000).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let listed = ask(&a.url, &session, "tasks/list", json!({})).await;
    assert!(listed.get("error").is_some(), "{listed}");

    // Back, empty: the old task is gone, a new one runs and is read.
    redis.restart();
    let mut answer = Value::Null;
    for _ in 0..100 {
        answer = get(&a.url, &session, &id).await;
        if answer["error"]["code"] != -32603 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(answer["error"]["code"], -32602, "reconnected: {answer}");
    let fresh = task_id(&start(&a.url, &session, 1, "up", 60_000).await);
    let result = ask(&a.url, &session, "tasks/result", json!({"taskId": fresh})).await;
    assert_eq!(
        result["result"]["structuredContent"]["result"],
        "counted to 1"
    );
}

/// A record as the runtime makes it, `working`.
fn record(id: &str, owner: &str, created_at_ms: u64, ttl_ms: u64) -> TaskRecord {
    TaskRecord {
        task_id: id.into(),
        owner: Some(owner.into()),
        status: TaskStatus::Working,
        status_message: None,
        created_at_ms,
        last_updated_at_ms: created_at_ms,
        ttl_ms,
        poll_interval_ms: 100,
        result: None,
        error: None,
        input_requests: Default::default(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_pages_oldest_first_and_keeps_the_first_end() {
    let Some(redis) = Redis::start() else { return };
    the_store_pages_oldest_first_and_keeps_the_first_end_on(&redis).await;
}

/// The body of [`the_store_pages_oldest_first_and_keeps_the_first_end`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn the_store_pages_oldest_first_and_keeps_the_first_end_on(
    redis: &impl RedisLike,
) {
    let p = redis.task_prefix();
    let store = RedisTaskStore::connect(redis.url()).await.unwrap();
    let limits = TaskLimits {
        total: 10,
        per_owner: 10,
    };
    let now = now_ms();
    // Created out of order: pages follow the creation times, not the insertion order.
    for (id, created) in [("c", now + 2), ("a", now), ("b", now + 1)] {
        let r = record(id, "s", created, 60_000);
        store.create(r, limits).await.unwrap();
    }
    store
        .create(record("short", "s", now + 3, 300), limits)
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.list(Some("s"), cursor.as_deref(), 2).await.unwrap();
        seen.extend(page.tasks.into_iter().map(|r| r.task_id));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen, ["a", "b", "c", "short"]);

    // The first end stored stays: a later `completed` does not replace `cancelled`.
    let working = store.get("a").await.unwrap().unwrap();
    let cancelled = TaskRecord {
        status: TaskStatus::Cancelled,
        ..working.clone()
    };
    let completed = TaskRecord {
        status: TaskStatus::Completed,
        result: Some(json!({"content": []})),
        ..working
    };
    store.put(cancelled.clone()).await.unwrap();
    store.put(completed).await.unwrap();
    assert_eq!(store.get("a").await.unwrap(), Some(cancelled));

    // An expired record is gone from `get` and from the pages, and `put` does not revive it.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let expired = record("short", "s", now + 3, 300);
    store.put(expired).await.unwrap();
    assert_eq!(store.get("short").await.unwrap(), None);
    assert_eq!(redis.cli(&["EXISTS", &format!("{p}:task:short")]), "0");
    let page = store.list(Some("s"), None, 10).await.unwrap();
    let ids: Vec<&str> = page.tasks.iter().map(|r| r.task_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(
        redis.cli(&["ZCARD", &format!("{p}:tasks:owner:s")]),
        "3",
        "pruned"
    );
}

/// A replica started as a server binary's `--http 127.0.0.1:PORT --redis URL` starts one; its
/// endpoint, and the task serving it.
async fn replica_from_flags(redis: &impl RedisLike) -> (String, tokio::task::JoinHandle<()>) {
    let addr = format!("127.0.0.1:{}", test_support::redis::free_port());
    let args = ServeArgs {
        http: Some(addr.clone()),
        redis: Some(redis.url().to_owned()),
        ..ServeArgs::default()
    };
    let server = Server::builder("redis-tasks", "1.0.0")
        .tools(tools![count])
        .task_poll_interval(POLL)
        .build()
        .unwrap();
    let serving = tokio::spawn(async move { args.serve(&server).await.unwrap() });
    let deadline = Instant::now() + Duration::from_secs(10);
    while tokio::net::TcpStream::connect(&addr).await.is_err() {
        assert!(Instant::now() < deadline, "never listened on {addr}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (format!("http://{addr}/mcp"), serving)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_flag_shares_tasks_between_replicas_too() {
    let Some(redis) = Redis::start() else { return };
    the_redis_flag_shares_tasks_between_replicas_too_on(&redis).await;
}

/// The body of [`the_redis_flag_shares_tasks_between_replicas_too`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn the_redis_flag_shares_tasks_between_replicas_too_on(redis: &impl RedisLike) {
    let p = redis.task_prefix();
    let t = |tag: &str| tagged(redis, tag);
    let (a, serving_a) = replica_from_flags(&redis).await;
    let (b, serving_b) = replica_from_flags(&redis).await;
    let session = open(&a).await;
    let id = task_id(&start(&a, &session, 400, &t("flags"), 60_000).await);
    assert_eq!(redis.cli(&["EXISTS", &format!("{p}:task:{id}")]), "1");
    until("the body runs on A", || steps(&t("flags")) >= 2).await;

    let cancelled = ask(&b, &session, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    tokio::time::sleep(POLL * 3).await;
    let stopped_at = steps(&t("flags"));
    tokio::time::sleep(STEP * 6).await;
    assert_eq!(steps(&t("flags")), stopped_at, "the body stopped on A");
    let record = get(&a, &session, &id).await;
    assert_eq!(record["result"]["status"], "cancelled", "{record}");
    serving_a.abort();
    serving_b.abort();
}

/// The response to a stateless (2026-07-28) request `method` with `params` at `to`, from a client
/// that takes tasks and answers elicitations.
async fn stateless(to: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities":
            {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(to)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", STATELESS)
        .header("mcp-method", method);
    // The tool's name, or the task's id, echoed in a header.
    let name = body["params"]["name"].as_str();
    if let Some(name) = name.or(body["params"]["taskId"].as_str()) {
        request = request.header("mcp-name", name);
    }
    let text = request.body(body.to_string()).send().await.unwrap();
    let text = text.text().await.unwrap();
    common::last_message(&text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_tasks_are_read_and_cancelled_on_the_other_replica() {
    let Some(redis) = Redis::start() else { return };
    stateless_tasks_are_read_and_cancelled_on_the_other_replica_on(&redis).await;
}

/// The body of [`stateless_tasks_are_read_and_cancelled_on_the_other_replica`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn stateless_tasks_are_read_and_cancelled_on_the_other_replica_on(
    redis: &impl RedisLike,
) {
    let t = |tag: &str| tagged(redis, tag);
    let (a, b) = (
        replica(&redis, 64, 1024).await,
        replica(&redis, 64, 1024).await,
    );
    let call =
        |steps: u32, tag: &str| json!({"name": "count", "arguments": {"steps": steps, "tag": tag}});

    // One runs to its end on A; B reads its result.
    let created = stateless(&a.url, "tools/call", call(6, &t("stateless-done"))).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let working = stateless(&b.url, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    let mut done = Value::Null;
    for _ in 0..200 {
        done = stateless(&b.url, "tasks/get", json!({"taskId": id})).await;
        if done["result"]["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["structuredContent"]["result"],
        "counted to 6"
    );

    // Another is cancelled through B, and stops on A.
    let created = stateless(&a.url, "tools/call", call(400, &t("stateless-cancelled"))).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    until("the body runs on A", || {
        steps(&t("stateless-cancelled")) >= 2
    })
    .await;
    let cancelled = stateless(&b.url, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["result"]["resultType"], "complete", "{cancelled}");
    tokio::time::sleep(POLL * 3).await;
    let stopped_at = steps(&t("stateless-cancelled"));
    tokio::time::sleep(STEP * 6).await;
    assert_eq!(
        steps(&t("stateless-cancelled")),
        stopped_at,
        "the body stopped on A"
    );
    let record = stateless(&a.url, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(record["result"]["status"], "cancelled", "{record}");
}

#[derive(serde::Deserialize, JsonSchema)]
struct Go {
    /// Go on?
    go: bool,
}

/// Ask whether to go on, then say what was answered.
#[tool(task)]
async fn ask_first(ctx: &Context) -> String {
    match ctx.elicit::<Go>("Go on?").await {
        Ok(Elicitation::Accept(Go { go })) => format!("go: {go}"),
        _ => "no answer".into(),
    }
}

/// A session's `GET` stream on `to`.
async fn get_stream(to: &str, session: &str) -> common::Events {
    let response = reqwest::Client::new()
        .get(to)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    common::Events::of(response)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_question_is_answered_through_the_other_replica() {
    let Some(redis) = Redis::start() else { return };
    a_tasks_question_is_answered_through_the_other_replica_on(&redis).await;
}

/// The body of [`a_tasks_question_is_answered_through_the_other_replica`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn a_tasks_question_is_answered_through_the_other_replica_on(
    redis: &impl RedisLike,
) {
    let (a, b) = (
        replica(&redis, 64, 1024).await,
        replica(&redis, 64, 1024).await,
    );
    let session = open(&a.url).await;
    let mut stream = get_stream(&a.url, &session).await;
    let params = json!({"name": "ask_first", "arguments": {}, "task": {}});
    let id = task_id(&ask(&a.url, &session, "tools/call", params).await);

    // The question comes on the session's stream (after the task's status notifications), tied
    // to the task; B sees the task waiting for it.
    let question = loop {
        let message = stream.next().await;
        if message["method"] == "elicitation/create" {
            break message;
        }
        assert_eq!(message["method"], "notifications/tasks/status", "{message}");
    };
    let related = &question["params"]["_meta"]["io.modelcontextprotocol/related-task"];
    assert_eq!(related["taskId"], json!(id), "{question}");
    let waiting = get(&b.url, &session, &id).await;
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");

    // Answered through B, which relays it to A.
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": {
        "action": "accept", "content": {"go": true}
    }});
    assert_eq!(post(&b.url, Some(&session), answer).await.0, 202);
    let result = ask(&b.url, &session, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["structuredContent"]["result"], "go: true",
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_tasks_question_is_answered_through_the_other_replica() {
    let Some(redis) = Redis::start() else { return };
    a_stateless_tasks_question_is_answered_through_the_other_replica_on(&redis).await;
}

/// The body of [`a_stateless_tasks_question_is_answered_through_the_other_replica`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn a_stateless_tasks_question_is_answered_through_the_other_replica_on(
    redis: &impl RedisLike,
) {
    let p = redis.task_prefix();
    let (a, b) = (
        replica(&redis, 64, 1024).await,
        replica(&redis, 64, 1024).await,
    );
    let call = json!({"name": "ask_first", "arguments": {}});
    let created = stateless(&a.url, "tools/call", call).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let answers_key = format!("{p}:task:{id}:answers");

    // B reads the question from the record that A stored.
    let waiting = stateless(&b.url, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");
    let requests = waiting["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, question) = requests.iter().next().unwrap();
    assert_eq!(question["method"], "elicitation/create", "{waiting}");
    assert_eq!(question["params"]["message"], "Go on?", "{waiting}");

    // An answer to a question the task does not ask changes nothing, and is not kept.
    let ignored = json!({"taskId": id, "inputResponses": {"not-asked": {"action": "decline"}}});
    let ack = stateless(&b.url, "tasks/update", ignored).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(redis.cli(&["EXISTS", &answers_key]), "0");

    // Answered through B: A takes the answer from Redis within a poll interval, and goes on.
    let answer = json!({"action": "accept", "content": {"go": true}});
    let update = json!({"taskId": id, "inputResponses": {key.clone(): answer}});
    let ack = stateless(&b.url, "tasks/update", update).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let mut done = Value::Null;
    for _ in 0..250 {
        done = stateless(&b.url, "tasks/get", json!({"taskId": id})).await;
        if !matches!(
            done["result"]["status"].as_str(),
            Some("input_required" | "working")
        ) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["structuredContent"]["result"], "go: true",
        "{done}"
    );
    assert_eq!(redis.cli(&["EXISTS", &answers_key]), "0", "answers taken");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_kept_for_a_task_expire_with_its_record_and_are_taken_once() {
    let Some(redis) = Redis::start() else { return };
    answers_kept_for_a_task_expire_with_its_record_and_are_taken_once_on(&redis).await;
}

/// The body of [`answers_kept_for_a_task_expire_with_its_record_and_are_taken_once`], on one Redis or a Redis Cluster (`redis_cluster`).
pub(crate) async fn answers_kept_for_a_task_expire_with_its_record_and_are_taken_once_on(
    redis: &impl RedisLike,
) {
    let p = redis.task_prefix();
    let store = RedisTaskStore::connect(redis.url()).await.unwrap();
    let limits = TaskLimits {
        total: 10,
        per_owner: 10,
    };
    let answers: serde_json::Map<String, Value> =
        serde_json::from_value(json!({"input-0": {"action": "accept", "content": {"n": 1}}}))
            .unwrap();

    // No record, no answers kept.
    store.put_answers("missing", &answers).await.unwrap();
    assert_eq!(
        redis.cli(&["EXISTS", &format!("{p}:task:missing:answers")]),
        "0"
    );

    store
        .create(record("asking", "s", now_ms(), 60_000), limits)
        .await
        .unwrap();
    store.put_answers("asking", &answers).await.unwrap();
    let key = &format!("{p}:task:asking:answers");
    // The same moment, give or take the millisecond `PTTL` rounds to.
    let expiry = |key: &str| -> i64 { redis.cli(&["PEXPIRETIME", key]).parse().unwrap() };
    let (answers_at, record_at) = (expiry(key), expiry(&format!("{p}:task:asking")));
    assert!(
        answers_at > 0 && (answers_at - record_at).abs() <= 2,
        "the answers expire at {answers_at}, the record at {record_at}"
    );
    let more: serde_json::Map<String, Value> =
        serde_json::from_value(json!({"input-1": {"action": "decline"}})).unwrap();
    store.put_answers("asking", &more).await.unwrap();

    let taken = store.take_answers("asking").await.unwrap();
    assert_eq!(
        Value::Object(taken),
        json!({"input-0": {"action": "accept", "content": {"n": 1}},
               "input-1": {"action": "decline"}})
    );
    assert_eq!(redis.cli(&["EXISTS", key]), "0");
    assert!(store.take_answers("asking").await.unwrap().is_empty());
}
