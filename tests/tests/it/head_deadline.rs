//! The head deadline of `serve_http_on`'s connections (`HttpOptions::header_read_timeout`): a
//! client has the timeout, from the connection's start or the end of its previous response, to
//! send a request's headers. A connection that says nothing, trickles a head, or idles after an
//! answer is closed; one whose request is in hand (a slow tool, an open event stream) is not, and
//! stays usable after its answer. Raw keep-alive connections, so that closes are seen as they are.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use integration_tests::kit;
use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::{
    RawResponse, STATELESS, Served, meta, parse_response, serve_guarded, stateless_call,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The head deadline of the server under test.
const TIMEOUT: Duration = Duration::from_millis(300);

/// Report progress, then wait `ms` before answering: an event stream open that long.
#[tool]
async fn linger(ctx: &Context, ms: u64) -> String {
    ctx.progress(1.0, None, Some("lingering"));
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("lingered {ms}ms")
}

/// The kit's server and `linger` behind `serve_http_on`, stopped when dropped.
async fn serve() -> Served {
    let server = kit::builder().tools(tools![linger]).build().unwrap();
    let options = HttpOptions::default().header_read_timeout(TIMEOUT);
    serve_guarded(&server, options).await
}

/// A server, and a connection to it.
async fn connect() -> (Served, TcpStream) {
    let served = serve().await;
    let stream = TcpStream::connect(served.addr).await.unwrap();
    (served, stream)
}

/// A keep-alive stateless `POST` of `body` (its `method`, and `params.name` as `Mcp-Name`).
fn post(addr: SocketAddr, body: &Value) -> Vec<u8> {
    let method = body["method"].as_str().unwrap();
    let name = match body["params"]["name"].as_str() {
        Some(name) => format!("Mcp-Name: {name}\r\n"),
        None => String::new(),
    };
    let body = body.to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: {STATELESS}\r\n\
         Mcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn list(addr: SocketAddr) -> Vec<u8> {
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    post(addr, &body)
}

/// Reads one whole response (a `Content-Length` body or a chunked one) off `stream`.
async fn response(stream: &mut TcpStream) -> RawResponse {
    let mut raw = Vec::new();
    let read = tokio::time::timeout(HANG, async {
        let mut buf = [0u8; 16 * 1024];
        while !complete(&raw) {
            let n = stream
                .read(&mut buf)
                .await
                .expect("the connection stays open");
            assert!(
                n > 0,
                "closed mid-response: {}",
                String::from_utf8_lossy(&raw)
            );
            raw.extend_from_slice(&buf[..n]);
        }
    });
    read.await.expect("a response within HANG");
    parse_response(&raw)
}

fn complete(raw: &[u8]) -> bool {
    let text = String::from_utf8_lossy(raw);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let head = head.to_ascii_lowercase();
    if head.contains("transfer-encoding: chunked") {
        return body.ends_with("0\r\n\r\n");
    }
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    body.len() >= length
}

/// Waits until the server closes `stream` (a read finds the end, or a reset); how long it took.
async fn closed(stream: &mut TcpStream) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 1024];
    let end = tokio::time::timeout(HANG, stream.read(&mut buf)).await;
    match end.expect("the server closes the connection") {
        Ok(0) | Err(_) => {}
        Ok(n) => panic!("unexpected bytes: {:?}", String::from_utf8_lossy(&buf[..n])),
    }
    start.elapsed()
}

fn tools_listed(r: &RawResponse) {
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.json()["result"]["tools"].as_array().is_some(), "{r:?}");
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_after_the_timeout() {
    let (_served, mut stream) = connect().await;
    let waited = closed(&mut stream).await;
    assert!(waited >= TIMEOUT / 2, "closed after {waited:?}");
}

#[tokio::test]
async fn an_idle_connection_closes_a_timeout_after_its_last_answer() {
    let (served, mut stream) = connect().await;
    let addr = served.addr;
    // Three requests each a third of the timeout after the previous answer: the deadline
    // counts from each answer, so the connection lives well past one timeout.
    let start = Instant::now();
    for _ in 0..3 {
        stream.write_all(&list(addr)).await.unwrap();
        tools_listed(&response(&mut stream).await);
        tokio::time::sleep(TIMEOUT / 3).await;
    }
    assert!(start.elapsed() >= TIMEOUT, "{:?}", start.elapsed());
    // Then nothing: closed, not at once.
    let waited = closed(&mut stream).await;
    assert!(waited >= TIMEOUT / 2, "closed after {waited:?}");
}

#[tokio::test]
async fn a_trickled_head_is_cut_off_at_the_deadline() {
    let (_served, mut stream) = connect().await;
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nX-Slow: ")
        .await
        .unwrap();
    let (mut read, mut write) = stream.into_split();
    // A byte every 20 ms: each read finds something, yet the head never ends.
    let trickle = tokio::spawn(async move {
        while write.write_all(b"a").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let start = Instant::now();
    let mut buf = [0u8; 1024];
    let end = tokio::time::timeout(HANG, read.read(&mut buf)).await;
    trickle.abort();
    let waited = start.elapsed();
    assert!(
        matches!(end, Ok(Ok(0) | Err(_))),
        "the server closes a trickling connection: {end:?}"
    );
    assert!(waited >= TIMEOUT / 2, "closed after {waited:?}");
}

#[tokio::test]
async fn a_call_in_hand_outlives_the_timeout_and_keeps_its_connection() {
    let (served, mut stream) = connect().await;
    let addr = served.addr;
    let ms = 3 * TIMEOUT.as_millis() as u64;
    let call = stateless_call(2, "slow", json!({ "ms": ms }));
    stream.write_all(&post(addr, &call)).await.unwrap();
    let r = response(&mut stream).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        format!("slept {ms}ms"),
        "{r:?}"
    );
    // The same connection answers the next request.
    stream.write_all(&list(addr)).await.unwrap();
    tools_listed(&response(&mut stream).await);
}

#[tokio::test]
async fn an_open_event_stream_outlives_the_timeout() {
    let (served, mut stream) = connect().await;
    let addr = served.addr;
    let ms = 3 * TIMEOUT.as_millis() as u64;
    let mut call = stateless_call(3, "linger", json!({ "ms": ms }));
    call["params"]["_meta"]["progressToken"] = json!("p");
    stream.write_all(&post(addr, &call)).await.unwrap();
    let r = response(&mut stream).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("content-type"), Some("text/event-stream"), "{r:?}");
    assert!(r.body.contains(r#""message":"lingering""#), "{r:?}");
    assert!(r.body.contains(&format!("lingered {ms}ms")), "{r:?}");
    stream.write_all(&list(addr)).await.unwrap();
    tools_listed(&response(&mut stream).await);
}
