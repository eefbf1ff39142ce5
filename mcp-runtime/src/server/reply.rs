//! A response this side is about to send, kept typed until it is written.

use serde_json::Value;

use crate::error::ProtocolError;
use crate::protocol::{RequestId, error_response, result_response};
use crate::tool::output::ToolOutput;

/// A response this side is about to send, kept typed until it is written: a transport that
/// writes bytes encodes it straight into its buffer (no `Value` tree for a tool's result), one
/// that needs a `Value` asks for [`Reply::into_json`].
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) id: RequestId,
    pub(crate) body: ReplyBody,
}

#[derive(Debug)]
pub(crate) enum ReplyBody {
    Result(Value),
    Call(ToolOutput),
    Error(ProtocolError),
}

impl Reply {
    /// The response as a JSON value.
    pub(crate) fn into_json(self) -> Value {
        match self.body {
            ReplyBody::Result(v) => result_response(&self.id, v),
            ReplyBody::Call(r) => result_response(&self.id, r.into_call_result().into_json()),
            ReplyBody::Error(e) => error_response(&self.id.to_json(), &e),
        }
    }
}

/// The same members, in the same order, as [`result_response`] and [`error_response`] build.
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
                    id: id.clone(),
                    body,
                };
                let written = serde_json::to_string(&reply).unwrap();
                let value = reply.into_json();
                assert_eq!(written, serde_json::to_string(&value).unwrap());
            }
        }
    }
}
