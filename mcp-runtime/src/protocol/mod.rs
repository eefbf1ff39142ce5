//! JSON-RPC 2.0 framing and the MCP messages both protocol eras share.
//!
//! One message is one JSON object on one line. [`Incoming::parse`] classifies a line into a
//! request, a notification or a response (to a request this side sent), or the error response
//! a malformed line gets. The era-specific pieces live in [`handshake`] (2025-03-26 to
//! 2025-11-25: `initialize` first, then plain requests) and [`stateless`] (2026-07-28: every
//! request carries its own `_meta` envelope).
//!
//! | file | what it holds |
//! |---|---|
//! | `message.rs` | one incoming message: ids, requests, notifications, responses, rejections |
//! | [`params`] | a message's `params`: `name`, `arguments` and `_meta` read into fields, the rest in a map |
//! | `page.rs` | a list method's page, written from entries encoded once with their table |
//! | this file | versions, the envelopes this side writes, log levels, identities, capabilities |
//! | [`handshake`] | `initialize` and version negotiation (2025 eras) |
//! | [`stateless`] | the per-request `_meta` envelope, `server/discover` (2026-07-28) |
//! | [`subscriptions`] | change notifications; the `subscriptions/listen` filter, acknowledgement and closing result (2026-07-28) |

pub mod handshake;
pub mod params;
pub mod stateless;
pub mod subscriptions;

use serde_json::{Map, Value};

use crate::error::ProtocolError;

/// The versions reached through the `initialize` handshake, oldest first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2025-03-26", "2025-06-18", "2025-11-25"];
/// The versions served statelessly (a `_meta` envelope on every request), oldest first.
pub const STATELESS_VERSIONS: &[&str] = &["2026-07-28"];
/// The newest handshake version: the answer to an `initialize` offering a version we lack.
pub const LATEST_HANDSHAKE_VERSION: &str = "2025-11-25";
/// The newest stateless version.
pub const LATEST_STATELESS_VERSION: &str = "2026-07-28";

/// Every version this runtime speaks, oldest first.
pub fn supported_versions() -> Vec<&'static str> {
    HANDSHAKE_VERSIONS
        .iter()
        .chain(STATELESS_VERSIONS)
        .copied()
        .collect()
}

mod message;
mod page;

pub use message::{
    Incoming, Notification, Rejected, Request, RequestId, Response, error_from_json,
};
pub(crate) use page::{Listing, Page};
pub use params::{Meta, Params};

// The envelopes below are built field by field: `json!` would pass each interpolated `Value`
// through `serde_json::to_value`, a deep copy of the whole result on every response.

/// A JSON-RPC message object: `jsonrpc`, then `fields` in order.
fn message<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut m = Map::with_capacity(N + 1);
    m.insert("jsonrpc".into(), Value::String("2.0".into()));
    for (key, value) in fields {
        m.insert(key.into(), value);
    }
    Value::Object(m)
}

/// A success response.
pub fn result_response(id: &RequestId, result: Value) -> Value {
    result_message(id.to_json(), result)
}

/// A success response to the id as a JSON value.
pub(crate) fn result_message(id: Value, result: Value) -> Value {
    message([("id", id), ("result", result)])
}

/// An error response.
pub fn error_response(id: &Value, error: &ProtocolError) -> Value {
    let error = serde_json::to_value(error).expect("an error object serializes");
    message([("id", id.clone()), ("error", error)])
}

/// A request this side sends.
pub fn request_message(id: &RequestId, method: &str, params: Value) -> Value {
    message([
        ("id", id.to_json()),
        ("method", method.into()),
        ("params", params),
    ])
}

/// A notification this side sends.
pub fn notification_message(method: &str, params: Value) -> Value {
    message([("method", method.into()), ("params", params)])
}

/// The `_meta` object of a message's params, if any.
pub fn params_meta(params: Option<&Params>) -> Option<&Meta> {
    params?.meta.as_deref()
}

/// The member `key` of a JSON object, found by comparing keys in order when the object is small.
///
/// The objects of a message have a handful of members, and serde_json's map (an `IndexMap`
/// under the `preserve_order` feature this workspace enables) hashes every key it looks up with
/// SipHash: the lookups of one stateless call cost about 7,000 instructions that way, a tenth
/// of the call (callgrind, BENCHMARKS.md). A scan of up to [`SCAN_MEMBERS`] short keys costs a
/// few dozen. Inlined: with `key` a constant, the comparisons reduce to a length check and a
/// short compare (out of line, the same lookups of a stateless call cost ~650 instructions more).
#[inline]
pub(crate) fn member<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if object.len() > SCAN_MEMBERS {
        return object.get(key);
    }
    object.iter().find_map(|(k, v)| (k == key).then_some(v))
}

/// [`member`] of a value that may not be an object.
#[cfg(feature = "http")]
pub(crate) fn value_member<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    member(value.as_object()?, key)
}

/// Objects up to this many members are scanned rather than hashed (see [`member`]).
const SCAN_MEMBERS: usize = 12;

/// The severity of a log message, lowest first (the syslog levels MCP uses); serialized as its
/// wire name ([`LogLevel::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `notice`
    Notice,
    /// `warning`
    Warning,
    /// `error`
    Error,
    /// `critical`
    Critical,
    /// `alert`
    Alert,
    /// `emergency`
    Emergency,
}

impl LogLevel {
    /// Every level, lowest first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

impl std::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A peer's `Implementation`: `serverInfo` or `clientInfo`; serialized as published.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Implementation {
    /// `name`
    pub name: String,
    /// `version`
    pub version: String,
    /// `title`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` (2025-11-25): what the implementation does, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Implementation {
    /// Reads an `Implementation` object; `None` without a string `name`.
    ///
    /// Hand-written, not derived: it reads a peer's object leniently (a `version`, `title` or
    /// `description` that is not a string is left out, where a derive would refuse the whole
    /// object and lose the `name`).
    pub fn from_json(v: &Value) -> Option<Self> {
        Some(Implementation {
            name: v.get("name")?.as_str()?.to_owned(),
            version: v
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            title: v.get("title").and_then(Value::as_str).map(str::to_owned),
            description: v
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }

    /// The object as published (its `Serialize`, as a `Value`).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("an `Implementation` serializes")
    }
}

/// Who a message is from, in a prompt or a sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `"user"`
    User,
    /// `"assistant"`
    Assistant,
}

impl Role {
    /// The role as MCP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// What a client declared it can do (`capabilities` of `initialize`, or the
/// `io.modelcontextprotocol/clientCapabilities` entry of a stateless request).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
#[serde(transparent)]
pub struct ClientCapabilities(pub Value);

impl ClientCapabilities {
    /// True when the client declared `elicitation` (form mode: `{}` or `{"form": {}}`).
    pub fn elicitation(&self) -> bool {
        match self.0.get("elicitation") {
            Some(Value::Object(e)) => e.is_empty() || e.contains_key("form"),
            _ => false,
        }
    }

    /// True when the client declared `sampling`.
    pub fn sampling(&self) -> bool {
        self.0.get("sampling").is_some_and(Value::is_object)
    }

    /// True when the client declared `sampling.tools` (2025-11-25): a sampling request may then
    /// carry `tools` and `toolChoice`.
    pub fn sampling_tools(&self) -> bool {
        self.0
            .get("sampling")
            .and_then(|s| s.get("tools"))
            .is_some_and(Value::is_object)
    }

    /// True when the client declared `roots`.
    pub fn roots(&self) -> bool {
        self.0.get("roots").is_some_and(Value::is_object)
    }

    /// The capabilities object as sent.
    pub fn as_json(&self) -> &Value {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_member_reader_and_the_value_reader_agree() {
        let lines: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"s","result":{"ok":true}}"#,
            r#"{"jsonrpc":"2.0","id":"s","result":null}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}"#,
            r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            r#"{"id":3,"method":"ping"}"#,
            r#"{"jsonrpc":2,"id":3,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"a","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":1,"error":{}}"#,
            r#"{"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2\u002e0","id":4,"method":"ping","extra":{"deep":[1]}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"7"#,
        ];
        for line in lines {
            let fast = Incoming::parse(line.as_bytes());
            let general = serde_json::from_str::<Value>(line)
                .map_err(|_| ())
                .map(Incoming::from_value)
                .unwrap();
            assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{line}");
            let text = Incoming::parse_text(line);
            assert_eq!(format!("{text:?}"), format!("{general:?}"), "{line}");
        }
        let error = Incoming::parse(b"{not json").unwrap_err();
        assert_eq!(error.error.code, crate::error::codes::PARSE_ERROR);
        // Bytes that are not UTF-8, in a string or alone, are a parse error in serde_json's words.
        for line in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}"[..],
            b"\xc3\x28",
        ] {
            let error = Incoming::parse(line).unwrap_err();
            assert_eq!(error.error.code, crate::error::codes::PARSE_ERROR);
            assert!(
                error.error.message.starts_with("Parse error: "),
                "{}",
                error.error.message
            );
            assert!(error.id.is_none());
        }
    }

    #[test]
    fn an_implementation_and_a_log_level_are_written_as_published() {
        let mut info = Implementation {
            name: "shop".into(),
            version: "1.0".into(),
            ..Implementation::default()
        };
        assert_eq!(
            info.to_json().to_string(),
            r#"{"name":"shop","version":"1.0"}"#
        );
        info.title = Some("Shop".into());
        info.description = Some("Sells things".into());
        assert_eq!(
            info.to_json().to_string(),
            r#"{"name":"shop","version":"1.0","title":"Shop","description":"Sells things"}"#
        );
        for level in LogLevel::ALL {
            assert_eq!(serde_json::json!(level), level.as_str());
        }
    }

    #[test]
    fn an_error_response_is_written_as_json_rpc_gives_it() {
        let error = ProtocolError::invalid_params("Invalid params: no `name`");
        assert_eq!(
            error_response(&Value::from(7), &error).to_string(),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: no `name`"}}"#
        );
        let error = error.with_data(serde_json::json!({"z": 1, "a": [2]}));
        assert_eq!(
            error_response(&Value::Null, &error).to_string(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Invalid params: no `name`","data":{"z":1,"a":[2]}}}"#
        );
    }
}
