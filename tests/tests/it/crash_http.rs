//! Over Streamable HTTP too, a panic anywhere in a request's handling answers that request with a
//! JSON-RPC internal error (-32603, an error id) and the server keeps serving.

use crate::common;

use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::http::{STATELESS, serve, stateless_call};
use test_support::treacherous::Treacherous;

/// Fails with a treacherous error.
#[tool]
fn betray() -> Result<String, Treacherous> {
    Err(Treacherous)
}

/// Say hi.
#[tool]
fn hi() -> String {
    "hi".into()
}

async fn call(url: &str, id: u64, name: &str) -> Value {
    let body = stateless_call(id, name, json!({}));
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", STATELESS)
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    common::last_message(&text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_the_handling_of_an_http_request_is_an_internal_error() {
    // The hidden error is logged with its full chain; with a subscriber listening, that is where
    // `Display` runs and panics, outside the tool body. The handler runs on the runtime's workers,
    // so the subscriber is the process's (shared with the binary's other tests: it writes nowhere).
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::sink)
        .try_init();
    let server = Server::builder("t", "1")
        .tools(tools![hi, betray])
        .build()
        .unwrap();
    let served = serve(&server, HttpOptions::default()).await;
    for id in 0..3 {
        let answer = call(&served.url, id, "betray").await;
        assert_eq!(answer["error"]["code"], -32603, "{answer}");
        assert_eq!(answer["error"]["message"], "Internal error", "{answer}");
        assert!(
            answer["error"]["data"]["errorId"]
                .as_str()
                .is_some_and(|e| e.starts_with("err-")),
            "{answer}"
        );
        let ok = call(&served.url, 100 + id, "hi").await;
        assert_eq!(ok["result"]["content"][0]["text"], "hi", "{ok}");
    }
}
