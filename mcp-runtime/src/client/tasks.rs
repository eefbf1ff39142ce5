//! Task calls: call a tool as a task, then poll, wait on, answer, cancel and list tasks, in
//! either era (see `server/tasks.rs` for what each era sends).

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{Client, ClientError};
use crate::protocol::stateless::CLIENT_CAPABILITIES_KEY;

/// The tasks extension's id (2026-07-28).
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The id of the task a `tools/call` answer started, in either era's shape (`{"task": {…}}` or a
/// flat `resultType: "task"` result); `None` for an ordinary result.
pub fn started_task_id(result: &Value) -> Option<&str> {
    result
        .get("task")
        .and_then(|t| t.get("taskId"))
        .or_else(|| {
            (result.get("resultType").and_then(Value::as_str) == Some("task"))
                .then(|| result.get("taskId"))
                .flatten()
        })
        .and_then(Value::as_str)
}

impl Client {
    /// Calls `name` as a task and returns the server's answer as sent. Handshake era
    /// (2025-11-25): asks with `task` (`ttl` when given) and gets `{"task": {…}}`. Stateless era:
    /// declares the tasks extension for this request; the server answers a task
    /// (`resultType: "task"`), or an ordinary result when the call ended at once.
    /// [`started_task_id`] reads the id from either.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<Duration>,
    ) -> Result<Value, ClientError> {
        let mut params = json!({"name": name, "arguments": arguments});
        if self.inner.stateless() {
            self.declare_tasks(&mut params);
        } else {
            params["task"] = match ttl {
                Some(ttl) => json!({"ttl": ttl.as_millis() as u64}),
                None => json!({}),
            };
        }
        self.request("tools/call", params).await
    }

    /// `tasks/get`: the task's status (and, stateless, its result, error or questions).
    pub async fn get_task(&self, task_id: &str) -> Result<Value, ClientError> {
        self.task_request("tasks/get", json!({"taskId": task_id}))
            .await
    }

    /// The task's `tools/call` result once it ends. Handshake era: `tasks/result`, which waits.
    /// Stateless era: `tasks/get` every `pollIntervalMs` until the task ends; a failed task's
    /// error comes back as [`ClientError::Protocol`].
    pub async fn task_result(&self, task_id: &str) -> Result<Value, ClientError> {
        if !self.inner.stateless() {
            return self
                .request("tasks/result", json!({"taskId": task_id}))
                .await;
        }
        loop {
            let task = self.get_task(task_id).await?;
            match task.get("status").and_then(Value::as_str) {
                Some("completed") => return Ok(task["result"].clone()),
                Some("failed") => {
                    let e = &task["error"];
                    return Err(ClientError::Protocol(crate::ProtocolError {
                        code: e["code"].as_i64().unwrap_or(-32603),
                        message: e["message"].as_str().unwrap_or_default().to_owned(),
                        data: e.get("data").cloned(),
                    }));
                }
                Some("cancelled") => {
                    return Err(ClientError::InvalidResult("the task was cancelled".into()));
                }
                _ => {
                    let wait = task.get("pollIntervalMs").and_then(Value::as_u64);
                    tokio::time::sleep(Duration::from_millis(wait.unwrap_or(100).min(1000))).await;
                }
            }
        }
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<Value, ClientError> {
        self.task_request("tasks/cancel", json!({"taskId": task_id}))
            .await
    }

    /// `tasks/list` (handshake era): one page of this session's tasks.
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<Value, ClientError> {
        let params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        self.request("tasks/list", params).await
    }

    /// `tasks/update` (stateless era): answers the task's questions, by key.
    pub async fn update_task(
        &self,
        task_id: &str,
        input_responses: Map<String, Value>,
    ) -> Result<Value, ClientError> {
        let params = json!({"taskId": task_id, "inputResponses": input_responses});
        self.task_request("tasks/update", params).await
    }

    async fn task_request(&self, method: &str, mut params: Value) -> Result<Value, ClientError> {
        if self.inner.stateless() {
            self.declare_tasks(&mut params);
        }
        self.request(method, params).await
    }

    /// Adds the tasks extension to this request's capabilities (stateless era).
    fn declare_tasks(&self, params: &mut Value) {
        let mut caps = self.inner.capabilities.clone();
        caps["extensions"][TASKS_EXTENSION] = json!({});
        params["_meta"] = json!({ CLIENT_CAPABILITIES_KEY: caps });
    }
}
