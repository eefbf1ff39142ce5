//! Load over loopback: 32 concurrent HTTP clients make 20,000 stateless calls in all; every call
//! must succeed and every response must answer its own request (id and result). No timing is
//! asserted; the figures are printed.

use std::sync::Arc;
use std::time::Instant;

use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::http::{STATELESS, serve, stateless_call};

const CLIENTS: u64 = 32;
const CALLS: u64 = 20_000;

/// Multiply two integers.
#[tool]
fn mul(a: i64, b: i64) -> i64 {
    a * b
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_clients_make_twenty_thousand_calls_without_an_error() {
    let server = Server::builder("load", "1.0.0")
        .tools(tools![mul])
        .build()
        .unwrap();
    let served = serve(&server, HttpOptions::default()).await;

    let started = Instant::now();
    let url = Arc::new(served.url.clone());
    let mut clients = Vec::new();
    for client in 0..CLIENTS {
        let url = url.clone();
        clients.push(tokio::spawn(async move {
            // One HTTP client (and connection pool) per simulated MCP client.
            let http = reqwest::Client::new();
            let mut errors = Vec::new();
            let mut matched = 0u64;
            // Calls are dealt round-robin: client `c` makes calls c, c + 32, c + 64, …
            for n in (client..CALLS).step_by(CLIENTS as usize) {
                let (a, b) = (client as i64 + 1, n as i64);
                let body =
                    stateless_call(format!("c{client}-n{n}"), "mul", json!({"a": a, "b": b}));
                let response = http
                    .post(url.as_str())
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", STATELESS)
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", "mul")
                    .body(body.to_string())
                    .send()
                    .await;
                let outcome = match response {
                    Err(e) => Err(format!("transport: {e}")),
                    Ok(r) if !r.status().is_success() => Err(format!("status {}", r.status())),
                    Ok(r) => match r.text().await.map(|t| serde_json::from_str::<Value>(&t)) {
                        Ok(Ok(v)) => Ok(v),
                        Ok(Err(e)) => Err(format!("body: {e}")),
                        Err(e) => Err(format!("body: {e}")),
                    },
                };
                match outcome {
                    Ok(v)
                        if v["id"] == body["id"]
                            && v["result"]["structuredContent"]["result"] == a * b =>
                    {
                        matched += 1
                    }
                    Ok(v) => errors.push(format!("call {n}: mismatched answer {v}")),
                    Err(e) => errors.push(format!("call {n}: {e}")),
                }
            }
            (matched, errors)
        }));
    }
    let mut matched = 0;
    let mut errors = Vec::new();
    for c in clients {
        let (m, e) = c.await.unwrap();
        matched += m;
        errors.extend(e);
    }
    let elapsed = started.elapsed();
    drop(served);
    eprintln!(
        "load: {CLIENTS} clients, {matched} of {CALLS} calls answered and matched, {} errors, {:.1}s ({:.0} calls/s)",
        errors.len(),
        elapsed.as_secs_f64(),
        matched as f64 / elapsed.as_secs_f64()
    );
    assert!(
        errors.is_empty(),
        "{} errors, first: {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    assert_eq!(matched, CALLS);
}
