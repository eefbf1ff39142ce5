//! A server for the drain tests (tests/it/drain.rs), served by `mcp_runtime::cli::run`: stdio,
//! or `--http ADDR`; SIGTERM drains it (`--drain-timeout SECS`). `linger` reports progress and
//! answers after `ms` milliseconds; `brew` is a task tool that takes `ms` too.

use std::time::Duration;

use mcp_runtime::prelude::*;

/// Reports progress, then answers after `ms` milliseconds.
#[tool]
async fn linger(ctx: &Context, ms: u64) -> String {
    ctx.progress(0.0, Some(1.0), Some("lingering"));
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("lingered {ms} ms")
}

/// Brews for `ms` milliseconds, as a task when the client takes tasks.
#[tool(task)]
async fn brew(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("brewed {ms} ms")
}

fn main() -> std::process::ExitCode {
    let server = Server::builder("drain", "1.0.0")
        .tools(tools![linger, brew])
        .build()
        .expect("a valid server");
    mcp_runtime::cli::run(server)
}
