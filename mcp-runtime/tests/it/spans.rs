//! Each request runs in a `tracing` span carrying OpenTelemetry's MCP attribute names: the
//! method, the tool, the request id, the negotiated version, the outcome, the error id of a
//! hidden failure and the duration.

use crate::common;

use mcp_runtime::prelude::*;
use mcp_runtime::{Client, ProtocolError};
use serde_json::json;

use common::{Recorder, SpanRecord};

/// Adds two numbers.
#[tool(inline)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Fails: `hidden` unexpectedly, `visible` with a message, `protocol` with a JSON-RPC error.
#[tool(inline)]
fn fail(#[arg(one_of = ["hidden", "visible", "protocol"])] how: String) -> Result<u32, ToolError> {
    match how.as_str() {
        "hidden" => Err(std::io::Error::other("disk full"))?,
        "visible" => Err(ToolError::new("try again later")),
        _ => Err(ProtocolError::invalid_params("no such thing").into()),
    }
}

fn server() -> Server {
    Server::builder("spans", "1.0.0")
        .tools(tools![add, fail])
        .build()
        .unwrap()
}

/// The closed request span whose `jsonrpc.request.id` is `id`... found by its tool and outcome.
fn span<'a>(spans: &'a [&'a SpanRecord], name: &str, outcome: &str) -> &'a SpanRecord {
    spans
        .iter()
        .copied()
        .find(|s| {
            s.fields.get("otel.name").map(String::as_str) == Some(name)
                && s.fields["outcome"] == outcome
        })
        .unwrap_or_else(|| panic!("no `{name}` span with outcome {outcome} in {spans:#?}"))
}

#[tokio::test]
async fn every_request_gets_a_span_with_the_open_telemetry_names() {
    let (recorder, _guard) = Recorder::install();
    let client = Client::in_process(&server()).await.unwrap();
    let sum = client
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert!(!sum.is_error);
    let hidden = client
        .call_tool("fail", json!({"how": "hidden"}))
        .await
        .unwrap();
    let error_id = hidden.meta.as_ref().unwrap()["errorId"]
        .as_str()
        .unwrap()
        .to_owned();
    let visible = client
        .call_tool("fail", json!({"how": "visible"}))
        .await
        .unwrap();
    assert!(visible.is_error);
    client
        .call_tool("fail", json!({"how": "protocol"}))
        .await
        .unwrap_err();
    client.list_tools().await.unwrap();
    drop(client);

    let all = recorder.get();
    let spans = all.closed_spans("mcp.request");

    let ok = span(&spans, "tools/call add", "ok");
    for (field, value) in [
        ("otel.kind", "server"),
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "add"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
    ] {
        assert_eq!(
            ok.fields.get(field).map(String::as_str),
            Some(value),
            "{field} in {ok:#?}"
        );
    }
    assert!(
        ok.fields["jsonrpc.request.id"].parse::<u64>().is_ok(),
        "{ok:#?}"
    );
    let ms: f64 = ok.fields["duration_ms"].parse().unwrap();
    assert!(ms >= 0.0, "{ok:#?}");
    for absent in [
        "error.type",
        "otel.status_code",
        "error_id",
        "mcp.session.id",
    ] {
        assert!(!ok.fields.contains_key(absent), "{absent} in {ok:#?}");
    }

    let failed = spans
        .iter()
        .find(|s| s.fields.get("error_id") == Some(&error_id))
        .unwrap_or_else(|| panic!("no span carries error id {error_id}: {spans:#?}"));
    assert_eq!(failed.fields["outcome"], "tool_error");
    assert_eq!(failed.fields["error.type"], "tool_error");
    assert_eq!(failed.fields["otel.status_code"], "ERROR");

    let visible = spans
        .iter()
        .filter(|s| s.fields["outcome"] == "tool_error")
        .find(|s| !s.fields.contains_key("error_id"))
        .expect("the visible failure's span");
    assert_eq!(visible.fields["gen_ai.tool.name"], "fail");

    let protocol = span(&spans, "tools/call fail", "error");
    assert_eq!(protocol.fields["rpc.response.status_code"], "-32602");
    assert_eq!(protocol.fields["error.type"], "-32602");

    let list = span(&spans, "tools/list", "ok");
    assert!(!list.fields.contains_key("gen_ai.tool.name"), "{list:#?}");
    span(&spans, "initialize", "ok");
}

#[tokio::test]
async fn the_log_line_of_a_hidden_failure_sits_inside_its_request_span() {
    let (recorder, _guard) = Recorder::install();
    let client = Client::in_process(&server()).await.unwrap();
    client
        .call_tool("fail", json!({"how": "hidden"}))
        .await
        .unwrap();
    let all = recorder.get();
    let event = all
        .events
        .iter()
        .find(|e| e.fields.contains_key("error_id"))
        .expect("the error's log line");
    assert_eq!(event.span.as_deref(), Some("mcp.request"), "{event:#?}");
}

/// One HTTP/1.1 POST of `body` to `/mcp` on `addr`: the response's head and body.
async fn post(
    addr: std::net::SocketAddr,
    session: Option<&str>,
    body: serde_json::Value,
) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        ));
    }
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("{head}\r\n{body}").as_bytes())
        .await
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.to_owned(), body.to_owned())
}

#[tokio::test]
async fn an_http_session_names_its_id_in_each_request_span() {
    let (recorder, _guard) = Recorder::install();
    let served = test_support::http::serve(&server(), Default::default()).await;
    let (head, _) = post(served.addr, None, json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
    .await;
    let session = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_owned)
        })
        .unwrap_or_else(|| panic!("no session id in {head}"));
    let (_, body) = post(
        served.addr,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}),
    )
    .await;
    assert!(body.contains("\"result\""), "{body}");
    let all = recorder.get();
    let call = span(&all.closed_spans("mcp.request"), "tools/call add", "ok").clone();
    assert_eq!(
        call.fields.get("mcp.session.id"),
        Some(&session),
        "{call:#?}"
    );
}
