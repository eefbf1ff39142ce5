//! The in-process call path: table + state + JSON arguments → call result. Every transport ends
//! here, so validation, error hiding and panic capture behave the same everywhere.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{ProtocolError, ToolErrorKind};
use crate::tool::content::{CallToolResult, Content};
use crate::tool::handler::CallParts;
use crate::tool::output::{ToolOutput, hidden};
use crate::tool::panic::{catch, next_error_id};
use crate::tool::spec::Tool;
use crate::tool::state::StateMap;
use crate::tool::table::ToolTable;
use crate::validate::{Violation, format_violations};

/// What an unknown tool name gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UnknownToolPolicy {
    /// An `isError: true` result: a first text block `Unknown tool: <name>` (the Python SDK's text)
    /// and a second one listing the valid names.
    #[default]
    ToolResult,
    /// A -32602 protocol error, as the specification describes.
    ProtocolError,
}

impl ToolTable {
    /// Calls a tool the way `tools/call` does: validates, runs, converts, hides internal failures.
    ///
    /// `arguments` may be `None` or `null` (no arguments); anything but an object is a -32602 error.
    pub async fn call(
        &self,
        state: &Arc<StateMap>,
        ctx: Context,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<CallToolResult, ProtocolError> {
        self.call_with(state, ctx, name, arguments, UnknownToolPolicy::default())
            .await
    }

    /// [`ToolTable::call`] with an explicit unknown-tool policy.
    pub async fn call_with(
        &self,
        state: &Arc<StateMap>,
        ctx: Context,
        name: &str,
        arguments: Option<Value>,
        unknown: UnknownToolPolicy,
    ) -> Result<CallToolResult, ProtocolError> {
        self.call_output(state, ctx, name, arguments, unknown)
            .await
            .map(ToolOutput::into_call_result)
    }

    /// [`ToolTable::call_with`], the result still as the handler produced it (a structured
    /// value still typed).
    pub(crate) async fn call_output(
        &self,
        state: &Arc<StateMap>,
        ctx: Context,
        name: &str,
        arguments: Option<Value>,
        unknown: UnknownToolPolicy,
    ) -> Result<ToolOutput, ProtocolError> {
        match self.check_call(name, arguments, unknown) {
            Checked::Ready(tool, args) => run(tool, state.clone(), ctx, args).await,
            Checked::Answered(answer) => answer,
        }
    }

    /// The part of a call that runs no user code: the tool looked up and its arguments checked
    /// against its schema. What fails here is answered at once, so the server answers it
    /// before it sets anything up for the call (its scope, context, slot and timeout).
    pub(crate) fn check_call(
        &self,
        name: &str,
        arguments: Option<Value>,
        unknown: UnknownToolPolicy,
    ) -> Checked<'_> {
        let Some(tool) = self.get(name) else {
            tracing::info!(tool = name, "unknown tool");
            // The first block is exactly the Python SDK's text; the second lists the valid names
            // so that a model that guessed a name can pick a real one.
            let unknown_text = format!("Unknown tool: {name}");
            let valid_text = format!("Valid tools: {}", self.names().join(", "));
            return Checked::Answered(match unknown {
                UnknownToolPolicy::ToolResult => Ok(CallToolResult {
                    content: vec![Content::text(unknown_text), Content::text(valid_text)],
                    is_error: true,
                    ..Default::default()
                }
                .into()),
                UnknownToolPolicy::ProtocolError => Err(ProtocolError::invalid_params(format!(
                    "{unknown_text}. {valid_text}"
                ))),
            });
        };
        let mut args = match arguments {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => {
                return Checked::Answered(Err(ProtocolError::invalid_params(
                    "tools/call arguments must be an object",
                )));
            }
        };
        let violations = tool.validator.validate(&mut args);
        if !violations.is_empty() {
            return Checked::Answered(Ok(rejected(tool.name(), &violations).into()));
        }
        let Value::Object(args) = args else {
            unreachable!("checked above")
        };
        Checked::Ready(tool, args)
    }
}

/// A call after [`ToolTable::check_call`].
pub(crate) enum Checked<'t> {
    /// A known tool with arguments that meet its schema: its handler runs next.
    Ready(&'t Tool, Map<String, Value>),
    /// The answer already: an unknown tool, or arguments the schema refuses.
    Answered(Result<ToolOutput, ProtocolError>),
}

/// The result for arguments that break the schema; the log names the fields, never the values.
fn rejected(tool: &str, violations: &[Violation]) -> CallToolResult {
    tracing::info!(tool, fields = ?Fields(violations), "rejected arguments");
    CallToolResult::error_text(format_violations(tool, violations))
}

/// The paths of `violations` as a list, a path repeated in a row written once: built only when
/// the log is written (a list collected up front cost every rejected call an allocation).
struct Fields<'a>(&'a [Violation]);

impl fmt::Debug for Fields<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        let mut last = None;
        for path in self.0.iter().map(|v| v.path.as_str()) {
            if last != Some(path) {
                list.entry(&path);
            }
            last = Some(path);
        }
        list.finish()
    }
}

/// Runs a tool's handler with validated arguments, catching panics. A structured result is
/// told its tool and whether its output is wrapped (the tool's outputSchema says).
pub(crate) async fn run(
    tool: &Tool,
    state: Arc<StateMap>,
    ctx: Context,
    args: Map<String, Value>,
) -> Result<ToolOutput, ProtocolError> {
    let parts = CallParts { args, ctx, state };
    let fut = (tool.spec.handler)(parts);
    let outcome = catch(fut).await;
    let name = tool.name();
    match outcome {
        Ok(Ok(result)) => {
            let wrapped = tool.output.as_ref().is_some_and(|o| o.wrapped);
            Ok(result.of_tool(name, wrapped))
        }
        Ok(Err(error)) => match error.kind {
            ToolErrorKind::Visible(message) => {
                tracing::info!(tool = name, "tool failed: {message}");
                Ok(
                    CallToolResult::error_text(format!("Error executing tool {name}: {message}"))
                        .into(),
                )
            }
            ToolErrorKind::Raw(text) => Ok(CallToolResult::error_text(text).into()),
            ToolErrorKind::Protocol(p) => {
                tracing::info!(
                    tool = name,
                    code = p.code,
                    "tool raised a protocol error: {}",
                    p.message
                );
                Err(p)
            }
            ToolErrorKind::Internal(e) => {
                let id = next_error_id();
                // The message is the chain of causes; `details` is the error's `Debug`, which
                // for `anyhow`/`eyre` holds their context and a backtrace when one was captured.
                tracing::error!(tool = name, error_id = %id, details = ?e, "tool raised an unexpected error: {}", error_chain(&*e));
                Ok(hidden(name, &id).into())
            }
        },
        Err(panic) => {
            let id = next_error_id();
            tracing::error!(tool = name, error_id = %id, "tool panicked at {}: {}", panic.location, panic.message);
            Ok(hidden(name, &id).into())
        }
    }
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log's list names each rejected field once per run of violations at it, in order, as
    /// the list collected and deduplicated before did.
    #[test]
    fn rejected_fields_are_listed_once_per_run() {
        let at = |path: &str| Violation {
            path: path.to_owned(),
            message: "must be something".to_owned(),
        };
        let violations = [at("/a"), at("/a"), at("/b"), at("/a"), at("")];
        assert_eq!(
            format!("{:?}", Fields(&violations)),
            r#"["/a", "/b", "/a", ""]"#
        );
        assert_eq!(format!("{:?}", Fields(&[])), "[]");
    }
}
