//! Return types: what a tool's return value publishes (outputSchema) and sends (the call result).

use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::content::{CallToolResult, Content};
use crate::error::ToolError;

/// The published output of a tool: its schema, and whether values are wrapped as `{"result": …}`.
#[derive(Debug, Clone)]
pub struct OutputSchema {
    /// The outputSchema as published (already wrapped when `wrapped`).
    pub schema: Value,
    /// True when the return type is not a JSON object, so values go out as `{"result": value}`.
    pub wrapped: bool,
}

/// A value a tool can return.
///
/// Implemented for every `T: Serialize + JsonSchema` (structured output with an outputSchema) and
/// for the content types [`Content`], [`Contents`] and [`CallToolResult`] (no outputSchema).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this return type is neither `Serialize + JsonSchema` nor a content type",
    note = "derive `serde::Serialize` and `schemars::JsonSchema` for it, or return `Content`, `Contents` or `CallToolResult`"
)]
pub trait IntoToolOutput {
    /// The outputSchema for this type, or `None` for content types.
    fn output_schema(generator: &mut SchemaGenerator) -> Option<OutputSchema>;
    /// Converts a returned value into the call result. `wrapped` is the flag computed from the schema.
    fn into_call_result(self, wrapped: bool) -> Result<CallToolResult, ToolError>;
}

impl<T: Serialize + JsonSchema> IntoToolOutput for T {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<OutputSchema> {
        Some(crate::schema::output_schema::<T>(generator))
    }

    fn into_call_result(self, wrapped: bool) -> Result<CallToolResult, ToolError> {
        let value = serde_json::to_value(&self).map_err(ToolError::internal)?;
        Ok(structured_result(value, wrapped))
    }
}

/// Builds the result for a structured value: the text block is the JSON (or the plain string).
pub(crate) fn structured_result(value: Value, wrapped: bool) -> CallToolResult {
    let text = match &value {
        Value::String(s) => s.clone(),
        // Indented like the Python SDK's text block, so both read the same to a model.
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    };
    let structured = if wrapped {
        let mut m = Map::with_capacity(1);
        m.insert("result".to_owned(), value);
        Value::Object(m)
    } else {
        value
    };
    CallToolResult {
        content: vec![Content::Text(text)],
        structured_content: Some(structured),
        is_error: false,
        meta: None,
    }
}

impl IntoToolOutput for Content {
    fn output_schema(_: &mut SchemaGenerator) -> Option<OutputSchema> {
        None
    }
    fn into_call_result(self, _: bool) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::success(vec![self]))
    }
}

/// Several content blocks returned together (`Vec<Content>` is taken by the structured blanket
/// impl's coherence rules, so a list of blocks travels in this newtype).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Contents(pub Vec<Content>);

impl From<Vec<Content>> for Contents {
    fn from(v: Vec<Content>) -> Self {
        Contents(v)
    }
}

impl IntoToolOutput for Contents {
    fn output_schema(_: &mut SchemaGenerator) -> Option<OutputSchema> {
        None
    }
    fn into_call_result(self, _: bool) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::success(self.0))
    }
}

impl IntoToolOutput for CallToolResult {
    fn output_schema(_: &mut SchemaGenerator) -> Option<OutputSchema> {
        None
    }
    fn into_call_result(self, _: bool) -> Result<CallToolResult, ToolError> {
        Ok(self)
    }
}
