//! A stateless deployment behind a real reverse proxy: two `http_replica` processes behind nginx
//! (Debian's package) balancing round-robin, no sticky sessions. Every call must succeed and
//! both replicas must serve some. Skipped with a message when nginx is not installed, unless
//! `MCP_INTEROP_REQUIRED` is set to any non-empty value.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use test_support::nginx::{Nginx, spawn_replica};

const REPLICA: &str = env!("CARGO_BIN_EXE_http_replica");
const CALLS: usize = 200;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stateless_replicas_behind_nginx_share_the_calls() {
    let (_a, addr_a) = spawn_replica(REPLICA, &[]).await;
    let (_b, addr_b) = spawn_replica(REPLICA, &[]).await;
    let Some(proxy) = Nginx::start(&[addr_a.clone(), addr_b.clone()]).await else {
        return;
    };
    let url = &proxy.url;
    let http = reqwest::Client::new();
    let call = |id: usize, name: &str, arguments: Value| {
        http.post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .body(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                    "name": name, "arguments": arguments,
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}
                    }
                }})
                .to_string(),
            )
            .send()
    };
    let mut served: BTreeMap<u64, usize> = BTreeMap::new();
    let mut errors = Vec::new();
    for id in 1..=CALLS {
        let outcome = async {
            let r = call(id, "replica", json!({}))
                .await
                .map_err(|e| e.to_string())?;
            if !r.status().is_success() {
                return Err(format!("status {}", r.status()));
            }
            let v: Value = serde_json::from_str(&r.text().await.map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
            if v["id"] != id {
                return Err(format!("answer to another request: {v}"));
            }
            v["result"]["structuredContent"]["result"]
                .as_u64()
                .ok_or_else(|| format!("no process id in {v}"))
        }
        .await;
        match outcome {
            Ok(pid) => *served.entry(pid).or_default() += 1,
            Err(e) => errors.push(format!("call {id}: {e}")),
        }
    }
    drop(proxy);
    eprintln!(
        "nginx round-robin over {addr_a} and {addr_b}: {CALLS} calls, {} errors, calls per replica process: {served:?}",
        errors.len()
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(served.len(), 2, "both replicas serve calls: {served:?}");
    assert!(served.values().all(|&n| n > 0));
    assert_eq!(served.values().sum::<usize>(), CALLS);
}
