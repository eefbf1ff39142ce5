//! `VisibleError` over a real process's stdin and stdout (the `desk_server` binary), in both
//! eras: a tool returning `Result<T, DeskError>`, and one using `?` on it inside a
//! `Result<T, ToolError>`, answer the visible variant with `isError: true` and the error's text,
//! and the hidden variant with `isError: true`, the generic text and an error id, nothing of its
//! `Display` or cause, which its log line carries under that id; the server keeps answering, and
//! exits 0 at the end of input.

use serde_json::{Value, json};
use test_support::stdio::{ERAS, RawPeer};

const DESK: &str = env!("CARGO_BIN_EXE_desk_server");

/// Whether the answer is an error, and its first text.
fn outcome(r: &Value) -> (bool, String) {
    let result = &r["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (result["isError"] == json!(true), text.to_owned())
}

#[tokio::test]
async fn a_visible_variant_reaches_the_model_and_a_hidden_one_gets_an_error_id_over_stdio() {
    for era in ERAS {
        let (mut peer, stderr) = RawPeer::child_with_stderr(DESK, &[], era);
        peer.open().await;
        let mut ids = Vec::new();
        for tool in ["read_note", "read_note_checked"] {
            let r = peer.call_tool(tool, json!({"id": 1})).await;
            assert_eq!(
                outcome(&r),
                (false, "buy milk".into()),
                "{era:?} {tool}: {r}"
            );

            let r = peer.call_tool(tool, json!({"id": 5})).await;
            let (is_error, text) = outcome(&r);
            assert!(is_error, "{era:?} {tool}: {r}");
            assert!(
                text.ends_with("no note 5; list the notes to see their ids"),
                "{era:?} {tool}: {text}"
            );
            assert!(r["result"]["_meta"]["errorId"].is_null(), "{r}");

            let r = peer.call_tool(tool, json!({"id": 2})).await;
            let (is_error, text) = outcome(&r);
            assert!(is_error, "{era:?} {tool}: {r}");
            assert_eq!(text, format!("Error executing tool {tool}"), "{r}");
            let raw = r.to_string();
            assert!(
                !raw.contains("10.0.0.5") && !raw.contains("hunter2"),
                "{era:?} {tool}: {raw}"
            );
            let id = r["result"]["_meta"]["errorId"].as_str();
            ids.push(
                id.unwrap_or_else(|| panic!("{era:?} {tool}: an error id: {r}"))
                    .to_owned(),
            );
        }
        // One id a failure: a report of one is found in the log by it.
        assert_ne!(ids[0], ids[1], "{era:?}");
        let (rest, code) = peer.finish().await;
        assert_eq!(code, 0, "{era:?}: {rest:?}");
        // What the model did not read is in the server's log, under the id it did.
        let log = stderr.await.unwrap();
        for id in &ids {
            let line = log.lines().find(|l| l.contains(id.as_str()));
            let line = line.unwrap_or_else(|| panic!("{era:?}: {id} in the log: {log}"));
            assert!(
                line.contains("10.0.0.5") && line.contains("hunter2"),
                "{line}"
            );
        }
    }
}
