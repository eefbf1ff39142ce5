//! A stdio server whose tools fail with a domain error (a thiserror enum implementing
//! `VisibleError`: one variant the model may read, one hidden behind an error id), spawned as a
//! real process by tests/it/visible_errors_stdio.rs.

use mcp_runtime::prelude::*;

/// The desk's failures.
#[derive(Debug, thiserror::Error)]
enum DeskError {
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

fn find(id: u32) -> Result<String, DeskError> {
    match id {
        1 => Ok("buy milk".into()),
        2 => Err(DeskError::Database(std::io::Error::other(
            "password 'hunter2'",
        ))),
        _ => Err(DeskError::NoSuchNote(id)),
    }
}

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
