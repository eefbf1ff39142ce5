//! Return types: what a tool's return value publishes (outputSchema) and sends (the call result).

use schemars::{JsonSchema, SchemaGenerator};
use std::fmt;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use crate::error::ToolError;
pub use crate::schema::OutputSchema;
use crate::tool::content::{CallToolResult, Content};
use crate::tool::panic::{catch_sync, next_error_id};

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

    /// What the server sends for a returned value: a structured value kept as the value it is,
    /// typed, until it is written ([`ToolOutput`]); a content type as its [`CallToolResult`].
    #[doc(hidden)]
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>
    where
        Self: Sized + Send + 'static;
}

impl<T: Serialize + JsonSchema> IntoToolOutput for T {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<OutputSchema> {
        Some(crate::schema::output_schema::<T>(generator))
    }

    fn into_tool_output(self) -> Result<ToolOutput, ToolError>
    where
        Self: Sized + Send + 'static,
    {
        Ok(ToolOutput(Output::Typed(Typed {
            value: Box::new(self),
            wrapped: false,
            tool: "",
        })))
    }
}

/// What a tool produced, on its way to the one who takes it: a structured value still typed
/// (written by [`Reply`](crate::server::Reply)'s writer straight into a transport's buffer, or
/// built as a [`CallToolResult`] by [`ToolOutput::into_call_result`]), or a content result.
/// The public face of a result is [`CallToolResult`].
#[doc(hidden)]
#[derive(Debug)]
pub struct ToolOutput(Output);

#[derive(Debug)]
enum Output {
    Result(CallToolResult),
    Typed(Typed),
}

/// A structured result: the value the tool returned, and what the call path knows of its tool.
pub(crate) struct Typed {
    value: Box<dyn Structured>,
    /// Structured output is wrapped as `{"result": …}` (the tool's outputSchema says so).
    wrapped: bool,
    /// The tool that returned it, named by a result that cannot be written.
    tool: &'static str,
}

impl fmt::Debug for Typed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Typed")
            .field("tool", &self.tool)
            .field("wrapped", &self.wrapped)
            .finish_non_exhaustive()
    }
}

/// A returned value's two encoders: bytes for a transport, a [`CallToolResult`] for a caller.
/// Both serialize the value itself, and write the same JSON (the tests below hold them to it on
/// a corpus of return types): `structuredContent` is the value (wrapped as `{"result": …}` when
/// asked), and the one text block its indented JSON, or the string itself for a string.
trait Structured: Send {
    /// Appends `"content":[…],"structuredContent":…` (the members, no braces) to `buf`; on an
    /// error, `buf` holds part of them.
    fn write_members(&self, buf: &mut Vec<u8>, wrapped: bool) -> serde_json::Result<()>;

    /// The result as a [`CallToolResult`], the value serialized once into a `Value`.
    fn to_result(&self, wrapped: bool) -> serde_json::Result<CallToolResult>;
}

impl<T: Serialize + Send> Structured for T {
    /// Compact for `structuredContent`, and indented for the text block, written already quoted
    /// and escaped as the answer carries it ([`crate::tool::text`]): no `Value` tree, and the
    /// text block written where it goes.
    fn write_members(&self, buf: &mut Vec<u8>, wrapped: bool) -> serde_json::Result<()> {
        let compact = serde_json::to_vec(self)?;
        buf.extend_from_slice(br#""content":[{"type":"text","text":"#);
        if compact.first() == Some(&b'"') {
            // A string goes out as itself, not as JSON: its JSON is the text block's.
            buf.extend_from_slice(&compact);
        } else {
            crate::tool::text::write_quoted_pretty_json(buf, self)?;
        }
        buf.extend_from_slice(br#"}],"structuredContent":"#);
        if wrapped {
            buf.extend_from_slice(br#"{"result":"#);
            buf.extend_from_slice(&compact);
            buf.push(b'}');
        } else {
            buf.extend_from_slice(&compact);
        }
        Ok(())
    }

    fn to_result(&self, wrapped: bool) -> serde_json::Result<CallToolResult> {
        let value = match serde_json::to_value(self) {
            Ok(value) => value,
            // The one value JSON text holds and a `Value` does not: an integer beyond 64 bits.
            // Its `Value` is the one a reader of the written bytes gets (the nearest float), so
            // that both forms agree.
            Err(e) => {
                let mut buf = Vec::new();
                if self.write_members(&mut buf, wrapped).is_err() {
                    return Err(e);
                }
                buf.insert(0, b'{');
                buf.push(b'}');
                let value: Value = serde_json::from_slice(&buf)?;
                return Ok(CallToolResult::from_json(&value).unwrap_or_default());
            }
        };
        // The rest does not depend on `T`: compiled once, not once per return type.
        result_of(value, wrapped)
    }
}

/// The result whose structured value is `value` ([`Structured::to_result`]).
fn result_of(value: Value, wrapped: bool) -> serde_json::Result<CallToolResult> {
    let text = match &value {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other)?,
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

impl Typed {
    /// Writes the result's members into `buf`, or, if the value cannot be written (its
    /// `Serialize` fails or panics), returns the hidden failure to send instead, logged with its
    /// error id; `buf` then holds part of the members, for the caller to drop.
    pub(crate) fn write_members(&self, buf: &mut Vec<u8>) -> Result<(), Box<CallToolResult>> {
        match catch_sync(|| self.value.write_members(buf, self.wrapped)) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Box::new(self.unwritable(&e))),
            Err(panic) => Err(Box::new(self.unwritable(&format_args!(
                "panicked at {}: {}",
                panic.location, panic.message
            )))),
        }
    }

    /// The result as a [`CallToolResult`]; the hidden failure if the value cannot be written.
    fn to_result(&self) -> CallToolResult {
        match catch_sync(|| self.value.to_result(self.wrapped)) {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => self.unwritable(&e),
            Err(panic) => self.unwritable(&format_args!(
                "panicked at {}: {}",
                panic.location, panic.message
            )),
        }
    }

    /// A returned value its `Serialize` cannot write (a map with keys that are not strings, a
    /// failing or panicking impl): an unexpected failure, hidden from the model.
    fn unwritable(&self, why: &dyn fmt::Display) -> CallToolResult {
        let id = next_error_id();
        tracing::error!(tool = self.tool, error_id = %id, "the tool's result cannot be written: {why}");
        hidden(self.tool, &id)
    }
}

/// The result of a tool that failed unexpectedly: generic text, and the error id its log
/// carries.
pub(crate) fn hidden(tool: &str, id: &str) -> CallToolResult {
    let mut result = CallToolResult::error_text(format!("Error executing tool {tool}"));
    let mut meta = Map::new();
    meta.insert("errorId".into(), id.into());
    result.meta = Some(meta);
    result
}

impl ToolOutput {
    /// The result as a [`CallToolResult`]: a structured value serialized into a `Value` once.
    pub fn into_call_result(self) -> CallToolResult {
        match self.0 {
            Output::Result(r) => r,
            Output::Typed(typed) => typed.to_result(),
        }
    }

    /// Names the tool that returned it, and whether its structured output is wrapped: what the
    /// call path knows from the tool's contract, told to the result rather than to the handler.
    pub(crate) fn of_tool(mut self, tool: &'static str, wrapped: bool) -> ToolOutput {
        if let Output::Typed(typed) = &mut self.0 {
            typed.tool = tool;
            typed.wrapped = wrapped;
        }
        self
    }

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

    /// The typed value of a structured result, for a writer of bytes ([`Typed::write_members`]);
    /// `None` for a content result.
    pub(crate) fn typed(&self) -> Option<&Typed> {
        match &self.0 {
            Output::Typed(typed) => Some(typed),
            Output::Result(_) => None,
        }
    }

    /// Writes the result's members into an open map, all but its `_meta`, which it returns for
    /// the caller to write (as is, or with more in it). The order is [`CallToolResult`]'s. A
    /// structured value goes through its `CallToolResult` (this is serde's general path, not a
    /// transport's: those write bytes).
    pub(crate) fn serialize_members<M: SerializeMap>(
        &self,
        m: &mut M,
        with: impl FnOnce(&mut M, Option<&Map<String, Value>>) -> Result<(), M::Error>,
    ) -> Result<(), M::Error> {
        let built;
        let r = match &self.0 {
            Output::Result(r) => r,
            Output::Typed(typed) => {
                built = typed.to_result();
                &built
            }
        };
        m.serialize_entry("content", &r.content)?;
        if let Some(s) = &r.structured_content {
            m.serialize_entry("structuredContent", s)?;
        }
        if r.is_error {
            m.serialize_entry("isError", &true)?;
        }
        with(m, r.meta.as_ref())
    }
}

impl From<CallToolResult> for ToolOutput {
    fn from(r: CallToolResult) -> Self {
        ToolOutput(Output::Result(r))
    }
}

/// The same members, in the same order, as [`CallToolResult`]'s serialization.
impl Serialize for ToolOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        self.serialize_members(&mut m, |m, meta| match meta {
            Some(meta) => m.serialize_entry("_meta", meta),
            None => Ok(()),
        })?;
        m.end()
    }
}

impl IntoToolOutput for Content {
    fn output_schema(_: &mut SchemaGenerator) -> Option<OutputSchema> {
        None
    }
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(CallToolResult::success(vec![self]).into())
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
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(CallToolResult::success(self.0).into())
    }
}

impl IntoToolOutput for CallToolResult {
    fn output_schema(_: &mut SchemaGenerator) -> Option<OutputSchema> {
        None
    }
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self.into())
    }
}

#[cfg(test)]
mod tests {
    use super::{Contents, IntoToolOutput, ToolOutput};
    use crate::tool::content::{CallToolResult, Content};
    use schemars::JsonSchema;
    use serde::Serialize;
    use serde_json::{Value, json};

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

    /// The result as MCP says it is, built here by hand: the text block is the indented JSON
    /// (a string goes out as itself), `structuredContent` the value, wrapped as `{"result": …}`
    /// if asked.
    fn expected<T: Serialize>(v: &T, wrapped: bool) -> CallToolResult {
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

    /// What the writer of bytes writes for a result: its members, in braces.
    fn written(output: &ToolOutput) -> String {
        let mut buf = b"{".to_vec();
        output.typed().unwrap().write_members(&mut buf).unwrap();
        buf.push(b'}');
        String::from_utf8(buf).unwrap()
    }

    fn returned<T: IntoToolOutput + Send + 'static>(value: T, wrapped: bool) -> ToolOutput {
        value.into_tool_output().unwrap().of_tool("t", wrapped)
    }

    /// Both encoders of a returned value, the bytes and the `CallToolResult`, write what MCP
    /// says, to the byte; serde's general path writes the same.
    fn same<T: Serialize + JsonSchema + Send + 'static>(make: impl Fn() -> T, wrapped: bool) {
        let expected = expected(&make(), wrapped);
        let text = serde_json::to_string(&expected).unwrap();
        let output = returned(make(), wrapped);
        assert_eq!(written(&output), text, "the bytes");
        assert_eq!(
            serde_json::to_string(&output).unwrap(),
            text,
            "serde's path"
        );
        let result = output.into_call_result();
        assert_eq!(result, expected, "the CallToolResult");
        assert_eq!(serde_json::to_string(&result).unwrap(), text);
    }

    /// The corpus of return types: structs, lists, strings, numbers (a float that JSON has no
    /// number for included), `None`, a `Value`, a map with integer keys.
    #[test]
    fn both_encoders_write_the_same_result() {
        for wrapped in [false, true] {
            same(task, wrapped);
            same(|| vec![task(), task()], wrapped);
            same(|| "plain text, not JSON".to_string(), wrapped);
            same(
                || "a \"quoted\" line\nand another\u{1}".to_string(),
                wrapped,
            );
            same(|| 42_i64, wrapped);
            same(|| u64::MAX, wrapped);
            same(|| -0.25_f64, wrapped);
            same(|| f64::NAN, wrapped);
            same(|| Option::<i64>::None, wrapped);
            same(|| Some(task()), wrapped);
            same(
                || json!({"z": 1, "a": [1, {"b": null}], "e": {}, "l": []}),
                wrapped,
            );
            same(
                || std::collections::BTreeMap::from([(2, "two"), (1, "one")]),
                wrapped,
            );
            same(|| ((), (1, "x")), wrapped);
        }
    }

    /// An integer beyond 64 bits: JSON text holds it, a `Value` does not; the `CallToolResult`
    /// is what a reader of the bytes gets.
    #[test]
    fn a_value_a_value_cannot_hold_is_built_as_its_bytes_read() {
        assert!(serde_json::to_value(u128::MAX).is_err());
        for wrapped in [false, true] {
            let output = returned(u128::MAX, wrapped);
            let bytes = written(&output);
            let read = CallToolResult::from_json(&serde_json::from_str(&bytes).unwrap()).unwrap();
            assert_eq!(output.into_call_result(), read);
            assert_eq!(read.first_text(), Some(u128::MAX.to_string().as_str()));
        }
    }

    struct Panics;

    impl Serialize for Panics {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            panic!("no way to write this")
        }
    }

    /// A value its `Serialize` cannot write (keys that are not strings; an impl that panics) is
    /// a hidden failure in both forms, with an error id.
    #[test]
    fn a_value_that_cannot_be_written_is_a_hidden_failure() {
        let keys = || std::collections::BTreeMap::from([((1, 2), "pair key")]);
        let hidden = |r: CallToolResult| {
            assert!(r.is_error);
            assert_eq!(r.first_text(), Some("Error executing tool t"));
            let id = r.meta.as_ref().and_then(|m| m.get("errorId")).cloned();
            assert!(id.is_some_and(|id| id.as_str().is_some_and(|s| !s.is_empty())));
        };
        hidden(returned(keys(), false).into_call_result());
        let typed = ToolOutput(super::Output::Typed(super::Typed {
            value: Box::new(Panics),
            wrapped: false,
            tool: "t",
        }));
        let mut buf = Vec::new();
        hidden(*typed.typed().unwrap().write_members(&mut buf).unwrap_err());
        hidden(typed.into_call_result());
        let mut buf = Vec::new();
        let output = returned(keys(), true);
        hidden(*output.typed().unwrap().write_members(&mut buf).unwrap_err());
    }

    #[test]
    fn content_results_pass_through() {
        let r = CallToolResult::error_text("nope");
        let out = ToolOutput::from(r.clone());
        assert!(out.typed().is_none());
        assert_eq!(
            serde_json::to_value(&out).unwrap(),
            json!({"content": [{"type": "text", "text": "nope"}], "isError": true})
        );
        assert_eq!(out.into_call_result(), r);
        let blocks = Contents(vec![Content::text("a"), Content::text("b")]);
        let out = returned(blocks, true);
        assert!(out.typed().is_none());
        assert_eq!(
            out.into_call_result(),
            CallToolResult::success(vec![Content::text("a"), Content::text("b")])
        );
    }
}
