//! The desk of the `VisibleError` tests (mcp-runtime's tests/it/visible_errors.rs, in process,
//! and the `desk_server` binary that tests/it/visible_errors_stdio.rs spawns): a domain error, a
//! thiserror enum with one variant the model may read and one hidden behind an error id, and the
//! lookup its tools fail with.

use mcp_runtime::VisibleError;
use serde_json::{Value, json};

use crate::stdio::{Era, RawPeer};

/// The desk's failures.
#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    /// The model can fix this: it asked for a note that does not exist.
    #[error("no note {0}; list the notes to see their ids")]
    NoSuchNote(u32),
    /// The model cannot: the database failed (its address and the cause stay in the log).
    #[error("the notes database at 10.0.0.5 refused the query")]
    Database(#[source] std::io::Error),
}

impl VisibleError for DeskError {
    fn visible_message(&self) -> Option<String> {
        match self {
            DeskError::NoSuchNote(_) => Some(self.to_string()),
            DeskError::Database(_) => None,
        }
    }
}

/// Note 1 (`buy milk`); note 2, a database failure whose cause names a password; any other, no
/// such note.
pub fn find(id: u32) -> Result<String, DeskError> {
    match id {
        1 => Ok("buy milk".into()),
        2 => Err(DeskError::Database(std::io::Error::other(
            "password 'hunter2'",
        ))),
        _ => Err(DeskError::NoSuchNote(id)),
    }
}

/// Whether a `tools/call` answer is an error, and its first text.
pub fn outcome(r: &Value) -> (bool, String) {
    let result = &r["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (result["isError"] == json!(true), text.to_owned())
}

/// The three answers of `tool` (`read_note` or `read_note_checked`) through `peer`, checked: note 1
/// read; note 5 an error the model reads (the visible variant's text, no error id); note 2 an
/// error with the generic text and an error id, nothing of the hidden variant's `Display` or
/// cause anywhere in the answer. The error id, which the server's log line carries.
pub async fn check_tool(peer: &mut RawPeer, era: Era, tool: &str) -> String {
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
    id.unwrap_or_else(|| panic!("{era:?} {tool}: an error id: {r}"))
        .to_owned()
}
