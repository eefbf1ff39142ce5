//! The SSE workload's server on mcp-runtime: one tool, `step`, that reports progress once and
//! answers. Given a `progressToken`, its answer over Streamable HTTP is an event stream (the
//! progress notification, then the result). The tasks contract has no tool that reports
//! progress, so this is the smallest server that takes the event-stream path; rmcp-tasks and
//! the Python peer serve the same tool in their `progress` mode.
//!
//! `ours-progress --http ADDR` (the runtime's command line: `mcp_runtime::cli`).

use mcp_runtime::prelude::*;

/// Report progress once (1 of 1), then answer.
#[tool]
async fn step(ctx: &Context) -> String {
    ctx.progress(1.0, Some(1.0), None);
    "done".into()
}

fn main() -> std::process::ExitCode {
    match Server::builder("progress", "1.0.0")
        .tools(tools![step])
        .build()
    {
        Ok(server) => mcp_runtime::cli::run(server),
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}
