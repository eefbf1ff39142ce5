//! A server on Streamable HTTP at `127.0.0.1:0` (any free loopback port), stopped when dropped.

use std::net::SocketAddr;

use mcp_runtime::Server;
use mcp_runtime::http::{HttpOptions, router};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// A server listening on a loopback port; the serving task is aborted when this is dropped.
pub struct Served {
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The address it listens on.
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `server` with `options` on a free loopback port.
pub async fn serve(server: &Server, options: HttpOptions) -> Served {
    serve_app(router(server, options)).await
}

/// Serves `server` with `options` through `Server::serve_http_on` (its header timeout and
/// connection cap included) on a free loopback port.
pub async fn serve_guarded(server: &Server, options: HttpOptions) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = server.clone();
    let task = tokio::spawn(async move {
        server.serve_http_on(listener, options).await.unwrap();
    });
    Served {
        url: format!("http://{addr}/mcp"),
        addr,
        task,
    }
}

/// Serves an axum application (an MCP router, perhaps with layers) on a free loopback port;
/// its endpoint is taken to be `/mcp`.
pub async fn serve_app(app: axum::Router) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    Served {
        url: format!("http://{addr}/mcp"),
        addr,
        task,
    }
}

/// The protocol version of the stateless era.
pub const STATELESS: &str = "2026-07-28";

/// The stateless `_meta` envelope an HTTP request carries (no client info).
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A stateless `tools/call` body: `name` with `arguments` and the [`meta`] envelope.
pub fn stateless_call(id: impl Into<Value>, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call", "params": {
        "name": name, "arguments": arguments, "_meta": meta()
    }})
}

/// An HTTP response as read off the socket.
#[derive(Debug)]
pub struct RawResponse {
    /// The status code; 0 when the server closed the connection without answering.
    pub status: u16,
    /// The headers, names in lowercase, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked, as text.
    pub body: String,
}

impl RawResponse {
    /// The first value of the header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (panics when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("{e}: status {}, body {:?}", self.status, self.body))
    }
}

/// A `POST /mcp` with `headers` (each line `Name: value`) and `body`, closing the connection
/// after the answer. `Host` and `Content-Length` are added; nothing else is.
pub fn post_bytes(addr: SocketAddr, headers: &[String], body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        request.push_str(h);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// The headers of a well-formed JSON `POST` (`Content-Type`, `Accept`), plus
/// `Mcp-Session-Id: session` when given.
pub fn json_headers(session: Option<&str>) -> Vec<String> {
    let mut h = vec![
        "Content-Type: application/json".to_owned(),
        "Accept: application/json, text/event-stream".to_owned(),
    ];
    if let Some(s) = session {
        h.push(format!("Mcp-Session-Id: {s}"));
    }
    h
}

/// Writes `request` to a new connection to `addr` and reads the answer until the server closes
/// the connection (within [`HANG`](crate::HANG)).
pub async fn exchange(addr: SocketAddr, request: &[u8]) -> RawResponse {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    // The server may answer and close before it has read everything (413): a failed write is
    // not a failed exchange.
    let _ = stream.write_all(request).await;
    let mut raw = Vec::new();
    let read = tokio::time::timeout(crate::HANG, async {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.expect("the server answers and closes the connection");
    parse_response(&raw)
}

/// Parses an HTTP/1.1 response (a `Content-Length` or a chunked body, or none at all).
pub fn parse_response(raw: &[u8]) -> RawResponse {
    let text = String::from_utf8_lossy(raw);
    let Some((head, rest)) = text.split_once("\r\n\r\n") else {
        return RawResponse {
            status: 0,
            headers: Vec::new(),
            body: text.into_owned(),
        };
    };
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    RawResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        let Some(chunk) = after.get(..n).filter(|_| n > 0) else {
            break;
        };
        body.push_str(chunk);
        rest = after[n..].trim_start_matches("\r\n");
    }
    body
}

/// POSTs `body` to the MCP endpoint `http://{addr}/mcp` with the content type and `Accept` every
/// MCP POST carries and `headers`, checks that the answer is `200`, and returns its headers and
/// body.
pub async fn post_mcp(
    http: &reqwest::Client,
    addr: impl std::fmt::Display,
    headers: &[(&str, &str)],
    body: &Value,
) -> (reqwest::header::HeaderMap, String) {
    let mut request = http
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.expect("the POST is answered");
    assert_eq!(response.status(), 200, "{body}");
    let headers = response.headers().clone();
    (headers, response.text().await.expect("the answer's body"))
}
