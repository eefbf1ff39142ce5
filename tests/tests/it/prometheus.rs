//! The metrics as Prometheus itself reads them: the `tasks` example run as `--http 127.0.0.1:0
//! --metrics`, clients of both eras calling it, then `promtool check metrics` on its `/metrics`
//! text, and a real `prometheus` (Debian's package, `.ci/prometheus`) scraping it every second
//! whose query API must count exactly the calls the clients made. Skipped with a message without
//! the package, unless `MCP_INTEROP_REQUIRED` is set.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::post_mcp;
use test_support::nginx::spawn_replica;
use test_support::prometheus::{Prometheus, check_metrics};

const TASKS: &str = env!("CARGO_BIN_EXE_tasks_test_server");
/// The calls each era makes.
const CALLS: usize = 20;
const QUERY: &str =
    r#"sum(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"})"#;

/// `body` POSTed to the replica's `/mcp` with `headers`; the answer's session id and JSON.
async fn post(
    http: &reqwest::Client,
    addr: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (Option<String>, Value) {
    let (headers, text) = post_mcp(http, addr, headers, &body).await;
    let session = headers
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    (
        session,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

/// `CALLS` stateless calls and `CALLS` calls in one 2025-11-25 session (one of them a tool error).
async fn make_calls(addr: &str) {
    let http = reqwest::Client::new();
    for i in 0..CALLS {
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "add_task"),
        ];
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "add_task", "arguments": {"title": format!("stateless {i}")},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let (_, answer) = post(&http, addr, &headers, body).await;
        assert!(
            answer["result"]["structuredContent"].is_object(),
            "{answer}"
        );
    }
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "prometheus-test", "version": "1"}}});
    let (session, _) = post(&http, addr, &[], init).await;
    let session = session.expect("a session id");
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = http
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header(headers[0].0, headers[0].1)
        .header(headers[1].0, headers[1].1)
        .body(initialized.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    for i in 0..CALLS {
        let (name, arguments) = match i {
            0 => ("complete_task", json!({"task_id": "T-999"})),
            _ => ("list_tasks", json!({})),
        };
        let body = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        let (_, answer) = post(&http, addr, &headers, body).await;
        let is_error = answer["result"]["isError"].as_bool().unwrap_or(false);
        assert_eq!(is_error, i == 0, "{answer}");
    }
}

async fn scrape(addr: &str) -> String {
    let response = reqwest::get(format!("http://{addr}/metrics"))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promtool_passes_the_scraped_text() {
    let (_replica, addr) = spawn_replica(TASKS, &["--http", "127.0.0.1:0", "--metrics"]).await;
    make_calls(&addr).await;
    let text = scrape(&addr).await;
    assert!(
        text.contains("mcp_server_operation_duration_seconds_bucket{"),
        "{text}"
    );
    let Some(checked) = check_metrics(&text) else {
        return;
    };
    match checked {
        Ok(lint) => eprintln!(
            "promtool check metrics: passed ({} bytes){}",
            text.len(),
            lint
        ),
        Err(problems) => panic!("promtool check metrics failed:\n{problems}\non:\n{text}"),
    }
}

/// The one value of `QUERY` (the calls counted), when Prometheus has one.
async fn query(http: &reqwest::Client, prometheus: &Prometheus) -> Option<f64> {
    query_value(http, prometheus, QUERY).await
}

/// The one value of the PromQL `expression`, when Prometheus has one.
pub(crate) async fn query_value(
    http: &reqwest::Client,
    prometheus: &Prometheus,
    expression: &str,
) -> Option<f64> {
    // The query, percent-encoded as a URL's query component.
    let encoded: String = expression
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let url = format!("{}/api/v1/query?query={encoded}", prometheus.url);
    let text = http.get(url).send().await.ok()?.text().await.ok()?;
    let answer: Value = serde_json::from_str(&text).ok()?;
    assert_eq!(answer["status"], "success", "{answer}");
    answer["data"]["result"][0]["value"][1]
        .as_str()?
        .parse()
        .ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_prometheus_counts_exactly_the_calls_made() {
    let (_replica, addr) = spawn_replica(TASKS, &["--http", "127.0.0.1:0", "--metrics"]).await;
    let Some(prometheus) = Prometheus::start(std::slice::from_ref(&addr)) else {
        return;
    };
    make_calls(&addr).await;
    let made = 2 * CALLS;
    let http = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + HANG;
    let mut seen = None;
    while tokio::time::Instant::now() < deadline {
        seen = query(&http, &prometheus).await;
        if seen == Some(made as f64) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    eprintln!(
        "prometheus at {} scraping {addr}: {QUERY} = {seen:?}, calls made: {made}",
        prometheus.url
    );
    assert_eq!(
        seen,
        Some(made as f64),
        "prometheus' log:\n{}",
        prometheus.log()
    );
}
