//! Graceful drain (`mcp_runtime::server::drain`): readiness flips at once and liveness stays up
//! until the process exits; a call in flight finishes through the drain; a new request during it
//! gets `503` with `Retry-After`; a call past the drain timeout gets a retryable JSON-RPC error
//! and a task still running then ends `failed` in the task store. In process through
//! `Server::serve_http_until`, and through a real SIGTERM to `drain_server` (`cli::run`) over
//! HTTP and over stdio. A session's `GET` stream ends with an SSE `retry` field; with Redis, a
//! call's stream cut by the drain resumes on another replica with `Last-Event-ID` (skipped
//! without Debian's `redis-server` unless `MCP_INTEROP_REQUIRED` is set).

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use integration_tests::drain::{brew, linger};
use mcp_runtime::Shutdown;
use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use mcp_runtime::task::{MemoryTaskStore, TaskStatus, TaskStore};
use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::STATELESS;
use test_support::nginx::spawn_replica;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::common;

const DRAIN_SERVER: &str = env!("CARGO_BIN_EXE_drain_server");

/// A server drained by `shutdown`, on a free loopback port: its base URL and the serve call.
async fn serve(
    server: Server,
    shutdown: &Shutdown,
) -> (String, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let until = shutdown.triggered();
    let served = tokio::spawn(async move {
        server
            .serve_http_until(listener, HttpOptions::default(), until)
            .await
    });
    (base, served)
}

/// A stateless request `method` with `params` (a client that takes tasks): status, headers, body.
async fn post(
    base: &str,
    id: u64,
    method: &str,
    mut params: Value,
) -> (u16, Option<String>, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    });
    let name = params["name"]
        .as_str()
        .or(params["taskId"].as_str())
        .unwrap_or_default()
        .to_owned();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let response = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", STATELESS)
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await.unwrap();
    (status, retry_after, common::last_message(&text))
}

/// `linger` called for `ms` milliseconds.
fn linger_call(ms: u64) -> Value {
    json!({"name": "linger", "arguments": {"ms": ms}})
}

/// A probe's status and JSON body; `None` when nothing answers (the process is gone).
pub(crate) async fn probe(base: &str, path: &str) -> Option<(u16, Value)> {
    let response = reqwest::Client::new()
        .get(format!("{base}{path}"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    Some((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

/// Polls the readiness probe until it answers `status`; how long that took.
async fn ready_turns(base: &str, status: u16) -> Duration {
    let started = Instant::now();
    loop {
        if let Some((seen, _)) = probe(base, "/readyz").await
            && seen == status
        {
            return started.elapsed();
        }
        assert!(started.elapsed() < HANG, "/readyz never answered {status}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The lead-in of each HTTP drain: the probes say alive and ready, and a call is in flight.
async fn call_in_flight(
    base: &str,
    ms: u64,
) -> tokio::task::JoinHandle<(u16, Option<String>, Value)> {
    assert_eq!(
        probe(base, "/readyz").await,
        Some((200, json!({"status": "ready"})))
    );
    assert_eq!(
        probe(base, "/healthz").await,
        Some((200, json!({"status": "alive", "draining": false})))
    );
    let base = base.to_owned();
    let call = tokio::spawn(async move { post(&base, 1, "tools/call", linger_call(ms)).await });
    // The call is under way before the drain begins.
    tokio::time::sleep(Duration::from_millis(200)).await;
    call
}

/// During a drain: readiness `503` saying why, liveness `200`, a new request `503` with
/// `Retry-After` and a retryable JSON-RPC error for its id.
async fn check_draining(base: &str) {
    let turned = ready_turns(base, 503).await;
    assert!(turned < Duration::from_secs(2), "readiness took {turned:?}");
    let (_, body) = probe(base, "/readyz").await.unwrap();
    assert_eq!(body, json!({"status": "unready", "reason": "draining"}));
    assert_eq!(
        probe(base, "/healthz").await,
        Some((200, json!({"status": "alive", "draining": true})))
    );
    let (status, retry_after, refused) = post(base, 7, "tools/call", linger_call(1)).await;
    assert_eq!(status, 503, "{refused}");
    assert_eq!(retry_after.as_deref(), Some("1"));
    assert_eq!(refused["id"], 7, "{refused}");
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    assert_eq!(refused["error"]["data"]["retryable"], true, "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_flight_finishes_through_the_drain_and_new_requests_get_503() {
    let server = Server::builder("drain", "1")
        .tools(tools![linger, brew])
        .build()
        .unwrap();
    let shutdown = Shutdown::new();
    let (base, served) = serve(server, &shutdown).await;
    let call = call_in_flight(&base, 1200).await;
    let drained_at = Instant::now();
    shutdown.trigger();
    check_draining(&base).await;
    let (status, _, answer) = call.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        answer["result"]["content"][0]["text"], "lingered 1200 ms",
        "{answer}"
    );
    tokio::time::timeout(HANG, served)
        .await
        .expect("the serve call returns once drained")
        .unwrap()
        .unwrap();
    let took = drained_at.elapsed();
    assert!(took < Duration::from_secs(5), "the drain took {took:?}");
    assert!(probe(&base, "/healthz").await.is_none(), "nothing listens");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_drain_timeout_a_call_gets_a_retryable_error_and_a_task_ends_failed() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = Server::builder("drain", "1")
        .tools(tools![linger, brew])
        .task_store(store.clone())
        .drain_timeout(Duration::from_millis(600))
        .build()
        .unwrap();
    let shutdown = Shutdown::new();
    let (base, served) = serve(server, &shutdown).await;
    let brewing = json!({"name": "brew", "arguments": {"ms": 60_000}});
    let (_, _, created) = post(&base, 2, "tools/call", brewing).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let call = call_in_flight(&base, 60_000).await;
    let drained_at = Instant::now();
    shutdown.trigger();
    check_draining(&base).await;
    let (status, _, cut) = call.await.unwrap();
    let waited = drained_at.elapsed();
    assert_eq!(status, 200, "{cut}");
    assert_eq!(cut["id"], 1, "{cut}");
    assert_eq!(cut["error"]["code"], -32000, "{cut}");
    assert_eq!(cut["error"]["data"]["retryable"], true, "{cut}");
    assert!(
        waited >= Duration::from_millis(500) && waited < Duration::from_secs(5),
        "cut after {waited:?}"
    );
    tokio::time::timeout(HANG, served)
        .await
        .expect("the serve call returns once drained")
        .unwrap()
        .unwrap();
    let record = store
        .get(&task_id)
        .await
        .unwrap()
        .expect("the task's record");
    assert_eq!(record.status, TaskStatus::Failed, "{record:?}");
    let error = record.error.expect("the failed task's error");
    assert_eq!(error["code"], -32000, "{error}");
    assert_eq!(error["data"]["retryable"], true, "{error}");
    assert!(
        record
            .status_message
            .as_deref()
            .is_some_and(|m| m.contains("drain timeout")),
        "{:?}",
        record.status_message
    );
}

/// Sends SIGTERM to `child`.
pub(crate) fn sigterm(child: &tokio::process::Child) {
    let pid = child.id().expect("still running").to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_an_http_server_process_which_exits_0() {
    let (mut child, addr) =
        spawn_replica(DRAIN_SERVER, &["--http", "0", "--drain-timeout", "10"]).await;
    let base = format!("http://{addr}");
    let call = call_in_flight(&base, 1500).await;
    sigterm(&child);
    check_draining(&base).await;
    let (status, _, answer) = call.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        answer["result"]["content"][0]["text"], "lingered 1500 ms",
        "{answer}"
    );
    let exit = tokio::time::timeout(HANG, child.wait())
        .await
        .expect("the process exits once drained")
        .unwrap();
    assert_eq!(exit.code(), Some(0), "{exit:?}");
    assert!(
        probe(&base, "/healthz").await.is_none(),
        "liveness ends with the process"
    );
}

/// `drain_server` over stdio with a session open: its stdin, and its stdout's lines.
struct StdioServer {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl StdioServer {
    async fn start(drain_timeout: &str) -> StdioServer {
        let mut child = tokio::process::Command::new(DRAIN_SERVER)
            .args(["--drain-timeout", drain_timeout, "--log-level", "warn"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut server = StdioServer {
            child,
            stdin,
            lines,
        };
        server
            .send(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "drain-test", "version": "1"}}}),
            )
            .await;
        let init = server.answer(0).await;
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        server
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        server
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The answer to request `id` (notifications before it skipped).
    async fn answer(&mut self, id: u64) -> Value {
        tokio::time::timeout(HANG, async {
            loop {
                let line = self.lines.next_line().await.unwrap().expect("an answer");
                let message: Value = serde_json::from_str(&line).unwrap();
                if message["id"] == id {
                    return message;
                }
            }
        })
        .await
        .expect("the answer came")
    }

    /// Calls `linger` for `ms` as request `id`, then sends SIGTERM while it runs (stdin stays
    /// open: the signal alone drains); the call's answer and the exit code.
    async fn sigterm_mid_call(mut self, id: u64, ms: u64) -> (Value, Option<i32>) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "linger", "arguments": {"ms": ms}}}))
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        sigterm(&self.child);
        let answer = self.answer(id).await;
        let exit = tokio::time::timeout(HANG, self.child.wait())
            .await
            .expect("the process exits once drained")
            .unwrap();
        drop(self.stdin);
        (answer, exit.code())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_call_over_stdio_lets_the_call_finish_and_exits_0() {
    let server = StdioServer::start("10").await;
    let (answer, code) = server.sigterm_mid_call(5, 1200).await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "lingered 1200 ms",
        "{answer}"
    );
    assert_eq!(code, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_a_call_past_the_drain_timeout_gets_a_retryable_error() {
    let server = StdioServer::start("1").await;
    let started = Instant::now();
    let (answer, code) = server.sigterm_mid_call(6, 60_000).await;
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    assert_eq!(answer["error"]["data"]["retryable"], true, "{answer}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code, Some(0));
}

/// A 2025-11-25 session on `base`: its id.
async fn open_session(base: &str) -> String {
    let client = reqwest::Client::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "drain-test", "version": "1"}}});
    let response = client
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let status = session_post(base, &session, initialized).await;
    assert_eq!(status, 202);
    session
}

/// POSTs `message` on `session`: the status.
async fn session_post(base: &str, session: &str, message: Value) -> u16 {
    reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(message.to_string())
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_get_stream_ends_with_an_sse_retry_field_when_the_drain_begins() {
    let server = Server::builder("drain", "1")
        .tools(tools![linger])
        .build()
        .unwrap();
    let shutdown = Shutdown::new();
    let (base, served) = serve(server, &shutdown).await;
    let session = open_session(&base).await;
    let mut stream = reqwest::Client::new()
        .get(format!("{base}/mcp"))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    // The priming event (an id and the client's wait before it reconnects) comes first.
    let first = stream.chunk().await.unwrap().expect("the priming event");
    let first = String::from_utf8_lossy(&first).into_owned();
    assert!(first.contains("retry: 1000"), "{first}");
    // A call in flight keeps the drain open while the session is checked below.
    let call = call_in_flight(&base, 1500).await;
    shutdown.trigger();
    let mut rest = String::new();
    let ended = tokio::time::timeout(HANG, async {
        while let Some(chunk) = stream.chunk().await.unwrap() {
            rest.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream ended with the drain: {rest:?}");
    assert!(rest.ends_with("retry: 1000\n\n"), "{rest:?}");
    // A notification on the session is still taken (what lets calls finish); a request is not.
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 99}});
    assert_eq!(session_post(&base, &session, cancelled).await, 202);
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert_eq!(session_post(&base, &session, ping).await, 503);
    let (_, _, answer) = call.await.unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "lingered 1500 ms");
    tokio::time::timeout(HANG, served)
        .await
        .expect("the serve call returns once drained")
        .unwrap()
        .unwrap();
}

/// A replica whose sessions and streams are in `redis`, drained by `shutdown`.
async fn redis_replica(
    redis: &test_support::redis::Redis,
    shutdown: &Shutdown,
) -> (String, tokio::task::JoinHandle<std::io::Result<()>>) {
    use mcp_runtime::http::{RedisEventStore, RedisSessionStore};
    let sessions = RedisSessionStore::connect(&redis.url).await.unwrap();
    let events = RedisEventStore::beside(&sessions);
    let options = HttpOptions::default()
        .session_store(Arc::new(sessions))
        .event_store(Arc::new(events));
    let server = Server::builder("drain", "1")
        .tools(tools![linger])
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let until = shutdown.triggered();
    let served =
        tokio::spawn(async move { server.serve_http_until(listener, options, until).await });
    (base, served)
}

/// With the event store in Redis, a 2025-11-25 call's stream ends when its replica begins to
/// drain (a `retry` field, no answer yet); the client resumes it with `Last-Event-ID` on another
/// replica, where the call's answer arrives (the call ran on to its end on the draining one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calls_stream_cut_by_the_drain_resumes_on_another_replica_through_redis() {
    let Some(redis) = test_support::redis::Redis::start() else {
        return;
    };
    let (stop_a, stop_b) = (Shutdown::new(), Shutdown::new());
    let (a, served_a) = redis_replica(&redis, &stop_a).await;
    let (b, served_b) = redis_replica(&redis, &stop_b).await;
    let session = open_session(&a).await;
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "linger", "arguments": {"ms": 1500}, "_meta": {"progressToken": "p"}}});
    let response = reqwest::Client::new()
        .post(format!("{a}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    let mut stream = common::Events::of(response);
    // The priming event, then the progress: both with ids.
    let mut last = None;
    for _ in 0..2 {
        let (id, _) = stream.next_event().await.expect("an event");
        last = Some(id.expect("an event id"));
    }
    stop_a.trigger();
    // The retry field (an event with neither id nor data), then the end: no answer here.
    assert_eq!(stream.next_event().await, Some((None, None)));
    assert_eq!(stream.next_event().await, None);
    let resumed = reqwest::Client::new()
        .get(format!("{b}/mcp"))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let mut resumed = common::Events::of(resumed);
    let answer = loop {
        let message = resumed.next().await;
        if message["id"] == 4 {
            break message;
        }
    };
    assert_eq!(
        answer["result"]["content"][0]["text"], "lingered 1500 ms",
        "{answer}"
    );
    tokio::time::timeout(HANG, served_a)
        .await
        .expect("A drains")
        .unwrap()
        .unwrap();
    stop_b.trigger();
    tokio::time::timeout(HANG, served_b)
        .await
        .expect("B drains")
        .unwrap()
        .unwrap();
}
