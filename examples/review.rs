//! A code-review assistant that borrows the client's model and workspace: `summarize` asks the
//! client's model (sampling) to summarize code for a reviewer; `workspace_roots` returns the
//! directories the client opened (roots). Both work in either protocol era: a request to the
//! client in the handshake era, an `input_required` round trip in the stateless 2026-07-28 era.
//!
//! Run over stdio: `cargo run -p examples --bin review`; over HTTP: add `-- --http 127.0.0.1:8080`.

use mcp_runtime::prelude::*;
use mcp_runtime::{CreateMessageRequest, SamplingMessage};

/// The client's roots, by URI.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceRoots {
    /// The URI of each root, in the client's order.
    pub roots: Vec<String>,
}

/// Summarize a piece of code for a reviewer, with the client's model.
#[tool(read_only)]
pub async fn summarize(
    ctx: &Context,
    #[arg(min_length = 1, description = "The code to summarize")] text: String,
) -> Result<String, ToolError> {
    let request = CreateMessageRequest::new(300)
        .system_prompt("Summarize this code for a reviewer")
        .message(SamplingMessage::user(text));
    let answer = ctx
        .sample(request)
        .await
        .map_err(|e| ToolError::new(format!("cannot summarize: {e}")))?;
    answer
        .text_content()
        .ok_or_else(|| ToolError::new("the client's model answered without text"))
}

/// The workspace roots the client shares, as URIs.
#[tool(read_only)]
pub async fn workspace_roots(ctx: &Context) -> Result<WorkspaceRoots, ToolError> {
    let roots = ctx
        .roots()
        .await
        .map_err(|e| ToolError::new(format!("cannot list the workspace: {e}")))?;
    Ok(WorkspaceRoots {
        roots: roots.into_iter().map(|r| r.uri).collect(),
    })
}

/// The server: two tools that ask the client.
pub fn server() -> Server {
    Server::builder("Review", "1.0.0")
        .description("A code-review assistant that asks the client's model and workspace")
        .tools(tools![summarize, workspace_roots])
        // A client that changes its roots says so (handshake era): read and log the new ones.
        .on_roots_changed(|changed| async move {
            match changed.roots().await {
                Ok(roots) => {
                    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
                    tracing::info!(roots = ?uris, "the client's workspace roots changed");
                }
                Err(e) => tracing::warn!("the client's workspace roots changed, unread: {e}"),
            }
        })
        .build()
        .unwrap_or_else(|e| panic!("the server cannot be built: {e}"))
}

fn main() -> std::process::ExitCode {
    examples::init_logging();
    mcp_runtime::cli::run(server())
}
