//! The HTTP transport's limits against hostile or greedy clients, each set low on `HttpOptions`:
//! a client that sends its headers a byte a second is cut off while others are served; a body that
//! never completes gets `408`; a connection over the cap gets `503` with `Retry-After` and service
//! resumes once others close; a session over the cap ends the one idle longest; idle sessions are
//! swept with no new `initialize`; a session's request over its in-flight cap gets a JSON-RPC
//! error. Each test serves `Server::serve_http_on` on 127.0.0.1:0 and speaks raw HTTP/1.1 over
//! TCP, so that it controls every byte and every connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::http::{HttpOptions, SERVER_BUSY};
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::HANG;
use test_support::wait::until;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

const HANDSHAKE: &str = "2025-11-25";

// ---- the server under test ----

/// Calls of `hold` that started, and the gate they wait at.
struct Gate {
    open: Arc<Semaphore>,
    started: Arc<AtomicUsize>,
}

/// Wait until the test opens the gate.
#[tool]
async fn hold(gate: &Gate) -> String {
    gate.started.fetch_add(1, Ordering::SeqCst);
    let _pass = gate.open.acquire().await;
    "released".into()
}

/// Echo a word.
#[tool(inline)]
fn echo(word: String) -> String {
    word
}

/// A server listening on a loopback port with `options`, stopped when dropped.
struct Served {
    addr: SocketAddr,
    open: Arc<Semaphore>,
    started: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(options: HttpOptions) -> Served {
    let open = Arc::new(Semaphore::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("limits", "1")
        .state(Gate {
            open: open.clone(),
            started: started.clone(),
        })
        .tools(tools![hold, echo])
        .build()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        server.serve_http_on(listener, options).await.unwrap();
    });
    Served {
        addr,
        open,
        started,
        task,
    }
}

// ---- a raw HTTP/1.1 client ----

/// An answer: its status, its head as text (header names lowercase), and its body.
#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let text = String::from_utf8_lossy(raw);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {text:?}"));
        Reply {
            status,
            head: head.to_ascii_lowercase(),
            body: body.to_owned(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.head
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .map(str::trim)
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }
}

/// The head of a `POST` to `/mcp` of `len` body bytes, in `session` when given; the connection
/// closes after the answer.
fn post_head(addr: SocketAddr, session: Option<&str>, len: usize) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n"
    );
    if let Some(id) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: {HANDSHAKE}\r\n"
        ));
    }
    head.push_str("\r\n");
    head
}

/// Everything the server sends on `stream` until it closes it.
async fn read_to_end(stream: &mut TcpStream) -> Vec<u8> {
    let mut raw = Vec::new();
    tokio::time::timeout(HANG, stream.read_to_end(&mut raw))
        .await
        .expect("the server neither answered nor closed the connection")
        .expect("reading the answer");
    raw
}

/// `body` POSTed on a new connection, in `session` when given.
async fn post(addr: SocketAddr, session: Option<&str>, body: &Value) -> Reply {
    let body = body.to_string();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = post_head(addr, session, body.len()) + &body;
    stream.write_all(request.as_bytes()).await.unwrap();
    Reply::parse(&read_to_end(&mut stream).await)
}

/// The handshake-era `initialize` request every session here opens with.
fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": HANDSHAKE, "capabilities": {},
        "clientInfo": {"name": "limits", "version": "1"}
    }})
}

/// A new session's id.
async fn initialize(addr: SocketAddr) -> String {
    let reply = post(addr, None, &initialize_request()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(addr, Some(&id), &initialized).await.status, 202);
    id
}

/// The status of a `ping` in `session`.
async fn ping(addr: SocketAddr, session: &str) -> u16 {
    let ping = json!({"jsonrpc": "2.0", "id": "p", "method": "ping"});
    post(addr, Some(session), &ping).await.status
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

// ---- the tests ----

#[tokio::test]
async fn a_client_sending_headers_a_byte_a_second_is_cut_off_while_others_are_served() {
    let served = serve(HttpOptions::default().header_read_timeout(Duration::from_secs(1))).await;
    let addr = served.addr;
    let head = post_head(addr, None, 2);
    let slow = TcpStream::connect(addr).await.unwrap();
    let (mut reader, mut writer) = slow.into_split();
    let sent = Arc::new(AtomicUsize::new(0));
    let trickle = tokio::spawn({
        let sent = sent.clone();
        let head = head.clone();
        async move {
            for byte in head.bytes() {
                if writer.write_all(&[byte]).await.is_err() {
                    return;
                }
                sent.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    });

    // Meanwhile, a normal request on another connection is served.
    initialize(addr).await;

    // The slow connection ends (closed, perhaps after a 408) long before its head is complete.
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(HANG, reader.read_to_end(&mut rest)).await;
    assert!(ended.is_ok(), "the slow client was never cut off");
    let sent = sent.load(Ordering::SeqCst);
    assert!(
        sent < head.len(),
        "cut off only after its whole head ({sent} of {} bytes)",
        head.len()
    );
    assert!(
        rest.is_empty() || rest.starts_with(b"HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&rest)
    );
    trickle.abort();
}

#[tokio::test]
async fn a_body_that_never_completes_gets_408_and_the_connection_closes() {
    let served = serve(HttpOptions::default().body_read_timeout(Duration::from_secs(1))).await;
    let addr = served.addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // Promise 100 bytes, send 10, then nothing (the connection stays open).
    let request = post_head(addr, None, 100) + r#"{"jsonrpc""#;
    stream.write_all(request.as_bytes()).await.unwrap();
    let reply = Reply::parse(&read_to_end(&mut stream).await);
    assert_eq!(reply.status, 408, "{reply:?}");
    assert_eq!(reply.header("connection"), Some("close"));
    // Another client is served as usual.
    initialize(addr).await;
}

#[tokio::test]
async fn a_connection_over_the_cap_gets_503_and_service_resumes_when_others_close() {
    let served = serve(HttpOptions::default().max_connections(8)).await;
    let addr = served.addr;
    // Eight idle connections take every place (connections are accepted in order, so they are
    // in before the ninth).
    let mut idle = Vec::new();
    for _ in 0..8 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let refused = post(addr, None, &ping).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.json()["error"]["code"], SERVER_BUSY);

    // The listener still accepts: once the others close, a new session opens.
    drop(idle);
    let opened = until(
        "a request served after the others closed",
        async || {
            let reply = post(addr, None, &initialize_request()).await;
            reply.status
        },
        |status| *status == 200,
    )
    .await;
    assert_eq!(opened, 200);
}

#[tokio::test]
async fn a_session_over_the_cap_ends_the_one_idle_longest() {
    let served = serve(HttpOptions::default().max_sessions(3)).await;
    let addr = served.addr;
    let a = initialize(addr).await;
    let b = initialize(addr).await;
    let c = initialize(addr).await;
    // `a` is used again, so `b` is now the one idle longest.
    assert_eq!(ping(addr, &a).await, 200);
    let d = initialize(addr).await;
    assert_eq!(ping(addr, &b).await, 404, "the session idle longest ended");
    for (name, id) in [("a", &a), ("c", &c), ("d", &d)] {
        assert_eq!(ping(addr, id).await, 200, "session {name}");
    }
}

#[tokio::test]
async fn idle_sessions_are_swept_without_a_new_initialize() {
    let idle = Duration::from_millis(300);
    let served = serve(HttpOptions::default().session_idle_timeout(idle)).await;
    let addr = served.addr;
    let session = initialize(addr).await;
    assert_eq!(ping(addr, &session).await, 200);
    // No request at all (a request would keep it alive) for several idle periods.
    tokio::time::sleep(idle * 5).await;
    assert_eq!(ping(addr, &session).await, 404);
}

#[tokio::test]
async fn a_request_over_the_in_flight_cap_gets_a_json_rpc_error() {
    let served = serve(HttpOptions::default().max_in_flight_per_session(2)).await;
    let addr = served.addr;
    let session = initialize(addr).await;
    let held: Vec<_> = (1..=2)
        .map(|id| {
            let session = session.clone();
            tokio::spawn(
                async move { post(addr, Some(&session), &call(id, "hold", json!({}))).await },
            )
        })
        .collect();
    until(
        "both calls running",
        async || served.started.load(Ordering::SeqCst),
        |n| *n == 2,
    )
    .await;

    let refused = post(addr, Some(&session), &call(3, "echo", json!({"word": "x"}))).await;
    assert_eq!(refused.status, 200, "{refused:?}");
    let refused = refused.json();
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(refused["error"]["code"], SERVER_BUSY, "{refused}");
    // A notification is never refused.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(addr, Some(&session), &note).await.status, 202);

    served.open.add_permits(2);
    for call in held {
        let reply = call.await.unwrap();
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(reply.body.contains("released"), "{reply:?}");
    }
    let echoed = post(addr, Some(&session), &call(4, "echo", json!({"word": "x"}))).await;
    assert_eq!(
        echoed.json()["result"]["content"][0]["text"],
        "x",
        "{echoed:?}"
    );
}
