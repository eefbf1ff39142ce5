//! `VisibleError`: a domain error type (a thiserror enum) whose failures the model may read. A
//! tool returning `Result<T, DeskError>` answers `isError: true` with the error's `Display` for the
//! visible variant and hides the other behind an error id, as `?` on a `DeskError` inside a
//! `Result<T, ToolError>` tool does; `?` on any other error still hides it. Checked through the
//! in-process client in both eras and over stdio framing.

use mcp_runtime::prelude::*;
use mcp_runtime::{ToolError, error_chain};
use serde_json::json;
use test_support::desk::{DeskError, check_tool, find, outcome};
use test_support::stdio::{ERAS, RawPeer};

/// A closed desk: visible, with its cause (the chain is opt-in).
#[derive(Debug, thiserror::Error)]
#[error("the desk is closed")]
pub struct Closed(#[source] pub std::io::Error);

impl VisibleError for Closed {
    fn visible_message(&self) -> Option<String> {
        Some(error_chain(self))
    }
}

/// Reads a note, returning the domain error itself.
#[tool]
fn read_note(id: u32) -> Result<String, DeskError> {
    find(id)
}

/// Reads a note inside a `ToolError` tool: `?` keeps the domain error's visibility.
#[tool]
fn read_note_checked(id: u32) -> Result<String, ToolError> {
    if id == 9 {
        // Any other error type: hidden, as `?` always made it.
        std::fs::read_to_string("/nonexistent/notes/9")?;
    }
    if id == 8 {
        Err(Closed(std::io::Error::other("it is Sunday")))?;
    }
    let text = find(id)?;
    Ok(text)
}

fn server() -> Server {
    Server::builder("desk", "1.0.0")
        .tools(tools![read_note, read_note_checked])
        .build()
        .unwrap_or_else(|e| panic!("the server builds: {e}"))
}

#[tokio::test]
async fn visible_variants_reach_the_model_and_hidden_ones_do_not_in_both_eras() {
    let server = server();
    for era in ERAS {
        let mut peer = RawPeer::in_process(&server, era);
        peer.open().await;
        for tool in ["read_note", "read_note_checked"] {
            check_tool(&mut peer, era, tool).await;
        }
        let r = peer.call_tool("read_note_checked", json!({"id": 8})).await;
        let (is_error, text) = outcome(&r);
        assert!(
            is_error && text.ends_with("the desk is closed: it is Sunday"),
            "{r}"
        );
        let r = peer.call_tool("read_note_checked", json!({"id": 9})).await;
        let (is_error, text) = outcome(&r);
        assert!(is_error && !text.contains("nonexistent"), "{r}");
        assert!(r["result"]["_meta"]["errorId"].is_string(), "{r}");
    }
}

#[tokio::test]
async fn the_in_process_client_reads_the_visible_message() {
    let server = server();
    for era in ERAS {
        let client = era.client(&server).await;
        let r = client
            .call_tool("read_note", json!({"id": 5}))
            .await
            .unwrap();
        assert!(r.is_error);
        let text = r.first_text().unwrap_or_default();
        assert!(
            text.ends_with("no note 5; list the notes to see their ids"),
            "{text}"
        );
        let r = client
            .call_tool("read_note_checked", json!({"id": 2}))
            .await
            .unwrap();
        assert!(r.is_error);
        assert!(!r.first_text().unwrap_or_default().contains("10.0.0.5"));
    }
}

#[test]
fn the_functions_still_return_their_own_errors_when_called_directly() {
    assert!(matches!(read_note(7), Err(DeskError::NoSuchNote(7))));
    let e = read_note_checked(7).unwrap_err();
    assert_eq!(
        e.message(),
        Some("no note 7; list the notes to see their ids")
    );
    assert!(read_note_checked(2).unwrap_err().is_internal());
}

/// A note, as a resource: the domain error as a tool's is.
#[resource(uri = "note://{id}", mime_type = "text/plain")]
fn note(id: String) -> Result<String, DeskError> {
    find(id.parse().unwrap_or(0))
}

/// A reply drafted from a note: the domain error as a tool's is.
#[prompt]
fn draft(id: u32) -> Result<String, DeskError> {
    find(id).map(|note| format!("Draft a reply about: {note}"))
}

#[tokio::test]
async fn resources_and_prompts_show_visible_variants_and_hide_the_others() {
    let server = Server::builder("desk", "1")
        .resources(resources![note])
        .prompts(prompts![draft])
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();

    assert!(client.read_resource("note://1").await.is_ok());
    let shown = format!("{:?}", client.read_resource("note://7").await.unwrap_err());
    assert!(
        shown.contains("no note 7; list the notes to see their ids"),
        "{shown}"
    );
    let hidden = format!("{:?}", client.read_resource("note://2").await.unwrap_err());
    assert!(
        !hidden.contains("10.0.0.5") && !hidden.contains("hunter2"),
        "{hidden}"
    );
    assert!(hidden.contains("errorId"), "{hidden}");

    assert!(client.get_prompt("draft", [("id", "1")]).await.is_ok());
    let shown = format!(
        "{:?}",
        client.get_prompt("draft", [("id", "7")]).await.unwrap_err()
    );
    assert!(
        shown.contains("no note 7; list the notes to see their ids"),
        "{shown}"
    );
    let hidden = format!(
        "{:?}",
        client.get_prompt("draft", [("id", "2")]).await.unwrap_err()
    );
    assert!(
        !hidden.contains("10.0.0.5") && !hidden.contains("hunter2"),
        "{hidden}"
    );
}
