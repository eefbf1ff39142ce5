//! The normal form of a published contract: object keys sorted, entries sorted by their key,
//! and every form equal to its default removed, so that two servers publishing the same contract
//! in different words produce the same snapshot, byte for byte.

use serde_json::{Map, Value};

/// Keywords whose value is one schema.
const SCHEMA_VALUED: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// A schema keyword whose value means the same as its absence.
fn is_default(key: &str, value: &Value) -> bool {
    match (key, value) {
        ("required", Value::Array(a)) => a.is_empty(),
        ("additionalProperties" | "unevaluatedProperties" | "items" | "unevaluatedItems", v) => {
            is_true_schema(v)
        }
        ("properties" | "patternProperties" | "$defs" | "definitions", Value::Object(m)) => {
            m.is_empty()
        }
        ("minLength" | "minItems" | "minProperties", v) => v.as_u64() == Some(0),
        ("uniqueItems" | "deprecated" | "readOnly" | "writeOnly", Value::Bool(b)) => !b,
        _ => false,
    }
}

/// `true` or `{}`: the schema every instance meets.
pub(crate) fn is_true_schema(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// A JSON value with every object's keys sorted (arrays keep their order).
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// A JSON Schema in normal form: keys sorted, default-equivalent keywords removed, `type` and
/// `required` as sorted sets (`type: ["string"]` becomes `type: "string"`), recursively through
/// every keyword that holds schemas.
pub fn schema(value: &Value) -> Value {
    let Value::Object(m) = value else {
        return value.clone();
    };
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    let mut out = Map::new();
    for key in keys {
        let v = &m[key];
        let k = key.as_str();
        let v = if SCHEMA_VALUED.contains(&k) {
            schema(v)
        } else if SCHEMA_MAPS.contains(&k) {
            match v {
                Value::Object(inner) => {
                    let mut names: Vec<&String> = inner.keys().collect();
                    names.sort();
                    Value::Object(
                        names
                            .into_iter()
                            .map(|n| (n.clone(), schema(&inner[n])))
                            .collect(),
                    )
                }
                other => sorted(other),
            }
        } else if SCHEMA_ARRAYS.contains(&k) {
            match v {
                Value::Array(a) => Value::Array(a.iter().map(schema).collect()),
                other => sorted(other),
            }
        } else if k == "required" || k == "type" {
            string_set(v, k == "type")
        } else {
            sorted(v)
        };
        if !is_default(k, &v) {
            out.insert(key.clone(), v);
        }
    }
    Value::Object(out)
}

/// An array of strings sorted and deduplicated; with `unwrap_one` (a `type`), one name as that
/// name.
fn string_set(v: &Value, unwrap_one: bool) -> Value {
    let Value::Array(a) = v else {
        return v.clone();
    };
    let mut names: Vec<Value> = a.clone();
    names.sort_by_key(|x| x.to_string());
    names.dedup();
    if unwrap_one && names.len() == 1 {
        return names.remove(0);
    }
    Value::Array(names)
}

/// The spec's default for each tool annotation hint.
const HINT_DEFAULTS: [(&str, bool); 4] = [
    ("readOnlyHint", false),
    ("destructiveHint", true),
    ("idempotentHint", false),
    ("openWorldHint", true),
];

/// A tool in normal form: its contract's members only (name, title, description, inputSchema,
/// outputSchema, annotations, execution), each hint equal to its default removed, an execution
/// that forbids tasks removed.
pub fn tool(tool: &Value) -> Value {
    let mut out = Map::new();
    for key in ["name", "title", "description"] {
        copy(tool, &mut out, key);
    }
    for key in ["inputSchema", "outputSchema"] {
        if let Some(s) = tool.get(key) {
            out.insert(key.into(), schema(s));
        }
    }
    if let Some(Value::Object(hints)) = tool.get("annotations") {
        let hints: Map<String, Value> = hints
            .iter()
            .filter(|(k, v)| {
                !HINT_DEFAULTS
                    .iter()
                    .any(|(name, default)| k == name && v.as_bool() == Some(*default))
            })
            .map(|(k, v)| (k.clone(), sorted(v)))
            .collect();
        if !hints.is_empty() {
            out.insert("annotations".into(), sorted(&Value::Object(hints)));
        }
    }
    if let Some(Value::Object(execution)) = tool.get("execution") {
        let execution: Map<String, Value> = execution
            .iter()
            .filter(|(k, v)| !(*k == "taskSupport" && v.as_str() == Some("forbidden")))
            .map(|(k, v)| (k.clone(), sorted(v)))
            .collect();
        if !execution.is_empty() {
            out.insert("execution".into(), sorted(&Value::Object(execution)));
        }
    }
    sorted(&Value::Object(out))
}

/// A resource (`uri`, `name`, `title`, `description`, `mimeType`) in normal form.
pub fn resource(resource: &Value) -> Value {
    pick(
        resource,
        &["uri", "name", "title", "description", "mimeType"],
    )
}

/// A resource template (`uriTemplate`, `name`, `title`, `description`, `mimeType`) in normal form.
pub fn template(template: &Value) -> Value {
    pick(
        template,
        &["uriTemplate", "name", "title", "description", "mimeType"],
    )
}

/// A prompt in normal form: `name`, `title`, `description`, and its arguments sorted by name,
/// `required: false` removed.
pub fn prompt(prompt: &Value) -> Value {
    let mut out = pick(prompt, &["name", "title", "description"]);
    if let Some(Value::Array(args)) = prompt.get("arguments") {
        let mut args: Vec<Value> = args
            .iter()
            .map(|a| {
                let mut arg = pick(a, &["name", "title", "description", "required"]);
                if arg.get("required") == Some(&Value::Bool(false)) {
                    arg.as_object_mut().map(|m| m.remove("required"));
                }
                arg
            })
            .collect();
        args.sort_by(|a, b| key_of(a, "name").cmp(key_of(b, "name")));
        if !args.is_empty() {
            out["arguments"] = Value::Array(args);
        }
    }
    sorted(&out)
}

/// The string at `key` (empty when absent): what entries are sorted and matched by.
pub(crate) fn key_of<'a>(entry: &'a Value, key: &str) -> &'a str {
    entry.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn pick(entry: &Value, keys: &[&str]) -> Value {
    let mut out = Map::new();
    for key in keys {
        copy(entry, &mut out, key);
    }
    sorted(&Value::Object(out))
}

fn copy(from: &Value, to: &mut Map<String, Value>, key: &str) {
    if let Some(v) = from.get(key)
        && !v.is_null()
    {
        to.insert(key.into(), sorted(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_removed_and_keys_sorted() {
        let s = json!({"type": ["string"], "required": [], "additionalProperties": true,
                       "properties": {"b": {"minLength": 0, "type": "string"}, "a": {}}});
        let n = schema(&s);
        assert_eq!(
            serde_json::to_string(&n).unwrap(),
            r#"{"properties":{"a":{},"b":{"type":"string"}},"type":"string"}"#
        );
        let t = tool(&json!({"name": "t", "annotations": {"readOnlyHint": false,
            "destructiveHint": true, "idempotentHint": true, "openWorldHint": true},
            "execution": {"taskSupport": "forbidden"}, "_meta": {"x": 1}}));
        assert_eq!(
            t,
            json!({"name": "t", "annotations": {"idempotentHint": true}})
        );
    }
}
