//! Task calls as tests make them: start a tool as a task, poll it until a status.

use std::time::Duration;

use mcp_runtime::Client;
use mcp_runtime::client::started_task_id;
use serde_json::Value;

/// Calls `tool` as a task (no `ttl` asked) and returns the task's id; panics on an ordinary result.
pub async fn start(client: &Client, tool: &str, arguments: Value) -> String {
    let created = client
        .call_tool_as_task(tool, arguments, None)
        .await
        .unwrap();
    let id = started_task_id(&created);
    id.unwrap_or_else(|| panic!("not a task: {created}"))
        .to_owned()
}

/// Polls `tasks/get` every 10 ms until the task's status is `want` (within [`crate::HANG`]), and
/// returns that answer.
pub async fn wait_for(client: &Client, id: &str, want: &str) -> Value {
    let deadline = tokio::time::Instant::now() + crate::HANG;
    while tokio::time::Instant::now() < deadline {
        let task = client.get_task(id).await.unwrap();
        if task["status"] == want {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never became {want}");
}
