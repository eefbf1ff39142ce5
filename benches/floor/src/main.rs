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
//!
//! `floor bare [ADDR]` gives the same answers from hyper alone (HTTP/1.1, the same runtime): no
//! axum, no routing (any method, any path), and the request read into borrowed fields (its id,
//! method and progress token) instead of a `Value`: a bound under the floor, the least a server
//! built on hyper can do per call.

use std::io::{BufRead, BufReader, BufWriter, Write};

const INITIALIZE: &str = r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"floor","version":"1.0.0"}}"#;

/// What kind of request a message was.
#[derive(Clone, Copy, PartialEq)]
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
    let initialize = message.get("method").and_then(|m| m.as_str()) == Some("initialize");
    let token = &message["params"]["_meta"]["progressToken"];
    let token = (!token.is_null()).then(|| token.to_string());
    Some(canned(&id, initialize, token.as_deref(), target, out))
}

/// The same answer with the message read into borrowed fields (its id, method and progress
/// token as they are written) instead of a `Value`: what `floor bare` does.
fn answer_borrowed(message: &[u8], target: usize, out: &mut Vec<u8>) -> Option<Kind> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        method: Option<&'a str>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<Meta<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Meta<'a> {
        #[serde(rename = "progressToken", borrow)]
        progress_token: Option<&'a RawValue>,
    }
    let message: Message = serde_json::from_slice(message).ok()?;
    let token = message.params.and_then(|p| p.meta?.progress_token);
    Some(canned(
        message.id?.get(),
        message.method == Some("initialize"),
        token.map(RawValue::get),
        target,
        out,
    ))
}

/// Writes the canned answer to a request with this id (JSON text): the `initialize` result, or
/// a text result padded to `target` bytes (after a progress notification when there is a token).
fn canned(
    id: &str,
    initialize: bool,
    token: Option<&str>,
    target: usize,
    out: &mut Vec<u8>,
) -> Kind {
    if initialize {
        out.extend_from_slice(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{INITIALIZE}}}"#).as_bytes(),
        );
        return Kind::Initialize;
    }
    let kind = if let Some(token) = token {
        // The progress notification, then the response, as event-stream data lines.
        out.extend_from_slice(
            format!(
                r#"data: {{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1.0,"total":1.0}}}}"#
            )
            .as_bytes(),
        );
        out.extend_from_slice(b"\n\ndata: ");
        Kind::Progress
    } else {
        Kind::Other
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
    kind
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

/// The headers of an answer of this kind: its media type, and a session id on `initialize`'s.
fn set_headers(kind: Kind, headers: &mut axum::http::HeaderMap) {
    let media = if kind == Kind::Progress {
        "text/event-stream"
    } else {
        "application/json"
    };
    headers.insert(axum::http::header::CONTENT_TYPE, media.parse().unwrap());
    if kind == Kind::Initialize {
        headers.insert("mcp-session-id", "floor".parse().unwrap());
    }
}

fn http(target: usize, addr: &str) -> std::io::Result<()> {
    use axum::http::StatusCode;
    use axum::response::{IntoResponse, Response};
    let handler = move |body: bytes::Bytes| async move {
        let mut out = Vec::with_capacity(target + 64);
        match answer(&body, target + 1, &mut out) {
            None => StatusCode::ACCEPTED.into_response(),
            Some(kind) => {
                let mut response = Response::new(axum::body::Body::from(out)).into_response();
                set_headers(kind, response.headers_mut());
                response
            }
        }
    };
    let app = axum::Router::new().route("/mcp", axum::routing::post(handler));
    listen(
        addr,
        |listener| async move { axum::serve(listener, app).await },
    )
}

/// Runs `serve` on tokio's multi-threaded runtime with a listener bound to `addr`, whose address
/// is printed on stderr as `listening on ...`.
fn listen<F: Future<Output = std::io::Result<()>>>(
    addr: &str,
    serve: impl FnOnce(tokio::net::TcpListener) -> F,
) -> std::io::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            serve(listener).await
        })
}

/// `floor bare [ADDR]`: the same answers from hyper alone, on the same runtime: no router, no
/// extractor, any method and path; the body collected, read into borrowed fields, answered.
fn bare(target: usize, addr: &str) -> std::io::Result<()> {
    use http_body_util::{BodyExt, Full};
    use hyper::{Response, StatusCode};
    listen(addr, |listener| async move {
        loop {
            let (stream, _) = listener.accept().await?;
            let service = hyper::service::service_fn(
                move |request: hyper::Request<hyper::body::Incoming>| async move {
                    let body = request.into_body().collect().await?.to_bytes();
                    let mut out = Vec::with_capacity(target + 64);
                    let kind = answer_borrowed(&body, target + 1, &mut out);
                    let mut response = Response::new(Full::new(bytes::Bytes::from(out)));
                    match kind {
                        Some(kind) => set_headers(kind, response.headers_mut()),
                        None => *response.status_mut() = StatusCode::ACCEPTED,
                    }
                    Ok::<_, hyper::Error>(response)
                },
            );
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
            });
        }
    })
}

fn main() -> std::io::Result<()> {
    let target: usize = std::env::var("FLOOR_RESPONSE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = args.get(1).map_or("127.0.0.1:0", String::as_str);
    match args.first().map(String::as_str) {
        Some("http") => http(target, addr),
        Some("bare") => bare(target, addr),
        _ => stdio(target),
    }
}
