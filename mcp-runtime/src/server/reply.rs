//! A response this side is about to send, kept typed until it is written.

use std::fmt;

use std::sync::Arc;

use serde_json::Value;

use crate::error::ProtocolError;
use crate::protocol::stateless::{ServerStamp, serialize_stamp};
use crate::protocol::{Page, Rejected, RequestId, error_response, result_message};
use crate::tool::output::ToolOutput;

/// A response this side is about to send, kept typed until it is written: a transport that
/// writes bytes encodes it straight into its buffer (no `Value` tree for a tool's result, nor for
/// a list page, whose entries were encoded with their table), one that needs a `Value` asks for
/// [`Reply::into_json`].
///
/// Its id is the request's, exactly: serializing a reply (or its `Display`, the JSON text) writes
/// an integer id of any size digit for digit, which a `serde_json::Value` cannot hold beyond 64
/// bits.
#[derive(Debug)]
pub struct Reply {
    /// `None` answers with `"id": null` (a message whose id could not be read).
    pub(crate) id: Option<RequestId>,
    pub(crate) body: ReplyBody,
}

#[derive(Debug)]
pub(crate) enum ReplyBody {
    Result(Value),
    /// A `tools/call` result; in the stateless era, with the server's identity (encoded) to
    /// stamp it with (a call result has no cache hint).
    Call(ToolOutput, Option<Arc<ServerStamp>>),
    /// A page of `tools/list`, `prompts/list`, `resources/list` or `resources/templates/list`.
    Page(Page),
    Error(ProtocolError),
}

impl Reply {
    /// An error response to the request `id` (`None`: `null`).
    pub fn error(id: Option<RequestId>, error: ProtocolError) -> Reply {
        Reply {
            id,
            body: ReplyBody::Error(error),
        }
    }

    /// The id it answers; `None` for `null`.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The JSON-RPC error it carries, if it is an error response.
    pub fn protocol_error(&self) -> Option<&ProtocolError> {
        match &self.body {
            ReplyBody::Error(e) => Some(e),
            _ => None,
        }
    }

    /// The bytes a writer reserves for an answer of no known size: most answers fit.
    #[cfg(feature = "http")]
    pub(crate) const TYPICAL_LEN: usize = 512;

    /// About how many bytes the response takes when written, for a writer to reserve:
    /// [`Reply::TYPICAL_LEN`], more for a list page of that size.
    #[cfg(feature = "http")]
    pub(crate) fn size_hint(&self) -> usize {
        match &self.body {
            ReplyBody::Page(page) => Self::TYPICAL_LEN + page.entries_len(),
            _ => Self::TYPICAL_LEN,
        }
    }

    /// The response as a JSON value. An id beyond 64 bits becomes the nearest float there
    /// (serde_json's `Value` keeps 64-bit integers): write the reply itself, or its
    /// `to_string()`, to keep it exact.
    pub fn into_json(self) -> Value {
        let id = self.id.as_ref().map_or(Value::Null, RequestId::to_json);
        match self.body {
            ReplyBody::Result(v) => result_message(id, v),
            ReplyBody::Call(r, None) => result_message(id, r.into_call_result().into_json()),
            ReplyBody::Call(r, Some(info)) => {
                result_message(id, to_value(&CallResult(&r, Some(&info))))
            }
            ReplyBody::Page(page) => result_message(id, to_value(&page)),
            ReplyBody::Error(e) => error_response(&id, &e),
        }
    }
}

impl From<Box<Rejected>> for Reply {
    fn from(rejected: Box<Rejected>) -> Reply {
        let Rejected { id, error } = *rejected;
        Reply::error(id, error)
    }
}

/// A message a transport writes into its buffer of bytes: serde_json's writer for every
/// message but a [`Reply`], which has a faster writer of its own.
pub(crate) trait WriteJson {
    /// Appends the message's JSON text to `buf`. On an error, `buf` may hold part of it: the
    /// caller drops that.
    fn write_json(&self, buf: &mut Vec<u8>) -> serde_json::Result<()>;
}

impl WriteJson for Value {
    fn write_json(&self, buf: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(buf, self)
    }
}

impl WriteJson for Reply {
    /// The same bytes as the [`serde::Serialize`] impl writes.
    ///
    /// A structured `tools/call` result is written from the value the tool returned, straight
    /// into `buf` ([`crate::tool::output`]): its text block already quoted and escaped as the
    /// answer carries it ([`crate::tool::text`]), with no `Value` tree and no copy of the text.
    /// The envelope around it is a handful of fixed members; the id and the stateless stamp are
    /// serde_json's. A value that cannot be written is answered with the hidden failure its
    /// writer returns, in its place.
    fn write_json(&self, buf: &mut Vec<u8>) -> serde_json::Result<()> {
        let ReplyBody::Call(output, stamp) = &self.body else {
            return serde_json::to_writer(buf, self);
        };
        let Some(typed) = output.typed() else {
            return serde_json::to_writer(buf, self);
        };
        let start = buf.len();
        buf.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut *buf, &self.id)?;
        buf.extend_from_slice(br#","result":{"#);
        if let Err(failure) = typed.write_members(buf) {
            buf.truncate(start);
            let failed = Reply {
                id: self.id.clone(),
                body: ReplyBody::Call((*failure).into(), stamp.clone()),
            };
            return serde_json::to_writer(buf, &failed);
        }
        match stamp {
            Some(stamp) => {
                // The stamp's members, written as a map of their own (never empty) whose `{`
                // becomes the comma after `structuredContent` and whose `}` closes the result.
                let at = buf.len();
                serde_json::to_writer(&mut *buf, &StampMembers(stamp))?;
                buf[at] = b',';
            }
            None => buf.push(b'}'),
        }
        buf.push(b'}');
        Ok(())
    }
}

/// The response's JSON text, every digit of its id kept.
impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = Vec::new();
        self.write_json(&mut buf).map_err(|_| fmt::Error)?;
        f.write_str(&String::from_utf8_lossy(&buf))
    }
}

/// What [`serialize_stamp`] adds to a result with no `_meta` of its own, as a map.
struct StampMembers<'a>(&'a ServerStamp);

impl serde::Serialize for StampMembers<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(None)?;
        serialize_stamp(&mut m, self.0, None, None)?;
        m.end()
    }
}

/// The same members, in the same order, as [`crate::protocol::result_response`] and
/// [`error_response`] build.
impl serde::Serialize for Reply {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(Some(3))?;
        m.serialize_entry("jsonrpc", "2.0")?;
        m.serialize_entry("id", &self.id)?;
        match &self.body {
            ReplyBody::Result(v) => m.serialize_entry("result", v)?,
            ReplyBody::Call(r, info) => {
                m.serialize_entry("result", &CallResult(r, info.as_deref()))?
            }
            ReplyBody::Page(page) => m.serialize_entry("result", page)?,
            ReplyBody::Error(e) => m.serialize_entry("error", e)?,
        }
        m.end()
    }
}

/// A typed result as a `Value`, for a transport that asks for one.
fn to_value(result: &impl serde::Serialize) -> Value {
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// A `tools/call` result, with what the stateless era adds to it: the members, in order, that
/// [`crate::protocol::stateless::stamp_result`] gives its `Value`.
struct CallResult<'a>(&'a ToolOutput, Option<&'a ServerStamp>);

impl serde::Serialize for CallResult<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(None)?;
        self.0
            .serialize_members(&mut m, |m, meta| match (self.1, meta) {
                (Some(info), meta) => serialize_stamp(m, info, None, meta),
                (None, Some(meta)) => m.serialize_entry("_meta", meta),
                (None, None) => Ok(()),
            })?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::{
        ProtocolError, Reply, ReplyBody, RequestId, ServerStamp, ToolOutput, Value, result_message,
    };
    use crate::tool::content::CallToolResult;
    use crate::tool::output::IntoToolOutput;
    use serde_json::json;
    use std::collections::BTreeMap;

    /// A tool's structured result, as the call path hands it on.
    fn structured<T: IntoToolOutput + Send + 'static>(value: T, wrapped: bool) -> ToolOutput {
        value.into_tool_output().unwrap().of_tool("t", wrapped)
    }

    /// Written by its own writer (`to_string`), by serde, or as a `Value`: the same text.
    #[test]
    fn a_reply_is_written_as_its_json_value() {
        let ids = [
            RequestId::from(7),
            RequestId::String("a\"b".into()),
            RequestId::Number(serde_json::Number::from_f64(1.5).unwrap()),
        ];
        for id in ids {
            let bodies = [
                ReplyBody::Result(json!({"tools": [], "z": null})),
                ReplyBody::Call(CallToolResult::error_text("no").into(), None),
                ReplyBody::Call(structured(json!({"a": "x\"\n", "b": [1, {}]}), false), None),
                ReplyBody::Call(structured(json!("a \"string\"\n"), true), None),
                ReplyBody::Call(structured(json!([]), true), None),
                // A value its `Serialize` cannot write: the hidden failure in its place.
                ReplyBody::Call(structured(BTreeMap::from([((1, 2), 3)]), false), None),
                ReplyBody::Error(ProtocolError::invalid_params("bad").with_data(json!({"k": 1}))),
                ReplyBody::Error(ProtocolError::method_not_found("x/y")),
            ];
            for body in bodies {
                let reply = Reply {
                    id: Some(id.clone()),
                    body,
                };
                let written = serde_json::to_string(&reply).unwrap();
                let value: Value = serde_json::from_str(&reply.to_string()).unwrap();
                if value["result"]["_meta"]["errorId"].is_string() {
                    // Each writing of an unwritable value logs a failure of its own id.
                    assert_eq!(value["result"]["isError"], json!(true));
                    assert_eq!(
                        value["result"]["content"][0]["text"],
                        "Error executing tool t"
                    );
                    continue;
                }
                assert_eq!(reply.to_string(), written);
                let value = reply.into_json();
                assert_eq!(written, serde_json::to_string(&value).unwrap());
            }
        }
    }

    /// A stateless `tools/call` result, written typed, is what stamping its `Value` wrote.
    #[test]
    fn a_stamped_call_result_is_written_as_its_stamped_value() {
        use crate::protocol::Implementation;
        use crate::protocol::stateless::{SERVER_INFO_KEY, stamp_result};
        let info = Implementation {
            name: "srv".into(),
            version: "2".into(),
            title: None,
            description: None,
        };
        let with_meta = |meta: Value| CallToolResult {
            meta: meta.as_object().cloned(),
            ..CallToolResult::error_text("Internal error")
        };
        let outputs = || -> Vec<ToolOutput> {
            vec![
                structured(json!({"id": "T-4", "title": "é \"q\""}), false),
                structured(42, true),
                CallToolResult::error_text("bad arguments").into(),
                with_meta(json!({"errorId": "e-1"})).into(),
                with_meta(json!({"a": 1, SERVER_INFO_KEY: "theirs", "z": 2})).into(),
                CallToolResult {
                    structured_content: Some(json!({"k": [1, 2]})),
                    ..CallToolResult::default()
                }
                .into(),
            ]
        };
        for (typed, plain) in outputs().into_iter().zip(outputs()) {
            let mut value = plain.into_call_result().into_json();
            stamp_result(&mut value, &info, None);
            let reply = Reply {
                id: Some(RequestId::from(3)),
                body: ReplyBody::Call(typed, Some(ServerStamp::of(&info))),
            };
            let expected = result_message(json!(3), value);
            assert_eq!(reply.to_string(), expected.to_string());
            assert_eq!(serde_json::to_string(&reply).unwrap(), expected.to_string());
            assert_eq!(reply.into_json(), expected);
        }
    }

    /// A list page fits in the buffer its hint reserves, however large its entries are; a
    /// small answer in the 512 bytes most answers take.
    #[cfg(feature = "http")]
    #[test]
    fn a_reply_fits_in_the_size_it_hints() {
        use crate::protocol::{Listing, Page};
        let entries: Vec<Value> = (0..40)
            .map(|i| json!({"name": format!("tool_{i}"), "description": "d".repeat(i * 10)}))
            .collect();
        let listing = Listing::encode(&entries);
        for (range, next) in [(0..40, None), (3..17, Some("c".repeat(64))), (0..0, None)] {
            let reply = Reply {
                id: Some(RequestId::from(u64::MAX)),
                body: ReplyBody::Page(Page::new("tools", &listing, range, next)),
            };
            let written = serde_json::to_vec(&reply).unwrap().len();
            assert!(
                written <= reply.size_hint(),
                "{written} > {}",
                reply.size_hint()
            );
        }
        let small = Reply::error(
            Some(RequestId::from(1)),
            ProtocolError::method_not_found("x"),
        );
        assert!(serde_json::to_vec(&small).unwrap().len() <= small.size_hint());
        let large = Reply {
            id: Some(RequestId::from(1)),
            body: ReplyBody::Page(Page::new("tools", &listing, 0..40, None)),
        };
        assert!(large.size_hint() > 8 * 1024);
    }
}
