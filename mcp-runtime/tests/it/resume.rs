//! Resumable streams over Streamable HTTP on 127.0.0.1:0 (handshake era): every event of a
//! session's streams carries an id; a client whose stream broke sends `GET` with `Last-Event-ID`
//! and gets what it missed, then the rest, on the same replica or on another that shares the
//! stores; a request whose replica died ends on the resumed stream with a JSON-RPC error.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use mcp_runtime::http::{HttpOptions, router};
use mcp_runtime::http::{MemoryEventStore, MemorySessionStore};
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::{STATELESS, serve, serve_app, stateless_call};
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

fn server(gate: Arc<Gate>) -> Server {
    Server::builder("resume", "1.0.0")
        .state_arc(gate)
        .tools(tools![slow])
        .build()
        .unwrap()
}

/// One event of a stream: its id, its `retry`, its message (`None`: no data).
#[derive(Debug, Clone, PartialEq)]
struct Event {
    id: Option<String>,
    retry: Option<u64>,
    data: Option<Value>,
}

/// The events of an event-stream response.
struct Events {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl Events {
    fn of(response: reqwest::Response) -> Events {
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Events {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event (keep-alive comments skipped); `None` when the stream ended.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let text: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    text.lines()
                        .find_map(|l| l.strip_prefix(name))
                        .map(|v| v.trim().to_owned())
                };
                if text.lines().all(|l| l.starts_with(':')) {
                    continue;
                }
                return Some(Event {
                    id: field("id:"),
                    retry: field("retry:").map(|r| r.parse().unwrap()),
                    data: field("data:").map(|d| serde_json::from_str(&d).unwrap()),
                });
            }
            let chunk = tokio::time::timeout(HANG, self.body.next())
                .await
                .expect("the server writes or ends the stream")?;
            let Ok(chunk) = chunk else { return None };
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

/// POSTs `body` to `url` in `session` (if any).
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

/// A `GET` in `session`, resuming after `last` when given.
async fn get(url: &str, session: &str, last: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session);
    if let Some(last) = last {
        request = request.header("last-event-id", last);
    }
    request.send().await.unwrap()
}

/// Opens a session of `version` at `url`; its id.
async fn open(url: &str, version: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "resumer", "version": "1"}}});
    let opened = post(url, None, init).await;
    let id = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, Some(&id), initialized).await.status(), 202);
    id
}

fn call_slow(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}}})
}

fn progress_of(event: &Event) -> f64 {
    let data = event.data.as_ref().unwrap();
    assert_eq!(data["method"], "notifications/progress", "{data}");
    data["params"]["progress"].as_f64().unwrap()
}

/// Options with short leases, for tests that wait on one.
fn options(sessions: &Arc<MemorySessionStore>, events: &Arc<MemoryEventStore>) -> HttpOptions {
    HttpOptions::default()
        .session_store(sessions.clone())
        .event_store(events.clone())
        .stream_lease(Duration::from_millis(300))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_stream_resumes_where_it_broke_with_what_came_meanwhile() {
    let gate = Arc::new(Gate(Semaphore::new(0)));
    let served = serve(&server(gate.clone()), HttpOptions::default()).await;
    let session = open(&served.url, "2025-11-25").await;

    let mut stream = Events::of(post(&served.url, Some(&session), call_slow(1)).await);
    // 2025-11-25: a priming event first, an id and no data, with the reconnection delay.
    let priming = stream.next().await.unwrap();
    assert_eq!((priming.data, priming.retry), (None, Some(1000)));
    let first = stream.next().await.unwrap();
    assert_eq!(progress_of(&first), 1.0);
    let last = first.id.clone().unwrap();
    assert_eq!(last.split_once('/').unwrap().1, "2");
    // The connection drops; the call goes on and finishes meanwhile.
    drop(stream);
    gate.0.add_permits(1);
    tokio::time::sleep(Duration::from_millis(100)).await;

    let mut resumed = Events::of(get(&served.url, &session, Some(&last)).await);
    let second = resumed.next().await.unwrap();
    assert_eq!(progress_of(&second), 2.0);
    let answer = resumed.next().await.unwrap();
    assert_eq!(answer.data.as_ref().unwrap()["id"], 1);
    assert_eq!(
        answer.data.as_ref().unwrap()["result"]["structuredContent"],
        json!({"result": "done"})
    );
    let ids: Vec<String> = [&second, &answer].map(|e| e.id.clone().unwrap()).into();
    let stream_name = last.split_once('/').unwrap().0;
    assert_eq!(
        ids,
        [format!("{stream_name}/3"), format!("{stream_name}/4")]
    );
    assert_eq!(
        resumed.next().await,
        None,
        "the stream ends with the answer"
    );

    // Resumed again from its first event: the same events, once more.
    let mut again = Events::of(get(&served.url, &session, Some(&last)).await);
    assert_eq!(again.next().await.unwrap(), second);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_resumes_on_another_replica_while_the_call_runs_on_the_first() {
    let gate = Arc::new(Gate(Semaphore::new(0)));
    let server = server(gate.clone());
    let sessions = Arc::new(MemorySessionStore::default());
    let events = Arc::new(MemoryEventStore::default());
    let a = serve(&server, options(&sessions, &events)).await;
    let b = serve(&server, options(&sessions, &events)).await;
    let session = open(&a.url, "2025-06-18").await;

    let mut stream = Events::of(post(&a.url, Some(&session), call_slow(7)).await);
    // 2025-06-18: no priming event; the first message carries the stream's first id after its
    // opening (which is only in the store).
    let first = stream.next().await.unwrap();
    assert_eq!(progress_of(&first), 1.0);
    let last = first.id.unwrap();
    drop(stream);

    let mut resumed = Events::of(get(&b.url, &session, Some(&last)).await);
    // Live: the call, still on A, goes on while B follows its stream.
    tokio::time::sleep(Duration::from_millis(100)).await;
    gate.0.add_permits(1);
    assert_eq!(progress_of(&resumed.next().await.unwrap()), 2.0);
    let answer = resumed.next().await.unwrap().data.unwrap();
    assert_eq!(answer["id"], 7);
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"result": "done"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_replica_died_ends_on_the_resumed_stream_with_an_error() {
    let gate = Arc::new(Gate(Semaphore::new(0)));
    let server = server(gate.clone());
    let sessions = Arc::new(MemorySessionStore::default());
    let events = Arc::new(MemoryEventStore::default());
    // Replica A runs on a runtime of its own, which the test shuts down: the process "dies".
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let app = router(&server, options(&sessions, &events));
    let replica_a = std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let served = runtime.block_on(serve_app(app));
        url_tx.send(served.url.clone()).unwrap();
        let _ = stop_rx.recv();
        runtime.shutdown_background();
    });
    let a_url = url_rx.recv().unwrap();
    let b = serve(&server, options(&sessions, &events)).await;
    let session = open(&a_url, "2025-11-25").await;

    let mut stream = Events::of(post(&a_url, Some(&session), call_slow(9)).await);
    let priming = stream.next().await.unwrap();
    assert_eq!(progress_of(&stream.next().await.unwrap()), 1.0);
    stop_tx.send(()).unwrap();
    replica_a.join().unwrap();
    assert_eq!(stream.next().await, None, "A's stream broke");

    // Resumed on B from the priming event: the progress A sent, then, once A's lease lapsed,
    // the error for request 9.
    let mut resumed = Events::of(get(&b.url, &session, priming.id.as_deref()).await);
    assert_eq!(progress_of(&resumed.next().await.unwrap()), 1.0);
    let ended = resumed.next().await.unwrap().data.unwrap();
    assert_eq!(ended["id"], 9);
    assert_eq!(ended["error"]["code"], -32603);
    let said = ended["error"]["message"].as_str().unwrap();
    assert!(said.contains("stopped before it answered"), "{said}");
    assert_eq!(resumed.next().await, None);

    // The session goes on on B.
    let ping = json!({"jsonrpc": "2.0", "id": 10, "method": "ping"});
    let pong = post(&b.url, Some(&session), ping)
        .await
        .text()
        .await
        .unwrap();
    let pong: Value = serde_json::from_str(&pong).unwrap();
    assert_eq!(pong["result"], json!({}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_stream_replays_what_a_broken_get_missed() {
    let server = Server::builder("watch", "1.0.0")
        .resources(resources![note])
        .build()
        .unwrap();
    let updates = server.resource_updates().clone();
    let served = serve(&server, HttpOptions::default()).await;
    let session = open(&served.url, "2025-11-25").await;
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": "notes://a"}});
    assert_eq!(
        post(&served.url, Some(&session), subscribe).await.status(),
        200
    );
    let mut stream = Events::of(get(&served.url, &session, None).await);
    let priming = stream.next().await.unwrap();
    let name = priming.id.clone().unwrap();
    let name = name.split_once('/').unwrap().0.to_owned();
    assert!(name.starts_with('g'), "{name}");
    // The server writes an update on the stream; the client never reads it: its connection broke
    // (the server has not noticed yet, so the old stream is still open there).
    assert_eq!(updates.updated("notes://a"), 1);
    tokio::time::sleep(Duration::from_millis(100)).await;

    // The resumed stream takes over from the old one, which ends.
    let mut resumed = Events::of(get(&served.url, &session, priming.id.as_deref()).await);
    let mut old = stream;
    assert_eq!(
        old.next().await.map(|e| e.id),
        Some(Some(format!("{name}/2")))
    );
    assert_eq!(old.next().await, None, "the old stream ended");
    let missed = resumed.next().await.unwrap();
    assert_eq!(missed.id, Some(format!("{name}/2")));
    assert_eq!(missed.data.unwrap()["params"]["uri"], "notes://a");
    // Then live, on the same stream: its numbering goes on.
    assert_eq!(updates.updated("notes://a"), 1);
    let live = resumed.next().await.unwrap();
    assert_eq!(live.id, Some(format!("{name}/3")));
    // One session stream at a time.
    assert_eq!(get(&served.url, &session, None).await.status(), 409);
}

/// One note, by its title.
#[resource(uri = "notes://{title}", mime_type = "text/plain")]
fn note(title: String) -> String {
    format!("the note {title}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_closed_early_is_resumed_by_the_client_and_finishes() {
    let gate = Arc::new(Gate(Semaphore::new(0)));
    let options = HttpOptions::default().close_streams_after(Duration::from_millis(150));
    let served = serve(&server(gate.clone()), options).await;
    let session = open(&served.url, "2025-11-25").await;
    let mut stream = Events::of(post(&served.url, Some(&session), call_slow(5)).await);
    stream.next().await.unwrap();
    let first = stream.next().await.unwrap();
    assert_eq!(
        stream.next().await,
        None,
        "closed by the server after its window"
    );
    gate.0.add_permits(1);
    let mut resumed = Events::of(get(&served.url, &session, first.id.as_deref()).await);
    assert_eq!(progress_of(&resumed.next().await.unwrap()), 2.0);
    assert_eq!(resumed.next().await.unwrap().data.unwrap()["id"], 5);
}

#[tokio::test]
async fn a_last_event_id_that_names_nothing_resumable_is_refused() {
    let gate = Arc::new(Gate(Semaphore::new(0)));
    let served = serve(&server(gate), HttpOptions::default()).await;
    let session = open(&served.url, "2025-11-25").await;
    // A stream that exists, and ids past its end.
    let mut stream = Events::of(get(&served.url, &session, None).await);
    let opened = stream.next().await.unwrap().id.unwrap();
    let (name, _) = opened.split_once('/').unwrap();
    let past = [format!("{name}/2"), format!("{name}/{}", u64::MAX)];
    for (last, status) in [
        ("garbage", 400),
        ("r00/1", 400),
        ("rdeadbeef/99999999999999999999", 400),
        (past[0].as_str(), 400),
        (past[1].as_str(), 400),
    ] {
        let refused = get(&served.url, &session, Some(last)).await;
        assert_eq!(refused.status(), status, "{last}");
        let body: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], -32600, "{last}");
    }
    // A session stream the store no longer has: a new one.
    let fresh = get(&served.url, &session, Some("g0123/4")).await;
    assert_eq!(fresh.status(), 200);
}

#[tokio::test]
async fn stateless_event_streams_carry_no_ids() {
    let gate = Arc::new(Gate(Semaphore::new(1)));
    let served = serve(&server(gate), HttpOptions::default()).await;
    let mut call = stateless_call(1, "slow", json!({}));
    call["params"]["_meta"]["progressToken"] = json!("p");
    let response = reqwest::Client::new()
        .post(&served.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", STATELESS)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "slow")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    let mut events = Events::of(response);
    let first = events.next().await.unwrap();
    assert_eq!(progress_of(&first), 1.0);
    assert_eq!((first.id, first.retry), (None, None));
}
