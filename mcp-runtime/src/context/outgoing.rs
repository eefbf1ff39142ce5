//! What a connection's queue carries to the client: any JSON message, or a progress notification
//! kept typed until it is written.
//!
//! A tool that reports progress does so on every call; built as a `serde_json::Value` the
//! notification cost about 5,000 instructions (two maps, each key hashed into serde_json's
//! `IndexMap`, and their drop) before it was written, about as many as a whole call's validation
//! (callgrind, BENCHMARKS.md). Typed, it is a small struct serialized straight into the response
//! body, with the same bytes.

use std::fmt;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

/// One message a server sends: a response, a notification or a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    /// A message as JSON.
    Json(Value),
    /// `notifications/progress`.
    Progress(Progress),
}

/// The params of a `notifications/progress`: what a tool's `Context::progress` sends, and what
/// the in-process client hands its `on_progress` callback.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// The request's `progressToken`.
    #[serde(rename = "progressToken")]
    pub token: Value,
    /// How much is done; grows from one report to the next.
    pub progress: f64,
    /// How much there is to do, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What is being done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Outgoing {
    /// The message as JSON: what a consumer that inspects messages reads.
    pub fn into_value(self) -> Value {
        match self {
            Outgoing::Json(v) => v,
            // Plain JSON (a non-finite number becomes `null`, as `json!` makes it): no error.
            Outgoing::Progress(p) => {
                serde_json::to_value(Outgoing::Progress(p)).unwrap_or(Value::Null)
            }
        }
    }
}

const PROGRESS: &str = "notifications/progress";

impl From<Value> for Outgoing {
    fn from(v: Value) -> Self {
        Outgoing::Json(v)
    }
}

/// Hand-written: a progress notification is written from its typed params without a `Value`
/// (BENCHMARKS.md, "A progress notification stays typed": about 5,000 instructions per
/// notification, `sse` -14.1 %).
impl Serialize for Outgoing {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outgoing::Json(v) => v.serialize(serializer),
            Outgoing::Progress(p) => {
                // The members in the order `protocol::notification_message` gives them.
                let mut m = serializer.serialize_map(Some(3))?;
                m.serialize_entry("jsonrpc", "2.0")?;
                m.serialize_entry("method", PROGRESS)?;
                m.serialize_entry("params", p)?;
                m.end()
            }
        }
    }
}

/// Compact JSON, as `Value`'s `Display` writes it.
impl fmt::Display for Outgoing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outgoing::Json(v) => v.fmt(f),
            Outgoing::Progress(_) => {
                let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
                f.write_str(&text)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;
    use crate::protocol::notification_message;

    /// The typed notification writes the bytes the `Value` one did, every member present or not.
    #[test]
    fn progress_writes_what_the_value_wrote() {
        for (total, message) in [
            (None, None),
            (Some(10.0), None),
            (None, Some("half")),
            (Some(2.5), Some("a \"quoted\" step")),
        ] {
            let token = json!("p-1");
            let mut params = Map::new();
            params.insert("progressToken".into(), token.clone());
            params.insert("progress".into(), json!(1.0));
            if let Some(t) = total {
                params.insert("total".into(), json!(t));
            }
            if let Some(m) = message {
                params.insert("message".into(), m.into());
            }
            let value = notification_message(PROGRESS, Value::Object(params));
            let typed = Outgoing::Progress(Progress {
                token,
                progress: 1.0,
                total,
                message: message.map(str::to_owned),
            });
            assert_eq!(serde_json::to_string(&typed).unwrap(), value.to_string());
            assert_eq!(typed.to_string(), value.to_string());
            assert_eq!(typed.into_value(), value);
        }
        let json = Outgoing::from(json!({"jsonrpc": "2.0", "method": "x"}));
        assert_eq!(json.to_string(), r#"{"jsonrpc":"2.0","method":"x"}"#);
    }
}
