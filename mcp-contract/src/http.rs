//! A Streamable HTTP client for the runtime's [`Client`], which speaks newline-delimited
//! JSON-RPC over any byte stream: a bridge reads each line the client writes, POSTs it to the
//! server, and writes back the JSON-RPC messages of the answer (an `application/json` body, or
//! each `data:` of a `text/event-stream`), one a line.
//!
//! Both eras: in the handshake era the bridge keeps the `Mcp-Session-Id` that `initialize`
//! returned and sends the negotiated `MCP-Protocol-Version`; in the stateless era (2026-07-28)
//! it copies the request's `_meta` version into `MCP-Protocol-Version` and names the method in
//! `Mcp-Method` (and its `name` or `uri` in `Mcp-Name`). No GET stream is opened: a snapshot
//! needs none.

use mcp_runtime::{Client, ClientBuilder, ClientError};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

const STATELESS_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// Connects `builder` to the MCP endpoint at `url`.
pub async fn connect(builder: ClientBuilder, url: &str) -> Result<Client, String> {
    let (client_end, bridge_end) = tokio::io::duplex(1 << 20);
    let (reader, writer) = tokio::io::split(client_end);
    let http = reqwest::Client::builder()
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?;
    let url = url.to_owned();
    tokio::spawn(async move {
        if let Err(e) = bridge(http, url, bridge_end).await {
            eprintln!("mcp-contract: {e}");
        }
    });
    builder
        .over_io(reader, writer)
        .await
        .map_err(|e: ClientError| format!("connect: {e}"))
}

async fn bridge(http: reqwest::Client, url: String, end: DuplexStream) -> Result<(), String> {
    let (read, mut write) = tokio::io::split(end);
    let mut lines = BufReader::new(read).lines();
    let mut session: Option<String> = None;
    let mut version: Option<String> = None;
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        let message: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        let method = message.get("method").and_then(Value::as_str);
        let params = message.get("params");
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        let stateless = params
            .and_then(|p| p.pointer("/_meta"))
            .and_then(|m| m.get(STATELESS_VERSION_KEY))
            .and_then(Value::as_str);
        if let Some(v) = stateless.or(version.as_deref()) {
            request = request.header("mcp-protocol-version", v);
        }
        if let Some(m) = method {
            request = request.header("mcp-method", m);
        }
        let name = params.and_then(|p| p.get("name").or_else(|| p.get("uri")));
        if let (Some(name), Some(_)) = (name.and_then(Value::as_str), stateless) {
            request = request.header("mcp-name", name);
        }
        if let Some(id) = &session {
            request = request.header("mcp-session-id", id);
        }
        let response = request
            .body(line.clone())
            .send()
            .await
            .map_err(|e| format!("POST {url}: {e}"))?;
        if let Some(id) = response.headers().get("mcp-session-id") {
            session = id.to_str().ok().map(str::to_owned);
        }
        let status = response.status();
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        let body = response.text().await.map_err(|e| e.to_string())?;
        if status == reqwest::StatusCode::ACCEPTED || body.trim().is_empty() {
            if !status.is_success() {
                return Err(format!("POST {url}: {status}"));
            }
            continue;
        }
        let messages: Vec<String> = if is_sse {
            sse_data(&body)
        } else {
            vec![body.trim().to_owned()]
        };
        for m in messages {
            if method == Some("initialize")
                && let Ok(v) = serde_json::from_str::<Value>(&m)
                && let Some(p) = v.pointer("/result/protocolVersion").and_then(Value::as_str)
            {
                version = Some(p.to_owned());
            }
            write
                .write_all(m.as_bytes())
                .await
                .map_err(|e| e.to_string())?;
            write.write_all(b"\n").await.map_err(|e| e.to_string())?;
        }
    }
    if let Some(id) = session {
        let _ = http.delete(&url).header("mcp-session-id", id).send().await;
    }
    Ok(())
}

/// The `data` of each event of an SSE body (multi-line data joined with newlines).
fn sse_data(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    for line in body.lines().chain([""]) {
        if line.is_empty() {
            if !data.is_empty() {
                out.push(data.join("\n"));
                data.clear();
            }
        } else if let Some(d) = line.strip_prefix("data:") {
            data.push(d.strip_prefix(' ').unwrap_or(d));
        }
    }
    out.retain(|d| !d.trim().is_empty());
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn sse_events_are_read_one_by_one() {
        let body = "id: 1\nevent: message\ndata: {\"a\":1}\n\n: comment\ndata: {\"b\":\ndata: 2}\n\ndata:\n\n";
        assert_eq!(super::sse_data(body), ["{\"a\":1}", "{\"b\":\n2}"]);
    }
}
