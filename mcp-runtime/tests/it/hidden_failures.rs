//! Unexpected failures are hidden from the model and logged in full for the operator, with the
//! id the result's `_meta.errorId` carries; expected failures log the field names, never values.

use std::io::Write;
use std::sync::{Arc, Mutex};

use mcp_runtime::prelude::*;
use serde_json::json;
use test_support::call_detached;

/// Crashes in a way the model must not learn about.
#[tool]
fn crash(#[arg(one_of = ["panic", "error"])] how: String) -> Result<String, std::io::Error> {
    if how == "panic" {
        panic!("index 7 out of range for secret table at 10.0.0.5");
    }
    Err(std::io::Error::other(
        "db at 10.0.0.5 refused password 'hunter2'",
    ))
}

/// Takes a bounded title.
#[tool]
fn titled(#[arg(min_length = 3)] title: String) -> String {
    title
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn hidden_failures_reach_the_log_with_their_id_and_never_the_result() {
    let captured = Captured::default();
    let writer = captured.clone();
    // At info, the default level: the README promises one line per rejection, as per failure.
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let table = tools![crash, titled];
    let state = Arc::new(StateMap::new());
    for (how, secret, expected_in_log) in [
        (
            "panic",
            "10.0.0.5",
            "index 7 out of range for secret table at 10.0.0.5",
        ),
        (
            "error",
            "hunter2",
            "db at 10.0.0.5 refused password 'hunter2'",
        ),
    ] {
        let result = call_detached(&table, &state, "crash", json!({"how": how})).await;
        assert!(result.is_error);
        assert_eq!(result.first_text(), Some("Error executing tool crash"));
        let wire = result.to_json().to_string();
        assert!(
            !wire.contains(secret),
            "{how}: the result leaks {secret}: {wire}"
        );
        let id = result
            .meta
            .as_ref()
            .and_then(|m| m["errorId"].as_str())
            .expect("an error id")
            .to_owned();

        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line = log
            .lines()
            .find(|l| l.contains(&id))
            .unwrap_or_else(|| panic!("no log line carries {id}:\n{log}"));
        assert!(line.contains("ERROR"), "{line}");
        assert!(line.contains("crash"), "the log names the tool: {line}");
        assert!(
            line.contains(expected_in_log),
            "the log has the full error: {line}"
        );
        if how == "panic" {
            assert!(
                line.contains("hidden_failures.rs:"),
                "the log has the panic location: {line}"
            );
        }
    }

    let rejected = call_detached(
        &table,
        &state,
        "titled",
        json!({"title": "zq", "extra": "sekrit"}),
    )
    .await;
    assert!(rejected.is_error);
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("rejected arguments"))
        .expect("a rejection log line");
    assert!(
        line.contains("titled") && line.contains("/title"),
        "names the tool and the field: {line}"
    );
    assert!(
        !log.contains("zq") && !log.contains("sekrit"),
        "values never reach the log:\n{log}"
    );
}
