//! The metrics (feature `metrics`): each kind of request lands in its series of
//! `mcp.server.operation.duration` with the attributes OpenTelemetry's MCP conventions give it
//! (ok, a tool error, a protocol error, an unknown method and tool; both eras; a pipe and TCP),
//! sessions are timed from `initialize` to their end, the gauges follow calls in flight, sessions
//! and streams, and the HTTP listener serves it all in Prometheus' text format at its metrics path,
//! outside the endpoint's checks. Read through [`Prometheus::encode`], as a scrape reads them.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

use mcp_runtime::http::HttpOptions;
use mcp_runtime::metrics::Prometheus;
use mcp_runtime::prelude::*;
use mcp_runtime::{Client, ProtocolError};
use serde_json::json;
use test_support::http::post_mcp;
use test_support::wait::until;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Adds two numbers.
#[tool(inline)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Fails: `visible` with a message, `protocol` with a JSON-RPC error.
#[tool(inline)]
fn fail(#[arg(one_of = ["visible", "protocol"])] how: String) -> Result<u32, ToolError> {
    match how.as_str() {
        "visible" => Err(ToolError::new("try again later")),
        _ => Err(ProtocolError::invalid_params("no such thing").into()),
    }
}

/// The gate `hold` waits at.
struct Gate(Arc<Semaphore>);

/// Waits until the test opens the gate.
#[tool]
async fn hold(gate: &Gate) -> String {
    let _pass = gate.0.acquire().await;
    "released".into()
}

fn server(prometheus: &Prometheus, gate: &Arc<Semaphore>) -> Server {
    Server::builder("metrics", "1.0.0")
        .state(Gate(gate.clone()))
        .tools(tools![add, fail, hold])
        .metrics(prometheus.meter())
        .build()
        .unwrap()
}

/// One sample of a scrape: its labels (the scope's left out) and its value.
#[derive(Debug)]
struct Sample {
    labels: BTreeMap<String, String>,
    value: f64,
}

/// The samples of the series `name` in Prometheus' text format.
fn samples(text: &str, name: &str) -> Vec<Sample> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, labels) = match series.split_once('{') {
                Some((m, rest)) => (m, rest.strip_suffix('}')?),
                None => (series, ""),
            };
            (metric == name).then_some(())?;
            let labels = labels
                .split(',')
                .filter(|p| !p.is_empty())
                .filter_map(|pair| {
                    let (k, v) = pair.split_once('=')?;
                    Some((k.to_owned(), v.trim_matches('"').to_owned()))
                })
                .filter(|(k, _)| !k.starts_with("otel_scope_"))
                .collect();
            Some(Sample {
                labels,
                value: value.parse().ok()?,
            })
        })
        .collect()
}

/// The value of the one sample of `name` whose labels are exactly `labels`; 0 when none.
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    let wanted: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let found: Vec<Sample> = samples(text, name)
        .into_iter()
        .filter(|s| s.labels == wanted)
        .collect();
    assert!(found.len() <= 1, "{name}{labels:?} twice in\n{text}");
    found.first().map_or(0.0, |s| s.value)
}

const COUNT: &str = "mcp_server_operation_duration_seconds_count";

/// The labels of a `tools/call` of `tool` (`None`: an unknown one) ending with `error`.
fn call<'a>(
    version: &'a str,
    transport: &'a str,
    tool: Option<&'a str>,
    error: Option<&'a str>,
) -> Vec<(&'a str, &'a str)> {
    let mut labels = vec![
        ("mcp_method_name", "tools/call"),
        ("mcp_protocol_version", version),
        ("network_transport", transport),
    ];
    if let Some(tool) = tool {
        labels.push(("gen_ai_tool_name", tool));
        labels.push(("gen_ai_operation_name", "execute_tool"));
    }
    if let Some(error) = error {
        labels.push(("error_type", error));
        if error.starts_with('-') {
            labels.push(("rpc_response_status_code", error));
        }
    }
    labels
}

#[tokio::test]
async fn each_kind_of_call_lands_in_its_series_in_both_eras() {
    let prometheus = Prometheus::new().unwrap();
    let server = server(&prometheus, &Arc::new(Semaphore::new(0)));
    let session = Client::in_process(&server).await.unwrap();
    let stateless = Client::builder()
        .stateless()
        .in_process(&server)
        .await
        .unwrap();
    for client in [&session, &stateless] {
        for _ in 0..2 {
            let ok = client
                .call_tool("add", json!({"a": 1, "b": 2}))
                .await
                .unwrap();
            assert!(!ok.is_error);
        }
        let visible = client
            .call_tool("fail", json!({"how": "visible"}))
            .await
            .unwrap();
        assert!(visible.is_error);
        let protocol = client.call_tool("fail", json!({"how": "protocol"})).await;
        assert!(protocol.is_err());
        let unknown = client.call_tool("no_such_tool", json!({})).await.unwrap();
        assert!(unknown.is_error);
        assert!(client.request("made/up", json!({})).await.is_err());
    }
    let text = prometheus.encode();
    for version in ["2025-11-25", "2026-07-28"] {
        let at = |tool, error| value(&text, COUNT, &call(version, "pipe", tool, error));
        assert_eq!(at(Some("add"), None), 2.0, "{version}:\n{text}");
        assert_eq!(at(Some("fail"), Some("tool_error")), 1.0, "{version}");
        assert_eq!(at(Some("fail"), Some("-32602")), 1.0, "{version}");
        assert_eq!(
            at(None, Some("tool_error")),
            1.0,
            "an unknown tool, unnamed"
        );
        let other = [
            ("mcp_method_name", "_OTHER"),
            ("mcp_protocol_version", version),
            ("network_transport", "pipe"),
            ("error_type", "-32601"),
            ("rpc_response_status_code", "-32601"),
        ];
        assert_eq!(
            value(&text, COUNT, &other),
            1.0,
            "{version}: an unknown method"
        );
    }
    let initialize = [
        ("mcp_method_name", "initialize"),
        ("mcp_protocol_version", "2025-11-25"),
        ("network_transport", "pipe"),
    ];
    assert_eq!(value(&text, COUNT, &initialize), 1.0);
    let discover = [
        ("mcp_method_name", "server/discover"),
        ("mcp_protocol_version", "2026-07-28"),
        ("network_transport", "pipe"),
    ];
    assert!(value(&text, COUNT, &discover) >= 1.0, "{text}");
    // Every series has its buckets and its sum: the histogram, in seconds.
    let ok = call("2025-11-25", "pipe", Some("add"), None);
    let le_inf: Vec<_> = ok.iter().copied().chain([("le", "+Inf")]).collect();
    let bucket = "mcp_server_operation_duration_seconds_bucket";
    assert_eq!(value(&text, bucket, &le_inf), 2.0);
    let sum = value(&text, "mcp_server_operation_duration_seconds_sum", &ok);
    assert!(sum > 0.0 && sum < 10.0, "{sum}");
    assert!(text.contains("# TYPE mcp_server_operation_duration_seconds histogram"));
}

#[tokio::test]
async fn a_session_is_open_from_initialize_and_timed_when_it_ends() {
    let prometheus = Prometheus::new().unwrap();
    let server = server(&prometheus, &Arc::new(Semaphore::new(0)));
    let sessions = |text: &str| {
        value(
            text,
            "mcp_server_active_sessions",
            &[("network_transport", "pipe")],
        )
    };
    let ended = [
        ("mcp_protocol_version", "2025-06-18"),
        ("network_transport", "pipe"),
    ];
    let client = Client::builder()
        .handshake("2025-06-18")
        .in_process(&server)
        .await
        .unwrap();
    let text = prometheus.encode();
    assert_eq!(sessions(&text), 1.0, "{text}");
    assert_eq!(
        value(&text, "mcp_server_session_duration_seconds_count", &ended),
        0.0
    );
    client.close().await;
    let ended_once = async || {
        let text = prometheus.encode();
        (
            sessions(&text),
            value(&text, "mcp_server_session_duration_seconds_count", &ended),
        )
    };
    until("the session's end", ended_once, |(open, timed)| {
        *open == 0.0 && *timed == 1.0
    })
    .await;
    // A stateless client opens no session.
    let stateless = Client::builder()
        .stateless()
        .in_process(&server)
        .await
        .unwrap();
    stateless
        .call_tool("add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(sessions(&prometheus.encode()), 0.0);
}

#[tokio::test]
async fn calls_in_flight_are_counted_until_they_answer() {
    let prometheus = Prometheus::new().unwrap();
    let gate = Arc::new(Semaphore::new(0));
    let server = server(&prometheus, &gate);
    let client = Arc::new(Client::in_process(&server).await.unwrap());
    let in_flight = async || {
        let text = prometheus.encode();
        value(
            &text,
            "mcp_server_active_requests",
            &[("mcp_method_name", "tools/call")],
        )
    };
    let calls: Vec<_> = (0..3)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.call_tool("hold", json!({})).await.unwrap() })
        })
        .collect();
    until("three calls in flight", in_flight, |n| *n == 3.0).await;
    gate.add_permits(3);
    for call in calls {
        assert_eq!(call.await.unwrap().first_text(), Some("released"));
    }
    until("none in flight", in_flight, |n| *n == 0.0).await;
}

/// `server` on a loopback port with its metrics at `/metrics`.
async fn serve_http(server: Server, prometheus: Prometheus) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let options = HttpOptions::default().metrics("/metrics", prometheus);
    tokio::spawn(async move { server.serve_http_on(listener, options).await });
    addr
}

#[tokio::test]
async fn the_listener_serves_them_as_prometheus_text_with_tcp_as_the_transport() {
    let prometheus = Prometheus::new().unwrap();
    let server = server(&prometheus, &Arc::new(Semaphore::new(0)));
    let addr = serve_http(server, prometheus).await;
    let http = reqwest::Client::new();
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let stateless = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "add"),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": envelope}});
    let (_, answer) = post_mcp(&http, addr, &stateless, &call).await;
    assert!(answer.contains("\"result\""), "{answer}");

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let (headers, _) = post_mcp(&http, addr, &[], &init).await;
    let id = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let in_session = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let fail = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "fail", "arguments": {"how": "visible"}}});
    let (_, answer) = post_mcp(&http, addr, &in_session, &fail).await;
    assert!(answer.contains("try again later"), "{answer}");

    // Outside the endpoint's checks: a foreign Origin, no MCP header.
    let scrape = http
        .get(format!("http://{addr}/metrics"))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(scrape.status(), 200);
    let content_type = scrape.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = scrape.text().await.unwrap();
    let labels = |version, tool, error: Option<&'static str>| {
        let mut l = vec![
            ("mcp_method_name", "tools/call"),
            ("mcp_protocol_version", version),
            ("network_transport", "tcp"),
            ("gen_ai_tool_name", tool),
            ("gen_ai_operation_name", "execute_tool"),
        ];
        l.extend(error.map(|e| ("error_type", e)));
        l
    };
    assert_eq!(
        value(&text, COUNT, &labels("2026-07-28", "add", None)),
        1.0,
        "{text}"
    );
    let tool_error = labels("2025-11-25", "fail", Some("tool_error"));
    assert_eq!(value(&text, COUNT, &tool_error), 1.0, "{text}");
    let tcp = [("network_transport", "tcp")];
    assert_eq!(value(&text, "mcp_server_active_sessions", &tcp), 1.0);
    assert!(
        text.contains("# TYPE mcp_server_active_streams gauge"),
        "{text}"
    );
}

/// Sleeps `ms`.
#[tool(task)]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    "rested".into()
}

#[tokio::test]
async fn tasks_are_counted_by_status_while_they_run_and_when_they_end() {
    let prometheus = Prometheus::new().unwrap();
    let server = Server::builder("tasks", "1.0.0")
        .tools(tools![nap])
        .metrics(prometheus.meter())
        .build()
        .unwrap();
    let client = Client::in_process(&server).await.unwrap();
    let counts = async || {
        let text = prometheus.encode();
        let status = |name, s| value(&text, name, &[("mcp_task_status", s)]);
        (
            status("mcp_server_active_tasks", "working"),
            status("mcp_server_finished_tasks_total", "completed"),
            status("mcp_server_finished_tasks_total", "cancelled"),
        )
    };
    let long = client
        .call_tool_as_task("nap", json!({"ms": 60_000}), None)
        .await
        .unwrap();
    let long = long["task"]["taskId"].as_str().unwrap().to_owned();
    until("one task working", counts, |c| *c == (1.0, 0.0, 0.0)).await;
    let short = client
        .call_tool_as_task("nap", json!({"ms": 1}), None)
        .await
        .unwrap();
    let short = short["task"]["taskId"].as_str().unwrap().to_owned();
    client.task_result(&short).await.unwrap();
    client.cancel_task(&long).await.unwrap();
    until("both ended", counts, |c| *c == (0.0, 1.0, 1.0)).await;
}
