//! `tools/list` and `tools/call` (the caller's scope,
//! concurrency slots, timeouts, cancellation) on top of the tool table's call path.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use serde_json::{Value, json};

use super::scope::until_input_needed;
use super::{Outcome, Scope, Server};
use crate::context::Context;
use crate::context::connection::{CancelToken, Connection};
use crate::error::ProtocolError;
use crate::protocol::{Page, Request};
use crate::tool::call::{Checked, run};
use crate::tool::content::CallToolResult;

impl Server {
    pub(super) fn list_tools(&self, req: &Request) -> Result<Page, ProtocolError> {
        self.page(req, "tools", self.inner.tools.listing())
    }

    pub(super) async fn call_tool(
        &self,
        req: &mut Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
    ) -> Outcome {
        // The arguments move into the call; the rest of the params is only read.
        let arguments = req.params.as_mut().and_then(|p| p.arguments.take());
        let params = req.params.as_deref();
        let Some(name) = params.and_then(|p| p.name.as_ref()).and_then(Value::as_str) else {
            // The message is the Python SDK's exact text; the reason travels in `data`.
            return Outcome::Answer(Err(ProtocolError::invalid_params(
                "Invalid request parameters",
            )
            .with_data(json!({"reason": "tools/call needs a string `name`"}))));
        };
        if arguments
            .as_ref()
            .is_some_and(|a| !a.is_object() && !a.is_null())
        {
            return Outcome::Answer(Err(ProtocolError::invalid_params(
                "Invalid request parameters",
            )
            .with_data(json!({"reason": "tools/call `arguments` must be an object"}))));
        }
        let plan = match self.task_plan(name, params, &scope) {
            Ok(plan) => plan,
            Err(e) => return Outcome::Answer(Err(e)),
        };
        let task = plan.as_ref().and_then(|p| self.prepare_task(p, conn));
        if let (Some(plan), Some(task)) = (plan, task) {
            // A task outlives its request: only `tasks/cancel` (or its expiry) cancels it.
            let input = Some(task.clone() as Arc<dyn crate::context::task::TaskInput>);
            let request_scope = self.request_scope(req, conn, &task.cancel, scope, input);
            // A known tool's name is its spec's: no copy per call.
            let tool_name = match self.inner.tools.get(name) {
                Some(tool) => Cow::Borrowed(tool.name()),
                None => Cow::Owned(name.to_owned()),
            };
            let ctx = Context::attached(tool_name, req.id.to_json(), request_scope.clone());
            // No slot and no call timeout: a task's limits are its count and its `ttl`.
            let server = self.clone();
            let name = name.to_owned();
            let call = async move {
                let inner = &server.inner;
                let unknown = inner.options.unknown_tool;
                (inner
                    .tools
                    .call_output(&inner.state, ctx, &name, arguments, unknown))
                .await
            };
            let scope = &request_scope;
            // Boxed: the call's own path stays small (`Server::request`).
            return Box::pin(self.call_as_task(plan, task, call.boxed(), scope)).await;
        }

        // What runs no user code (an unknown tool, arguments the schema refuses) is answered
        // before anything is set up for the call: no scope, context, slot or timeout (they cost
        // a rejected call about 2,000 instructions, callgrind), and a rejection never waits for
        // a slot.
        let unknown = self.inner.options.unknown_tool;
        let (tool, args) = match self.inner.tools.check_call(name, arguments, unknown) {
            Checked::Ready(tool, args) => (tool, args),
            Checked::Answered(Ok(output)) => return Outcome::Called(output, None),
            Checked::Answered(Err(e)) => return Outcome::Answer(Err(e)),
        };
        let request_scope = self.request_scope(req, conn, cancel, scope, None);
        let tool_name = Cow::Borrowed(tool.name());
        let ctx = Context::attached(tool_name, req.id.to_json(), request_scope.clone());

        // A slot first (waiting is not running: the timeout starts once the tool does).
        let _permit = match &self.inner.call_slots {
            Some(slots) => match slots.clone().acquire_owned().await {
                Ok(p) => Some(p),
                Err(_) => return Outcome::Answer(Err(ProtocolError::internal("server closed"))),
            },
            None => None,
        };
        let call = run(tool, self.inner.state.clone(), ctx, args);
        let call: Pin<Box<dyn Future<Output = _> + Send>> = match self.inner.options.call_timeout {
            None => Box::pin(call),
            Some(limit) => Box::pin(async move {
                match tokio::time::timeout(limit, call).await {
                    Ok(r) => r,
                    Err(_) => {
                        tracing::warn!(tool = name, ?limit, "tool call timed out");
                        Ok(CallToolResult::error_text(format!(
                            "Error executing tool {name}: timed out after {}",
                            format_duration(limit)
                        ))
                        .into())
                    }
                }
            }),
        };
        match until_input_needed(&request_scope, call).await {
            Ok(Ok(result)) => Outcome::Called(result, None),
            Ok(Err(e)) => Outcome::Answer(Err(e)),
            Err(input_required) => Outcome::Answer(Ok(input_required)),
        }
    }
}

/// `2s`, `1.5s`, `250ms`.
fn format_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::format_duration;
    use std::time::Duration;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }
}
