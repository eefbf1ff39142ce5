//! Return types: what a tool's return value publishes (outputSchema) and sends (the call result).

use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::ToolError;
pub use crate::schema::OutputSchema;
use crate::tool::content::{CallToolResult, Content};

/// A value a tool can return.
///
/// Implemented for every `T: Serialize + JsonSchema` (structured output with an outputSchema) and
/// for the content types [`Content`], [`Contents`] and [`CallToolResult`] (no outputSchema).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this return type is neither `Serialize + JsonSchema` nor a content type",
    note = "derive `serde::Serialize` and `schemars::JsonSchema` for it, or return `Content`, `Contents` or `CallToolResult`",
    note = "if it derives `JsonSchema` already, that derive must come from schemars 1.x (the one `mcp_runtime::schemars` re-exports): a `JsonSchema` of another major version is another trait",
    note = "a type of another crate (chrono's `DateTime`, uuid's `Uuid`, …) cannot derive it here: turn on mcp-runtime's feature for its crate, named as schemars names it: chrono → `chrono04`, uuid → `uuid1`, url → `url2`, jiff → `jiff02`, rust_decimal → `rust_decimal1`, bigdecimal → `bigdecimal04`, indexmap → `indexmap2`, smallvec → `smallvec1`, arrayvec → `arrayvec07`, bytes → `bytes1`, semver → `semver1`, either → `either1`, smol_str → `smol_str02` (`cargo add mcp-runtime --features uuid1`); for any other, write `#[schemars(with = \"String\")]` on the field that holds it"
)]
pub trait IntoToolOutput {
    /// The outputSchema for this type, or `None` for content types.
    fn output_schema(generator: &mut SchemaGenerator) -> Option<OutputSchema>;
    /// Converts a returned value into the call result. `wrapped` is the flag computed from the schema.
    fn into_call_result(self, wrapped: bool) -> Result<CallToolResult, ToolError>;

    /// What the server sends for a returned value: [`IntoToolOutput::into_call_result`] unless
    /// the type can be written more directly for the one who takes it ([`OutputForm::wire`]).
    #[doc(hidden)]
    fn into_tool_output(self, form: OutputForm) -> Result<ToolOutput, ToolError>
    where
        Self: Sized,
    {
        self.into_call_result(form.wrapped).map(ToolOutput::from)
    }
}

/// What a generated handler makes of the value its tool returned: the shape of structured
/// output, and the form it is kept in for the one who takes the result.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutputForm {
    /// Structured output is wrapped as `{"result": …}` (the flag computed from the schema).
    pub wrapped: bool,
    /// The result goes to a transport that writes it as bytes: structured output is kept as
    /// the text it is written as. Otherwise (`ToolTable::call`, a task's stored result) it is
    /// built as the [`CallToolResult`] the caller takes, with no text to parse back.
    pub wire: bool,
}

impl OutputForm {
    /// The form a transport takes.
    pub(crate) fn for_wire(wrapped: bool) -> Self {
        OutputForm {
            wrapped,
            wire: true,
        }
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutput for T {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<OutputSchema> {
        Some(crate::schema::output_schema::<T>(generator))
    }

    /// The value serialized once into a `Value`: `structuredContent`, and the text block its
    /// indented JSON (a string goes out as itself).
    fn into_call_result(self, wrapped: bool) -> Result<CallToolResult, ToolError> {
        let value = match serde_json::to_value(&self) {
            Ok(value) => value,
            // What a `Value` cannot hold but JSON text can (an integer beyond 64 bits) is
            // written as the wire writes it and read back, so that both paths answer alike.
            Err(_) => {
                return self
                    .into_tool_output(OutputForm::for_wire(wrapped))
                    .map(ToolOutput::into_call_result);
            }
        };
        let text = match &value {
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).map_err(ToolError::internal)?,
        };
        let structured = if wrapped {
            let mut m = Map::with_capacity(1);
            m.insert("result".to_owned(), value);
            Value::Object(m)
        } else {
            value
        };
        Ok(CallToolResult {
            content: vec![Content::Text(text)],
            structured_content: Some(structured),
            is_error: false,
            meta: None,
        })
    }

    /// For the wire: serializes the value straight from `T`, twice: compact for
    /// `structuredContent`, and indented for the text block, written already quoted and escaped
    /// as the answer carries it ([`crate::tool::text`]). No `Value` tree is built.
    fn into_tool_output(self, form: OutputForm) -> Result<ToolOutput, ToolError> {
        if !form.wire {
            return self.into_call_result(form.wrapped).map(ToolOutput::from);
        }
        let wrapped = form.wrapped;
        // A `String`, not a `RawValue`: `to_raw_value` would shrink its buffer to fit (a
        // reallocation and a copy per call) and wrap it by a second serialization.
        let compact = serde_json::to_string(&self).map_err(ToolError::internal)?;
        let text = if compact.starts_with('"') {
            // A string goes out as itself, not as JSON: its JSON is the text block's.
            compact.clone()
        } else {
            crate::tool::text::quoted_pretty_json(&self).map_err(ToolError::internal)?
        };
        let structured = if wrapped {
            ["{\"result\":", &compact, "}"].concat()
        } else {
            compact
        };
        Ok(ToolOutput(Output::Structured { text, structured }))
    }
}

/// What a tool produced, on its way to the wire. Built by the generated handlers; the public
/// face of a result is [`CallToolResult`] ([`ToolOutput::into_call_result`]).
#[doc(hidden)]
#[derive(Debug)]
pub struct ToolOutput(Output);

#[derive(Debug)]
enum Output {
    Result(CallToolResult),
    /// Structured output, already serialized: the text block's text as a JSON string (quoted
    /// and escaped, written into an answer as it is) and the `structuredContent`.
    Structured {
        text: String,
        structured: String,
    },
}

impl ToolOutput {
    /// The result as a [`CallToolResult`].
    pub fn into_call_result(self) -> CallToolResult {
        match self.0 {
            Output::Result(r) => r,
            Output::Structured { text, structured } => CallToolResult {
                content: vec![Content::Text(
                    serde_json::from_str(&text).unwrap_or_default(),
                )],
                structured_content: Some(serde_json::from_str(&structured).unwrap_or(Value::Null)),
                is_error: false,
                meta: None,
            },
        }
    }
}

impl ToolOutput {
    /// `Some` for an `isError` result, with its `_meta.errorId` when it is a hidden failure.
    pub(crate) fn error(&self) -> Option<Option<&str>> {
        match &self.0 {
            Output::Result(r) if r.is_error => Some(
                r.meta
                    .as_ref()
                    .and_then(|m| m.get("errorId"))
                    .and_then(Value::as_str),
            ),
            _ => None,
        }
    }
}

impl From<CallToolResult> for ToolOutput {
    fn from(r: CallToolResult) -> Self {
        ToolOutput(Output::Result(r))
    }
}

impl ToolOutput {
    /// Writes the result's members into an open map, all but its `_meta`, which it returns for
    /// the caller to write (as is, or with more in it). The order is [`CallToolResult`]'s.
    pub(crate) fn serialize_members<M: SerializeMap>(
        &self,
        m: &mut M,
    ) -> Result<Option<&Map<String, Value>>, M::Error> {
        match &self.0 {
            Output::Result(r) => {
                m.serialize_entry("content", &r.content)?;
                if let Some(s) = &r.structured_content {
                    m.serialize_entry("structuredContent", s)?;
                }
                if r.is_error {
                    m.serialize_entry("isError", &true)?;
                }
                Ok(r.meta.as_ref())
            }
            Output::Structured { text, structured } => {
                m.serialize_entry("content", &[TextBlock(text)])?;
                m.serialize_entry("structuredContent", &Json(structured))?;
                Ok(None)
            }
        }
    }
}

impl ToolOutput {
    /// A structured result's text block (a JSON string, quoted and escaped) and
    /// `structuredContent`, as they are written: for a writer of bytes to copy as they are
    /// ([`crate::server::Reply`]'s writer). `None` for any other result.
    pub(crate) fn written_parts(&self) -> Option<(&str, &str)> {
        match &self.0 {
            Output::Structured { text, structured } => Some((text, structured)),
            Output::Result(_) => None,
        }
    }
}

/// A text block whose text is held as a JSON string: what [`Content::Text`] writes.
struct TextBlock<'a>(&'a str);

impl Serialize for TextBlock<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text: String = serde_json::from_str(self.0).map_err(serde::ser::Error::custom)?;
        Content::Text(text).serialize(serializer)
    }
}

/// JSON text that serde_json wrote, written as it is (checked by serde_json on the way, as a
/// borrowed `RawValue`: this is the general path, not a transport's).
struct Json<'a>(&'a str);

impl Serialize for Json<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(self.0).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// The same members, in the same order, as [`CallToolResult`]'s serialization.
impl Serialize for ToolOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        if let Some(meta) = self.serialize_members(&mut m)? {
            m.serialize_entry("_meta", meta)?;
        }
        m.end()
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, JsonSchema)]
    struct Task {
        id: String,
        title: String,
        done: bool,
        tags: Vec<String>,
        score: Option<f64>,
    }

    fn task() -> Task {
        Task {
            id: "T-1".into(),
            title: "Quote \" and newline\n and é".into(),
            done: false,
            tags: vec!["a".into(), "b".into()],
            score: Some(0.5),
        }
    }

    /// The result as a `Value` says it should be: the text block is the indented JSON (a string
    /// goes out as itself), `structuredContent` the value, wrapped as `{"result": …}` if asked.
    fn via_value<T: Serialize>(v: &T, wrapped: bool) -> CallToolResult {
        let value = serde_json::to_value(v).unwrap();
        let text = match &value {
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap(),
        };
        CallToolResult {
            content: vec![Content::Text(text)],
            structured_content: Some(if wrapped {
                json!({"result": value})
            } else {
                value
            }),
            is_error: false,
            meta: None,
        }
    }

    /// The direct path writes exactly what the `Value` path would write, and reads back the same.
    fn same<T: Serialize + JsonSchema>(make: impl Fn() -> T, wrapped: bool) {
        let via_value = via_value(&make(), wrapped);
        let direct = make()
            .into_tool_output(OutputForm::for_wire(wrapped))
            .unwrap();
        assert_eq!(
            serde_json::to_string(&direct).unwrap(),
            serde_json::to_string(&via_value).unwrap()
        );
        assert_eq!(direct.into_call_result(), via_value);
        // For a caller, not the wire: that result, built as one.
        let for_caller = OutputForm {
            wrapped,
            wire: false,
        };
        let built = make().into_tool_output(for_caller).unwrap();
        assert!(
            built.written_parts().is_none(),
            "built as a value, not as text"
        );
        assert_eq!(
            serde_json::to_string(&built).unwrap(),
            serde_json::to_string(&via_value).unwrap()
        );
        assert_eq!(built.into_call_result(), via_value);
        assert_eq!(make().into_call_result(wrapped).unwrap(), via_value);
    }

    #[test]
    fn structured_output_is_written_as_the_value_path_writes_it() {
        same(task, false);
        same(|| vec![task(), task()], true);
        same(|| "plain text, not JSON".to_string(), true);
        same(|| 42_i64, true);
        same(|| -0.25_f64, true);
        same(|| f64::NAN, true);
        same(|| Option::<i64>::None, true);
        same(|| json!({"z": 1, "a": [1, {"b": null}]}), false);
        same(
            || std::collections::BTreeMap::from([(2, "two"), (1, "one")]),
            false,
        );
    }

    /// An integer beyond 64 bits: JSON text holds it, a `Value` does not; the caller's form
    /// answers what the wire's answers, read back.
    #[test]
    fn a_value_a_value_cannot_hold_is_answered_as_the_wire_answers_it() {
        assert!(serde_json::to_value(u128::MAX).is_err());
        for wrapped in [false, true] {
            let wire = u128::MAX
                .into_tool_output(OutputForm::for_wire(wrapped))
                .unwrap()
                .into_call_result();
            assert_eq!(u128::MAX.into_call_result(wrapped).unwrap(), wire);
            assert_eq!(wire.first_text(), Some(u128::MAX.to_string().as_str()));
        }
    }

    #[test]
    fn content_results_pass_through() {
        let r = CallToolResult::error_text("nope");
        let out = ToolOutput::from(r.clone());
        assert_eq!(
            serde_json::to_value(&out).unwrap(),
            json!({"content": [{"type": "text", "text": "nope"}], "isError": true})
        );
        assert_eq!(out.into_call_result(), r);
    }
}
