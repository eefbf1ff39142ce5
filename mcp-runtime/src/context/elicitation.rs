//! Elicitation: asking the user for a few values through the client, mid-call.
//!
//! The specification restricts the requested schema to a flat object whose properties are
//! primitives (string, number, integer, boolean, an enum of strings, or an array of enum
//! strings). [`requested_schema`] derives that form from a Rust type's schema, or explains why
//! the type does not fit.

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

use super::ClientRequestError;
use crate::error::{ProtocolError, ToolError};

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form; the values, already deserialized.
    Accept(T),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// Why an elicitation produced no answer.
// What any request to the client can meet reads the same as there (`ClientRequestError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ElicitError {
    /// The call is not attached to a client ([`crate::Context::detached`]).
    #[error("{}", ClientRequestError::NotConnected)]
    NotConnected,
    /// The client did not declare the `elicitation` capability.
    #[error("the client does not support elicitation")]
    Unsupported,
    /// The type's schema is not the flat form elicitation allows; the text says which property.
    #[error("the requested type cannot be elicited: {0}")]
    Schema(String),
    /// The client answered the request with an error.
    #[error("the client refused the elicitation: {0}")]
    Client(ProtocolError),
    /// The client's answer is not a valid elicitation result, or its values do not fit the type.
    #[error("invalid elicitation response: {0}")]
    InvalidResponse(String),
    /// The connection closed before the answer arrived.
    #[error("{}", ClientRequestError::Disconnected)]
    Disconnected,
    /// No answer came within the server's `client_request_timeout`.
    #[error("{}", ClientRequestError::TimedOut(*.0))]
    TimedOut(std::time::Duration),
}

impl ElicitError {
    /// The failure of the request that carried the elicitation.
    pub(crate) fn from_request(e: ClientRequestError) -> Self {
        match e {
            ClientRequestError::NotConnected | ClientRequestError::Stateless => {
                ElicitError::NotConnected
            }
            ClientRequestError::Client(e) => ElicitError::Client(e),
            ClientRequestError::Disconnected => ElicitError::Disconnected,
            ClientRequestError::TimedOut(d) => ElicitError::TimedOut(d),
        }
    }

    /// A tool error the model can read, with this message (for example, how to call the tool
    /// again with the value it could not ask for).
    pub fn into_tool_error(self, message: impl Into<String>) -> ToolError {
        tracing::info!(error = %self, "elicitation failed");
        ToolError::new(message)
    }
}

/// The restricted `requestedSchema` for `T`.
pub fn requested_schema<T: JsonSchema>() -> Result<Value, ElicitError> {
    let mut generator = crate::schema::generator();
    let root = generator.root_schema_for::<T>().to_value();
    flatten(&root).map_err(ElicitError::Schema)
}

fn flatten(root: &Value) -> Result<Value, String> {
    let defs = root.get("$defs").and_then(Value::as_object);
    let root = resolve(root, defs)?;
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the type must be a struct with named fields".into());
    }
    let mut properties = Map::new();
    if let Some(props) = root.get("properties").and_then(Value::as_object) {
        for (name, schema) in props {
            let schema = resolve(schema, defs)?;
            let flat = primitive(schema, defs).map_err(|why| format!("property `{name}` {why}"))?;
            properties.insert(name.clone(), flat);
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(properties));
    if let Some(req) = root.get("required").and_then(Value::as_array)
        && !req.is_empty()
    {
        out.insert("required".into(), Value::Array(req.clone()));
    }
    Ok(Value::Object(out))
}

fn resolve<'a>(
    schema: &'a Value,
    defs: Option<&'a Map<String, Value>>,
) -> Result<&'a Value, String> {
    match schema.get("$ref").and_then(Value::as_str) {
        None => Ok(schema),
        Some(r) => r
            .strip_prefix("#/$defs/")
            .and_then(|name| defs?.get(name))
            .ok_or_else(|| format!("has an unresolvable reference `{r}`")),
    }
}

/// Keys a primitive property keeps.
const KEPT: &[&str] = &[
    "title",
    "description",
    "default",
    "minLength",
    "maxLength",
    "format",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
];

fn primitive(schema: &Value, defs: Option<&Map<String, Value>>) -> Result<Value, String> {
    // `Option<T>`: `anyOf: [T, {"type": "null"}]` or `type: [T, "null"]`; optionality is
    // already expressed by `required`.
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let non_null: Vec<&Value> = any
            .iter()
            .filter(|s| s.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if let [only] = non_null.as_slice() {
            let mut inner = primitive(resolve(only, defs)?, defs)?;
            copy_annotations(schema, &mut inner);
            return Ok(inner);
        }
        return Err("is a union, which elicitation cannot ask for".into());
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            let non_null: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match non_null.as_slice() {
                [t] => (*t).to_owned(),
                _ => return Err("has several types".into()),
            }
        }
        _ => {
            if let Some(values) = enum_values(schema) {
                let mut out = json!({"type": "string", "enum": values});
                copy_annotations(schema, &mut out);
                return Ok(out);
            }
            return Err("has no primitive type".into());
        }
    };
    let mut out = Map::new();
    out.insert("type".into(), ty.clone().into());
    match ty.as_str() {
        "string" => {
            if let Some(values) = enum_values(schema) {
                out.insert("enum".into(), Value::Array(values));
            }
        }
        "number" | "integer" | "boolean" => {}
        "array" => {
            let items = schema
                .get("items")
                .map(|i| resolve(i, defs))
                .transpose()?
                .and_then(enum_values)
                .ok_or("is an array; only arrays of enum strings can be elicited")?;
            out.insert("items".into(), json!({"type": "string", "enum": items}));
        }
        other => {
            return Err(format!(
                "has type `{other}`; only primitives can be elicited"
            ));
        }
    }
    let mut out = Value::Object(out);
    copy_annotations(schema, &mut out);
    Ok(out)
}

fn copy_annotations(from: &Value, to: &mut Value) {
    let (Some(from), Some(to)) = (from.as_object(), to.as_object_mut()) else {
        return;
    };
    for key in KEPT {
        if let Some(v) = from.get(*key) {
            // schemars emits Rust integer formats (`uint32`); only the spec's string formats stay.
            if *key == "format"
                && !matches!(v.as_str(), Some("email" | "uri" | "date" | "date-time"))
            {
                continue;
            }
            to.entry(key.to_string()).or_insert_with(|| v.clone());
        }
    }
}

/// The string values of an enum schema: `enum: [...]` or `oneOf: [{const}, ...]`.
fn enum_values(schema: &Value) -> Option<Vec<Value>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().all(Value::is_string).then(|| values.clone());
    }
    let variants = schema.get("oneOf").and_then(Value::as_array)?;
    variants
        .iter()
        .map(|v| v.get("const").filter(|c| c.is_string()).cloned())
        .collect()
}

/// Reads an `elicitation/create` result into the typed answer.
pub(crate) fn parse_answer<T: serde::de::DeserializeOwned>(
    result: &Value,
    requested: &Value,
) -> Result<Elicitation<T>, ElicitError> {
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let mut content = result.get("content").cloned().unwrap_or_else(|| json!({}));
            // The answer is checked against the schema the server asked with before any of it
            // is deserialized: an answer outside it is an invalid response, named field by field.
            let validator = crate::validate::Validator::compile(requested)
                .map_err(|e| ElicitError::Schema(e.to_string()))?;
            let violations = validator.validate(&mut content);
            if !violations.is_empty() {
                let listed: Vec<String> = violations
                    .iter()
                    .map(|v| format!("{}: {}", v.path, v.message))
                    .collect();
                return Err(ElicitError::InvalidResponse(listed.join("; ")));
            }
            serde_json::from_value(content)
                .map(Elicitation::Accept)
                .map_err(|e| ElicitError::InvalidResponse(e.to_string()))
        }
        Some("decline") => Ok(Elicitation::Decline),
        Some("cancel") => Ok(Elicitation::Cancel),
        _ => Err(ElicitError::InvalidResponse(
            "`action` must be \"accept\", \"decline\" or \"cancel\"".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    #[schemars(rename_all = "lowercase")]
    enum Color {
        Red,
        Green,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        /// The room to book.
        room_id: String,
        count: Option<u32>,
        ok: bool,
        color: Color,
        tags: Vec<Color>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Form,
    }

    #[test]
    fn flattens_a_struct_of_primitives() {
        let s = requested_schema::<Form>().unwrap();
        assert_eq!(s["type"], "object");
        assert_eq!(s["properties"]["room_id"]["type"], "string");
        assert_eq!(
            s["properties"]["room_id"]["description"],
            "The room to book."
        );
        assert_eq!(s["properties"]["count"]["type"], "integer");
        assert!(s["properties"]["count"].get("format").is_none());
        assert_eq!(s["properties"]["ok"]["type"], "boolean");
        assert_eq!(s["properties"]["color"]["enum"], json!(["red", "green"]));
        assert_eq!(
            s["properties"]["tags"]["items"]["enum"],
            json!(["red", "green"])
        );
        assert_eq!(s["required"], json!(["room_id", "ok", "color", "tags"]));
    }

    #[test]
    fn rejects_nested_objects_naming_the_property() {
        match requested_schema::<Nested>() {
            Err(ElicitError::Schema(m)) => assert!(m.contains("`inner`"), "{m}"),
            other => panic!("expected a schema error, got {other:?}"),
        }
    }

    #[test]
    fn parses_each_action() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct A {
            x: i32,
        }
        let schema =
            json!({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]});
        assert_eq!(
            parse_answer::<A>(&json!({"action": "accept", "content": {"x": 1}}), &schema).unwrap(),
            Elicitation::Accept(A { x: 1 })
        );
        assert_eq!(
            parse_answer::<A>(&json!({"action": "decline"}), &schema).unwrap(),
            Elicitation::Decline
        );
        assert_eq!(
            parse_answer::<A>(&json!({"action": "cancel"}), &schema).unwrap(),
            Elicitation::Cancel
        );
        assert!(matches!(
            parse_answer::<A>(&json!({"action": "accept", "content": {"x": "no"}}), &schema),
            Err(ElicitError::InvalidResponse(m)) if m == "/x: must be an integer (got string)"
        ));
        // Checked against the requested schema before deserializing: a missing field is named.
        assert!(matches!(
            parse_answer::<A>(&json!({"action": "accept", "content": {}}), &schema),
            Err(ElicitError::InvalidResponse(m)) if m.contains("missing required") && m.contains("\"x\"")
        ));
    }
}
