//! A slow synchronous tool never stops the server from reading: while its body runs, pings are
//! answered, other calls complete, and its cancellation is honoured — on current-thread and
//! multi-thread runtimes. `#[tool(inline)]` opts a trivially cheap body out of the blocking pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::Client;
use mcp_runtime::prelude::*;
use serde_json::json;

/// How long the slow body blocks its thread.
const SLOW: Duration = Duration::from_secs(3);

#[derive(Default)]
struct Finished(AtomicUsize);

/// Block the thread for a while.
#[tool]
fn crunch(finished: &Finished) -> String {
    std::thread::sleep(SLOW);
    finished.0.fetch_add(1, Ordering::SeqCst);
    "done".into()
}

/// Echo a word.
#[tool(inline)]
fn echo(word: String) -> String {
    word
}

/// Echo a word, from the blocking pool.
#[tool]
fn echo_pooled(word: String) -> String {
    word
}

/// Panic from the blocking pool.
#[tool]
fn explode_pooled() -> String {
    panic!("pooled panic text")
}

fn server() -> Server {
    Server::builder("slow", "1")
        .state(Finished::default())
        .tools(tools![crunch, echo, echo_pooled, explode_pooled])
        .build()
        .unwrap()
}

async fn the_reader_keeps_reading() {
    let server = server();
    let client = Client::in_process(&server).await.unwrap();
    let started = Instant::now();
    let slow = client.send_request("tools/call", json!({"name": "crunch", "arguments": {}}));
    // Everything below is answered while the slow body still runs.
    for i in 0..20 {
        client.ping().await.unwrap();
        let word = format!("w{i}");
        let inline = client
            .call_tool("echo", json!({ "word": word }))
            .await
            .unwrap();
        assert_eq!(inline.first_text(), Some(word.as_str()));
        let pooled = client
            .call_tool("echo_pooled", json!({ "word": word }))
            .await
            .unwrap();
        assert_eq!(pooled.first_text(), Some(word.as_str()));
    }
    let hidden = client.call_tool("explode_pooled", json!({})).await.unwrap();
    assert!(hidden.is_error);
    assert_eq!(
        hidden.first_text(),
        Some("Error executing tool explode_pooled")
    );
    assert!(
        started.elapsed() < SLOW,
        "the other requests waited for the slow body: {:?}",
        started.elapsed()
    );
    let done = slow.response().await.unwrap();
    assert_eq!(done["content"][0]["text"], "done");
    assert!(started.elapsed() >= SLOW);
}

#[tokio::test(flavor = "current_thread")]
async fn a_slow_sync_body_does_not_stop_a_current_thread_server() {
    the_reader_keeps_reading().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_sync_body_does_not_stop_a_multi_thread_server() {
    the_reader_keeps_reading().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_cancelled_slow_call_gets_no_answer_and_the_server_goes_on() {
    let server = server();
    let client = Client::in_process(&server).await.unwrap();
    let slow = client.send_request("tools/call", json!({"name": "crunch", "arguments": {}}));
    client.ping().await.unwrap();
    slow.cancel("changed my mind");
    // Cancelled at once: the next requests are answered while the body still runs out.
    let started = Instant::now();
    let echoed = client
        .call_tool("echo", json!({"word": "after"}))
        .await
        .unwrap();
    assert_eq!(echoed.first_text(), Some("after"));
    assert!(started.elapsed() < SLOW);
    // The body itself cannot be stopped; it finishes, and no answer for it is sent.
    tokio::time::sleep(SLOW + Duration::from_millis(500)).await;
    client.ping().await.unwrap();
    assert_eq!(client.unmatched_responses(), 0);
}
