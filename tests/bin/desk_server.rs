//! A stdio server whose tools fail with a domain error (`test_support::desk`, a thiserror enum implementing
//! `VisibleError`: one variant the model may read, one hidden behind an error id), spawned as a
//! real process by tests/it/visible_errors_stdio.rs.

use mcp_runtime::prelude::*;
use test_support::desk::{DeskError, find};

/// Read a note by its id.
#[tool]
fn read_note(id: u32) -> Result<String, DeskError> {
    find(id)
}

/// Read a note by its id, inside a `ToolError` tool: `?` keeps the domain error's visibility.
#[tool]
fn read_note_checked(id: u32) -> Result<String, ToolError> {
    let text = find(id)?;
    Ok(text)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    Server::builder("desk", "1.0.0")
        .tools(tools![read_note, read_note_checked])
        .build()
        .unwrap_or_else(|e| panic!("the server cannot be built: {e}"))
        .serve_stdio()
        .await
}
