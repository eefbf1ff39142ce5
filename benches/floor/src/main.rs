//! The floor of the benchmarks: the least an MCP server can do per call. It parses each request
//! with serde_json and writes a canned response carrying the request's id, padded to
//! `FLOOR_RESPONSE_BYTES` (default 256) so it is as long as the real server's.
//!
//! Over stdio (the default) it reads one line at a time. Every response is flushed on its own
//! (one `write` per response, like a server that writes each message as it is ready); with
//! `FLOOR_FLUSH=batch` output is flushed only when no more input is buffered, so a burst of
//! requests costs one `write`: the least any server can do.
//!
//! `floor http [ADDR]` serves `POST /mcp` in axum on tokio's multi-threaded runtime (default
//! address `127.0.0.1:0`; the address is printed on stderr as `listening on ...`): the handler
//! takes the body as bytes, parses it, and answers `application/json` with the canned response
//! (`202` for a notification). An `initialize` gets an `Mcp-Session-Id` header, which the floor
//! never checks afterwards; a request with a `progressToken` gets a `text/event-stream` answer
//! (a canned progress notification, then the response). No header is validated, no session is
//! kept.

use std::io::{BufRead, BufReader, BufWriter, Write};

const INITIALIZE: &str = r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"floor","version":"1.0.0"}}"#;

/// What kind of request a message was.
#[derive(PartialEq)]
enum Kind {
    Initialize,
    /// A request with a `progressToken`: over HTTP its answer is an event stream.
    Progress,
    Other,
}

/// The canned answer to one message, or `None` for a notification or unparsable input.
fn answer(message: &[u8], target: usize, out: &mut Vec<u8>) -> Option<Kind> {
    let message: serde_json::Value = serde_json::from_slice(message).ok()?;
    let id = message.get("id")?.to_string();
    if message.get("method").and_then(|m| m.as_str()) == Some("initialize") {
        out.extend_from_slice(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{INITIALIZE}}}"#).as_bytes(),
        );
        return Some(Kind::Initialize);
    }
    let token = &message["params"]["_meta"]["progressToken"];
    let kind = if token.is_null() {
        Kind::Other
    } else {
        // The progress notification, then the response, as event-stream data lines.
        out.extend_from_slice(
            format!(
                r#"data: {{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1.0,"total":1.0}}}}"#
            )
            .as_bytes(),
        );
        out.extend_from_slice(b"\n\ndata: ");
        Kind::Progress
    };
    let head = r#"{"jsonrpc":"2.0","id":"#;
    let middle = r#","result":{"content":[{"type":"text","text":""#;
    let tail = r#""}]}}"#;
    let fixed = head.len() + id.len() + middle.len() + tail.len() + 1;
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(middle.as_bytes());
    out.resize(out.len() + target.saturating_sub(fixed), b'x');
    out.extend_from_slice(tail.as_bytes());
    if kind == Kind::Progress {
        out.extend_from_slice(b"\n\n");
    }
    Some(kind)
}

fn stdio(target: usize) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let batch = std::env::var("FLOOR_FLUSH").as_deref() == Ok("batch");
    let mut line = Vec::new();
    let mut response = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        response.clear();
        if answer(&line, target, &mut response).is_none() {
            continue;
        }
        response.push(b'\n');
        output.write_all(&response)?;
        if !batch || input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

fn http(target: usize, addr: &str) -> std::io::Result<()> {
    use axum::http::{StatusCode, header};
    use axum::response::{IntoResponse, Response};
    let handler = move |body: bytes::Bytes| async move {
        let mut out = Vec::with_capacity(target + 64);
        match answer(&body, target + 1, &mut out) {
            None => StatusCode::ACCEPTED.into_response(),
            Some(kind) => {
                let mut response = Response::new(axum::body::Body::from(out)).into_response();
                let headers = response.headers_mut();
                let media = if kind == Kind::Progress {
                    "text/event-stream"
                } else {
                    "application/json"
                };
                headers.insert(header::CONTENT_TYPE, media.parse().unwrap());
                if kind == Kind::Initialize {
                    headers.insert("mcp-session-id", "floor".parse().unwrap());
                }
                response
            }
        }
    };
    let app = axum::Router::new().route("/mcp", axum::routing::post(handler));
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            axum::serve(listener, app).await
        })
}

fn main() -> std::io::Result<()> {
    let target: usize = std::env::var("FLOOR_RESPONSE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("http") {
        return http(target, args.get(1).map_or("127.0.0.1:0", String::as_str));
    }
    stdio(target)
}
