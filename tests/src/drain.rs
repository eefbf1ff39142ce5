//! The tools of the drain tests (tests/it/drain.rs, in process, and the `drain_server` binary
//! it runs): calls that are still running when the server is told to drain.

use std::time::Duration;

use mcp_runtime::prelude::*;

/// Reports progress, then answers after `ms` milliseconds.
#[tool]
pub async fn linger(ctx: &Context, ms: u64) -> String {
    ctx.progress(0.0, Some(1.0), Some("lingering"));
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("lingered {ms} ms")
}

/// Brews for `ms` milliseconds, as a task when the client takes tasks.
#[tool(task)]
pub async fn brew(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("brewed {ms} ms")
}
