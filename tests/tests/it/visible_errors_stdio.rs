//! `VisibleError` over a real process's stdin and stdout (the `desk_server` binary), in both
//! eras: a tool returning `Result<T, DeskError>`, and one using `?` on it inside a
//! `Result<T, ToolError>`, answer the visible variant with `isError: true` and the error's text,
//! and the hidden variant with `isError: true`, the generic text and an error id, nothing of its
//! `Display` or cause, which its log line carries under that id; the server keeps answering, and
//! exits 0 at the end of input.

use test_support::desk::check_tool;
use test_support::stdio::{ERAS, RawPeer};

const DESK: &str = env!("CARGO_BIN_EXE_desk_server");

#[tokio::test]
async fn a_visible_variant_reaches_the_model_and_a_hidden_one_gets_an_error_id_over_stdio() {
    for era in ERAS {
        let (mut peer, stderr) = RawPeer::child_with_stderr(DESK, &[], era);
        peer.open().await;
        let mut ids = Vec::new();
        for tool in ["read_note", "read_note_checked"] {
            ids.push(check_tool(&mut peer, era, tool).await);
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
