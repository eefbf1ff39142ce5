//! The `prompts/get` path: string arguments read into the parameters' types, validated like a
//! tool's, the body run with its panics contained, and its messages or its error.
//!
//! Arguments are strings on the wire. An argument whose type takes a string (a `String`, a
//! string enum…) receives the text as is; any other (a number, a bool, a list) reads the text as
//! JSON, `"3"` as `3`. Text that is not JSON stays a string, so the validator rejects it with the
//! argument's name and the rule it breaks (`/count: must be integer`), as it does any other value.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::context::Context;
use crate::error::{ProtocolError, ToolErrorKind};
use crate::prompt::complete::{CompleteRequest, completion_result, filter_prefix, run_completer};
use crate::prompt::message::GetPromptResult;
use crate::prompt::spec::Prompt;
use crate::tool::handler::CallParts;
use crate::tool::panic::{catch, next_error_id};
use crate::tool::state::StateMap;
use crate::validate::format_violations_of;

impl Prompt {
    /// The validated arguments of a `prompts/get`: -32602 naming each bad argument and its rule.
    pub(crate) fn read_arguments(
        &self,
        arguments: Option<&Value>,
    ) -> Result<Map<String, Value>, ProtocolError> {
        let given = match arguments {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return Err(ProtocolError::invalid_params(
                    "Invalid params: prompts/get `arguments` must be an object of strings",
                ));
            }
        };
        let mut args = Map::new();
        for (name, value) in given {
            let Value::String(text) = value else {
                return Err(ProtocolError::invalid_params(format!(
                    "Invalid arguments for prompt {}: /{name}: must be a string (prompt arguments are strings)",
                    self.name()
                )));
            };
            let string_like = self
                .arguments
                .iter()
                .find(|a| a.name == name)
                .is_none_or(|a| a.string_like);
            let value = if string_like {
                Value::String(text)
            } else {
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            };
            args.insert(name, value);
        }
        let mut args = Value::Object(args);
        let violations = self.validator.validate(&mut args);
        if !violations.is_empty() {
            let fields: Vec<&str> = violations.iter().map(|v| v.path.as_str()).collect();
            tracing::debug!(prompt = self.name(), ?fields, "rejected prompt arguments");
            return Err(ProtocolError::invalid_params(format_violations_of(
                "prompt",
                self.name(),
                &violations,
            )));
        }
        let Value::Object(args) = args else {
            unreachable!("an object stays an object")
        };
        Ok(args)
    }

    /// Renders the prompt: validates, runs the body (panics contained), and turns its error into
    /// a JSON-RPC error (a visible message as -32603 with the text, anything unexpected hidden
    /// behind an error id).
    pub(crate) async fn render(
        &self,
        state: Arc<StateMap>,
        ctx: Context,
        arguments: Option<&Value>,
    ) -> Result<Value, ProtocolError> {
        let args = self.read_arguments(arguments)?;
        let parts = CallParts { args, ctx, state };
        let name = self.name();
        let hidden = |id: String| {
            ProtocolError::internal(format!("Error rendering prompt {name}"))
                .with_data(json!({"errorId": id}))
        };
        let result: GetPromptResult = match catch((self.spec.handler)(parts)).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => {
                return Err(match e.kind {
                    ToolErrorKind::Visible(m) => {
                        ProtocolError::internal(format!("Error rendering prompt {name}: {m}"))
                    }
                    ToolErrorKind::Raw(text) => ProtocolError::invalid_params(text),
                    ToolErrorKind::Protocol(p) => p,
                    ToolErrorKind::Internal(e) => {
                        let id = next_error_id();
                        tracing::error!(prompt = name, error_id = %id, "prompt raised an unexpected error: {e}");
                        hidden(id)
                    }
                });
            }
            Err(panic) => {
                let id = next_error_id();
                tracing::error!(prompt = name, error_id = %id, "prompt panicked at {}: {}", panic.location, panic.message);
                return Err(hidden(id));
            }
        };
        let mut json = result.to_json();
        if result.description.is_none() {
            json["description"] = self.spec.description.into();
        }
        Ok(json)
    }

    /// The values that complete `request`'s argument: its `complete = fn`, else the argument's
    /// fixed string values that start with what was typed; none for any other argument.
    pub(crate) async fn complete(&self, request: CompleteRequest) -> Result<Value, ProtocolError> {
        let Some(arg) = self.arguments.iter().find(|a| a.name == request.argument) else {
            return Err(ProtocolError::invalid_params(format!(
                "Invalid params: prompt {} has no argument `{}`",
                self.name(),
                request.argument
            )));
        };
        let completer = self
            .completers
            .iter()
            .find(|(n, _)| *n == arg.name)
            .map(|(_, f)| *f);
        let values = match completer {
            None => filter_prefix(&arg.choices, &request.value),
            Some(f) => run_completer("prompt", self.name(), &arg.name, f(request)).await?,
        };
        Ok(completion_result(values))
    }
}
