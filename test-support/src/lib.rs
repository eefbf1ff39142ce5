//! What the workspace's tests share, so that each test file holds only what it checks:
//!
//! - [`stdio`]: a child process (or an in-memory server) spoken to in line-delimited JSON-RPC;
//! - [`http`]: a [`mcp_runtime::Server`] served on `127.0.0.1:0`, its URL and handle;
//! - [`python`]: the project's `.venv` Python with the official SDK, or a skip (a failure under
//!   `MCP_INTEROP_REQUIRED`);
//! - [`nginx`]: nginx balancing round-robin over replica processes, and its per-upstream counts;
//! - [`prometheus`]: a throwaway `prometheus` scraping some targets, and `promtool check metrics`;
//! - [`redis`]: a throwaway `redis-server` on a free port, and `redis-cli` to look into it;
//! - [`redis_cluster`]: a throwaway local Redis Cluster, and [`redis_cluster::RedisLike`], what a
//!   test body needs of either;
//! - [`desk`]: the domain error (`DeskError`) of the `VisibleError` tests, and its lookup;
//! - [`golden`]: a text compared with a committed file, a unified diff on mismatch;
//! - [`scratch`]: a folder of a test's own files, removed when the test ends;
//! - [`wait`]: polling until a condition holds, bounded in time;
//! - [`shapes`]: argument types several schema tests share (`Address`, `Tree`);
//! - [`tasks`]: the task-tracker fixture (`Priority`, `Task`, `Store`) that several tool tests use;
//! - [`task_calls`]: a tool started as a task, a task polled until a status;
//! - [`call_detached`]: a tool of a table called outside any connection;
//! - [`build_error`]: what the builder refuses for a table.

pub mod desk;
pub mod golden;
pub mod http;
pub mod nginx;
pub mod prometheus;
pub mod python;
pub mod redis;
pub mod redis_cluster;
pub mod rng;
pub mod scratch;
pub mod shapes;
pub mod stdio;
pub mod task_calls;
pub mod tasks;
pub mod treacherous;
pub mod wait;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::{CallToolResult, Context, StateMap, ToolTable};
use serde_json::Value;

/// A safety net, not a timing assertion: a test that waits this long has hung.
pub const HANG: Duration = Duration::from_secs(30);

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support sits in the repository's root")
        .to_path_buf()
}

/// Calls the tool `name` of `table` with `args` and a detached context (no client behind it); a
/// protocol error panics.
pub async fn call_detached(
    table: &ToolTable,
    state: &Arc<StateMap>,
    name: &str,
    args: Value,
) -> CallToolResult {
    table
        .call(state, Context::detached(name), name, Some(args))
        .await
        .unwrap_or_else(|e| panic!("{name}: protocol error {e}"))
}

/// What `ServerBuilder::build` refuses for a server of `tools` alone (it must refuse).
pub fn build_error(tools: mcp_runtime::ToolTable) -> mcp_runtime::BuildError {
    mcp_runtime::Server::builder("t", "1")
        .tools(tools)
        .build()
        .expect_err("the build must fail")
}

/// Whether `server` declares the `prompts` and `completions` capabilities to a client that
/// completed the handshake, and what that client gets for `method` with `params` (the code of
/// the error when it fails).
pub async fn declares(
    server: &mcp_runtime::Server,
    method: &str,
    params: Value,
) -> (bool, bool, Result<Value, Option<i64>>) {
    let client = mcp_runtime::Client::in_process(server)
        .await
        .expect("an in-process client connects");
    let caps = &client.session().expect("a session").capabilities;
    let declared = |k: &str| caps.get(k).is_some();
    let (prompts, completions) = (declared("prompts"), declared("completions"));
    let answer = client.request(method, params).await;
    (
        prompts,
        completions,
        answer.map_err(|e| e.protocol().map(|p| p.code)),
    )
}
