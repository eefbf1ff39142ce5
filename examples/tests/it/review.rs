//! The review example: its tools ask the client's model (sampling) and roots.
//!
//! - Our client drives the binary over stdio in both eras, with a scripted model and roots.
//! - The official Python client (PyPI `mcp==2.3.0`, `tests/py/review.py`) drives it over stdio
//!   and over Streamable HTTP, in `mode="legacy"` (handshake) and `mode="auto"` (2026-07-28);
//!   then changes its roots (in legacy mode with `notifications/roots/list_changed`, which the
//!   server answers by asking `roots/list`) and reads the new ones through `workspace_roots`.
//!   Needs `<repo>/.venv` (`bash .ci/python-venv`); without it the test says why and passes,
//!   unless `MCP_INTEROP_REQUIRED` is set to any non-empty value (`.ci/run` sets it).
//!
//! Its `tools/list` golden file is checked with the other examples' (`contracts.rs`).

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use mcp_runtime::{Client, CreateMessageRequest, CreateMessageResult, Root};
use serde_json::json;
use test_support::python::{passed_count, run_with_sdk};
use tokio::process::Command;

const REVIEW: &str = env!("CARGO_BIN_EXE_review");

#[tokio::test]
async fn our_client_gets_the_models_summary_and_the_roots_in_both_eras() {
    for stateless in [false, true] {
        let mut child = Command::new(REVIEW)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start review");
        let asked: Arc<Mutex<Vec<CreateMessageRequest>>> = Arc::default();
        let seen = Arc::clone(&asked);
        let mut builder = Client::builder()
            .on_sampling(move |request: CreateMessageRequest| {
                seen.lock().unwrap().push(request);
                async { Ok(CreateMessageResult::text("m", "It adds two numbers.")) }
            })
            .roots(vec![
                Root::new("file:///src/app").name("app"),
                Root::new("file:///src/lib"),
            ]);
        if stateless {
            builder = builder.stateless();
        }
        let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
        let client = builder.over_io(stdout, stdin).await.expect("connect");

        let r = client
            .call_tool(
                "summarize",
                json!({"text": "fn add(a: i32, b: i32) -> i32 { a + b }"}),
            )
            .await
            .unwrap();
        assert_eq!(r.first_text(), Some("It adds two numbers."), "{r:?}");
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "stateless {stateless}");
        assert_eq!(
            asked[0].system_prompt.as_deref(),
            Some("Summarize this code for a reviewer")
        );
        assert_eq!(asked[0].max_tokens, 300);

        let r = client
            .call_tool("workspace_roots", json!({}))
            .await
            .unwrap();
        assert_eq!(
            r.structured_content,
            Some(json!({"roots": ["file:///src/app", "file:///src/lib"]}))
        );
        client.close().await;
        assert!(child.wait().await.unwrap().success());
    }
}

#[tokio::test]
async fn without_the_capabilities_the_tools_say_why() {
    let mut child = Command::new(REVIEW)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start review");
    let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = Client::over_io(stdout, stdin).await.expect("connect");
    let r = client
        .call_tool("workspace_roots", json!({}))
        .await
        .unwrap();
    assert!(r.is_error);
    assert_eq!(
        r.first_text(),
        Some(
            "Error executing tool workspace_roots: cannot list the workspace: the client does not \
             support roots: it did not declare the `roots` capability"
        )
    );
    client.close().await;
}

#[test]
fn the_official_python_client_drives_review_over_stdio_and_http_in_both_modes() {
    let Some(stdout) = run_with_sdk("tests/py/review.py", &[REVIEW]) else {
        return;
    };
    // 12 checks in legacy mode, 11 in auto (no roots/list_changed: the 2026-07-28 era has no
    // session to change), over stdio and HTTP.
    assert_eq!(passed_count(&stdout), 46, "{stdout}");
    for label in ["stdio-legacy", "stdio-auto", "http-legacy", "http-auto"] {
        for check in [
            "summarize returns the model's text",
            "workspace_roots returns the changed roots",
            "without roots the tool says why",
        ] {
            assert!(
                stdout.contains(&format!("ok {label} {check}\n")),
                "{stdout}"
            );
        }
    }
    for label in ["stdio-legacy", "http-legacy"] {
        let check = "roots/list_changed: the server asks for the new roots";
        assert!(
            stdout.contains(&format!("ok {label} {check}\n")),
            "{stdout}"
        );
    }
}
