//! One JSON-RPC message read from the wire: [`Incoming::parse`] reads a line member by member
//! (the general `Value` path words the errors), classifies it as a request, a notification or a
//! response, and rejects anything else with the error response it gets.

use serde_json::Value;
use serde_json::value::RawValue;

use super::error_response;
use super::params::{ObjectOr, Params, Text};
use crate::error::ProtocolError;

/// A JSON-RPC request id: a string or a number (MCP forbids `null`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// An integer id within 64 bits.
    Number(serde_json::Number),
    /// An integer id beyond 64 bits, kept as its decimal text so that the answer carries it
    /// exactly (JSON-RPC: the response's id is the request's).
    BigInteger(Box<str>),
    /// A string id.
    String(String),
}

// `from_json`, `to_json` and `Serialize` are hand-written: `BigInteger` keeps its digits as
// text, which no derive writes back as a bare number (and the id is read on every request:
// BENCHMARKS.md, "params read into fields").
impl RequestId {
    /// Reads an id: a string or an integer (MCP: "a string or integer ID"); `None` for any
    /// other JSON value, a number with a fraction included.
    pub fn from_json(v: &Value) -> Option<Self> {
        match v {
            Value::Number(n) if !n.is_f64() => Some(RequestId::Number(n.clone())),
            Value::String(s) => Some(RequestId::String(s.clone())),
            _ => None,
        }
    }

    /// Reads an id from its JSON text, so that an integer of any size keeps every digit.
    pub fn from_raw(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        let digits = text.strip_prefix('-').unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Some(match serde_json::from_str::<serde_json::Number>(text) {
                Ok(n) if !n.is_f64() => RequestId::Number(n),
                _ => RequestId::BigInteger(text.into()),
            });
        }
        RequestId::from_json(&serde_json::from_str(text).ok()?)
    }

    /// The id as JSON. A [`RequestId::BigInteger`] has no exact `Value` (serde_json keeps 64-bit
    /// integers): it comes out as the nearest float; writers that serialize the typed reply
    /// (stdio, HTTP) send its exact digits.
    pub fn to_json(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::Number(n.clone()),
            RequestId::BigInteger(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            RequestId::String(s) => Value::String(s.clone()),
        }
    }
}

impl From<u64> for RequestId {
    fn from(n: u64) -> Self {
        RequestId::Number(n.into())
    }
}

/// A request: a method and an id the answer must carry.
#[derive(Debug, Clone)]
pub struct Request {
    /// The id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params object (`None` when absent or `null`), boxed: a request is moved several
    /// times on its way to its handler, and a pointer moves for less than `Params` (callgrind:
    /// 150-700 fewer instructions per call than unboxed, the allocation included).
    pub params: Option<Box<Params>>,
}

/// A notification: a method, no id, no answer.
#[derive(Debug, Clone)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The params object (`None` when absent or `null`).
    pub params: Option<Box<Params>>,
}

/// A response to a request this side sent.
#[derive(Debug, Clone)]
pub struct Response {
    /// The id of the request it answers.
    pub id: RequestId,
    /// The result, or the error object.
    pub outcome: Result<Value, ProtocolError>,
}

/// One incoming message, classified.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// A request to answer.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// An answer to one of our requests.
    Response(Response),
}

/// Why a line is not a message; each carries the error response to send back.
#[derive(Debug, Clone)]
pub struct Rejected {
    /// The id of the offending message when one could be read (`None`: the answer's id is
    /// `null`).
    pub id: Option<RequestId>,
    /// The error.
    pub error: ProtocolError,
}

impl Rejected {
    /// The error response for this rejection, as a `Value` (an id beyond 64 bits comes out as
    /// the nearest float there; serializing the rejection itself keeps every digit).
    pub fn to_response(&self) -> Value {
        let id = self.id.as_ref().map_or(Value::Null, RequestId::to_json);
        error_response(&id, &self.error)
    }
}

impl Incoming {
    /// Parses one line. Invalid JSON is -32700, a batch or a malformed envelope -32600.
    pub fn parse(line: &[u8]) -> Result<Incoming, Box<Rejected>> {
        // The line is checked as UTF-8 once, here, and read as `&str`: read from bytes, serde_json
        // checks every string it reads on its own (about 1,000 instructions on a `tools/call`,
        // callgrind). A line that is not UTF-8 is not JSON (outside its strings JSON is ASCII):
        // the general path words serde_json's error for it.
        match std::str::from_utf8(line) {
            Ok(text) => Self::parse_text(text),
            Err(_) => Self::parse_value(serde_json::from_slice(line)),
        }
    }

    /// [`Incoming::parse`] for a line already known to be UTF-8.
    pub fn parse_text(text: &str) -> Result<Incoming, Box<Rejected>> {
        match Self::read_fields(text) {
            Some(fields) => fields.classify(),
            None => Self::parse_value(serde_json::from_str(text)),
        }
    }

    /// The general path: the line as a `Value`, or its parse error.
    fn parse_value(value: serde_json::Result<Value>) -> Result<Incoming, Box<Rejected>> {
        let value = value.map_err(|e| {
            Box::new(Rejected {
                id: None,
                error: ProtocolError::parse_error(format!("Parse error: {e}")),
            })
        })?;
        Self::from_value(value)
    }

    /// The common case, an object with well-typed members, read straight into its fields: no
    /// map is built for the envelope. Anything else (invalid JSON, a batch, a member of the
    /// wrong type, a key given twice) is `None`, for the general path, which words the error.
    /// serde's derived `Deserialize` also reads a struct from a JSON array; a message is an
    /// object, so only an object may take this path.
    fn read_fields(text: &str) -> Option<Fields<'_>> {
        let object = text.bytes().find(|b| !b.is_ascii_whitespace()) == Some(b'{');
        let wire = object
            .then(|| serde_json::from_str::<Wire>(text).ok())
            .flatten()?;
        Some(Fields {
            jsonrpc_ok: wire.jsonrpc.is_some_and(|Text(v)| v == "2.0"),
            id: wire.id.map(IdField::Raw),
            method: wire.method,
            params: wire.params,
            result: wire.result,
            error: wire.error,
        })
    }

    /// Classifies a parsed JSON value.
    pub fn from_value(value: Value) -> Result<Incoming, Box<Rejected>> {
        let mut obj = match value {
            Value::Object(obj) => obj,
            Value::Array(_) => {
                return Err(Rejected::invalid(
                    None,
                    "Invalid Request: JSON-RPC batches are not supported (removed in 2025-06-18)",
                ));
            }
            _ => {
                return Err(Rejected::invalid(
                    None,
                    "Invalid Request: a message must be a JSON object",
                ));
            }
        };
        Fields {
            jsonrpc_ok: obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0"),
            id: obj.remove("id").map(IdField::Value),
            method: obj.remove("method"),
            params: match obj.remove("params") {
                None | Some(Value::Null) => None,
                Some(Value::Object(p)) => Some(ObjectOr::Object(Params::from_map(p))),
                Some(other) => Some(ObjectOr::Other(other)),
            },
            result: obj.remove("result"),
            error: obj.remove("error"),
        }
        .classify()
    }
}

impl Rejected {
    fn invalid(id: Option<RequestId>, message: &str) -> Box<Rejected> {
        Box::new(Rejected {
            id,
            error: ProtocolError::invalid_request(message),
        })
    }
}

/// The members of a message object that tell what it is. `Some(Value::Null)` is a member given
/// as `null`, which is not the same as an absent one.
struct Fields<'a> {
    jsonrpc_ok: bool,
    id: Option<IdField<'a>>,
    method: Option<Value>,
    params: Option<ObjectOr<Params>>,
    result: Option<Value>,
    error: Option<Value>,
}

/// The `id` member as given: parsed already, or its JSON text (which keeps big integers exact).
enum IdField<'a> {
    Value(Value),
    Raw(&'a RawValue),
}

impl Fields<'_> {
    fn classify(self) -> Result<Incoming, Box<Rejected>> {
        let id = match &self.id {
            None => None,
            Some(field) => match field {
                IdField::Value(v) => RequestId::from_json(v),
                IdField::Raw(raw) => RequestId::from_raw(raw),
            }
            .map(Some)
            .ok_or_else(|| {
                Rejected::invalid(None, "Invalid Request: `id` must be a string or an integer")
            })?,
        };
        let answer_id = id.clone();
        if !self.jsonrpc_ok {
            return Err(Rejected::invalid(
                answer_id,
                "Invalid Request: `jsonrpc` must be \"2.0\"",
            ));
        }
        let params = match self.params {
            // `null` is read as absent: lenient toward clients that serialize a missing field.
            None => None,
            Some(ObjectOr::Object(params)) => Some(Box::new(params)),
            Some(ObjectOr::Other(_)) => {
                return Err(Rejected::invalid(
                    answer_id,
                    "Invalid Request: `params` must be an object",
                ));
            }
        };
        match (self.method, id) {
            (Some(Value::String(method)), Some(id)) => {
                Ok(Incoming::Request(Request { id, method, params }))
            }
            (Some(Value::String(method)), None) => {
                Ok(Incoming::Notification(Notification { method, params }))
            }
            (Some(_), _) => Err(Rejected::invalid(
                answer_id,
                "Invalid Request: `method` must be a string",
            )),
            (None, Some(id)) => {
                let outcome = match (self.result, self.error) {
                    (Some(result), None) => Ok(result),
                    (None, Some(error)) => Err(error_from_json(&error)),
                    _ => {
                        return Err(Rejected::invalid(
                            answer_id,
                            "Invalid Request: a response needs exactly one of `result` and `error`",
                        ));
                    }
                };
                Ok(Incoming::Response(Response { id, outcome }))
            }
            (None, None) => Err(Rejected::invalid(
                None,
                "Invalid Request: a message needs a `method` or an `id`",
            )),
        }
    }
}

/// A message object read member by member. Every member is kept as given, `null` included
/// (see [`present`]); unknown members are skipped.
#[derive(serde::Deserialize)]
struct Wire<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<Text<'a>>,
    #[serde(default, borrow, deserialize_with = "present_raw")]
    id: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    /// Read straight into its fields; `null` is read as absent (`Option`'s own impl).
    #[serde(default)]
    params: Option<ObjectOr<Params>>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// A member that is present, even as `null` (`Option`'s own impl would read `null` as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

/// A member that is present, as its JSON text (`null` included).
fn present_raw<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<&'a RawValue>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

/// Reads a JSON-RPC error object.
pub fn error_from_json(error: &Value) -> ProtocolError {
    ProtocolError {
        code: error
            .get("code")
            .and_then(Value::as_i64)
            .unwrap_or(crate::error::codes::INTERNAL_ERROR),
        message: error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        data: error.get("data").cloned(),
    }
}

/// A `BigInteger` written as its digits (the `RawValue`), the other ids as themselves.
impl serde::Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => n.serialize(serializer),
            RequestId::BigInteger(text) => RawValue::from_string(text.to_string())
                .map_err(serde::ser::Error::custom)?
                .serialize(serializer),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}
