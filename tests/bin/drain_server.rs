//! A server for the drain tests (tests/it/drain.rs), served by `mcp_runtime::cli::run`: stdio,
//! or `--http ADDR`; SIGTERM drains it (`--drain-timeout SECS`). `linger` reports progress and
//! answers after `ms` milliseconds; `brew` is a task tool that takes `ms` too (both in
//! `integration_tests::drain`, which the in-process drain tests serve as well).

use integration_tests::drain::{brew, linger};
use mcp_runtime::prelude::*;

fn main() -> std::process::ExitCode {
    let server = Server::builder("drain", "1.0.0")
        .tools(tools![linger, brew])
        .build()
        .expect("a valid server");
    mcp_runtime::cli::run(server)
}
