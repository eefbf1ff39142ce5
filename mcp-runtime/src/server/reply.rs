//! A response this side is about to send, kept typed until it is written.

use std::fmt;

use serde_json::Value;

use crate::error::ProtocolError;
use crate::protocol::{Rejected, RequestId, error_response, result_message};
use crate::tool::output::ToolOutput;

/// A response this side is about to send, kept typed until it is written: a transport that
/// writes bytes encodes it straight into its buffer (no `Value` tree for a tool's result), one
/// that needs a `Value` asks for [`Reply::into_json`].
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
    Call(ToolOutput),
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

    /// The response as a JSON value. An id beyond 64 bits becomes the nearest float there
    /// (serde_json's `Value` keeps 64-bit integers): write the reply itself, or its
    /// `to_string()`, to keep it exact.
    pub fn into_json(self) -> Value {
        let id = self.id.as_ref().map_or(Value::Null, RequestId::to_json);
        match self.body {
            ReplyBody::Result(v) => result_message(id, v),
            ReplyBody::Call(r) => result_message(id, r.into_call_result().into_json()),
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

/// The response's JSON text, every digit of its id kept.
impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
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
            ReplyBody::Call(r) => m.serialize_entry("result", r)?,
            ReplyBody::Error(e) => m.serialize_entry("error", &ErrorObject(e))?,
        }
        m.end()
    }
}

struct ErrorObject<'a>(&'a ProtocolError);

impl serde::Serialize for ErrorObject<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("code", &self.0.code)?;
        m.serialize_entry("message", &self.0.message)?;
        if let Some(data) = &self.0.data {
            m.serialize_entry("data", data)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::content::CallToolResult;
    use serde_json::json;

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
                ReplyBody::Call(CallToolResult::error_text("no").into()),
                ReplyBody::Error(ProtocolError::invalid_params("bad").with_data(json!({"k": 1}))),
                ReplyBody::Error(ProtocolError::method_not_found("x/y")),
            ];
            for body in bodies {
                let reply = Reply {
                    id: Some(id.clone()),
                    body,
                };
                let written = serde_json::to_string(&reply).unwrap();
                assert_eq!(reply.to_string(), written);
                let value = reply.into_json();
                assert_eq!(written, serde_json::to_string(&value).unwrap());
            }
        }
    }
}
