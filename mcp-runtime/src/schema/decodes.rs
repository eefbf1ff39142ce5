//! What serde refuses that the published schema accepts, found when the server is built. The
//! case that matters: `#[serde(deny_unknown_fields)]` together with `#[serde(flatten)]`, which
//! serde does not support. Such a type builds, publishes a sound schema, and then refuses every
//! call with `unknown field`. Each argument type registers how it decodes. The build writes one
//! instance of the published inputSchema (every property it can fill, so that flattened fields
//! are present) and, when our validator accepts it, decodes each argument from it: an `unknown
//! field` there is a build error naming serde's limitation and the fix. An instance this module
//! cannot write (a `pattern`, an unknown `format`) checks nothing: never a false alarm.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// How one argument decodes: the property it is (`None` for a flattened struct, which reads the
/// whole arguments object), what to call it, and the decoding.
pub(crate) struct Decoder {
    pub(crate) arg: Option<&'static str>,
    pub(crate) source: String,
    pub(crate) decode: fn(&Value) -> Result<(), String>,
}

/// Decodes `value` as `T`, keeping only serde's message.
pub(crate) fn decode_as<T: DeserializeOwned>(value: &Value) -> Result<(), String> {
    T::deserialize(value).map(drop).map_err(|e| e.to_string())
}

/// Decodes a flattened `T` from the arguments it publishes, as the call path hands them to it.
pub(crate) fn decode_flat_as<T: DeserializeOwned + JsonSchema>(args: &Value) -> Result<(), String> {
    let keys = super::flat_keys::<T>();
    let own: Map<String, Value> = args
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| keys.names.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    decode_as::<T>(&Value::Object(own))
}

/// The problem of each decoder that refuses, with `unknown field`, what `accepts` accepts of
/// an instance of `schema`; none when no instance can be written or `accepts` refuses it.
pub(crate) fn problems(
    schema: &Value,
    decoders: &[Decoder],
    accepts: impl Fn(&mut Value) -> bool,
) -> Vec<String> {
    let Some(mut args) = instance(schema, schema, 0) else {
        return Vec::new();
    };
    if !accepts(&mut args) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for d in decoders {
        let value = match d.arg {
            Some(name) => match args.get(name) {
                Some(v) => v,
                None => continue,
            },
            None => &args,
        };
        if let Err(e) = (d.decode)(value)
            && e.contains("unknown field")
        {
            out.push(format!(
                "{} refuses a value its published schema accepts ({value}): serde said \
                 \"{e}\". serde does not support `#[serde(deny_unknown_fields)]` together \
                 with `#[serde(flatten)]` (on the struct or on a flattened field), which \
                 refuses every field; remove `deny_unknown_fields`: the published schema \
                 already refuses unknown fields (`additionalProperties: false`)",
                d.source
            ));
        }
    }
    out
}

/// One value `schema` accepts, with every property it can fill; `None` when it cannot tell.
fn instance(schema: &Value, root: &Value, depth: u32) -> Option<Value> {
    if depth > 16 {
        return None;
    }
    let obj = match schema {
        Value::Bool(true) => return Some(Value::Null),
        Value::Object(o) => o,
        _ => return None,
    };
    if let Some(Value::String(r)) = obj.get("$ref") {
        let target = r.strip_prefix('#').map(|p| root.pointer(p))?;
        return instance(target?, root, depth + 1);
    }
    if let Some(v) = obj.get("const") {
        return Some(v.clone());
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        return values.first().cloned();
    }
    if obj.contains_key("pattern") || obj.contains_key("allOf") || obj.contains_key("not") {
        return None;
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            let mut merged = branches.iter().find_map(|b| instance(b, root, depth + 1))?;
            // Beside a union, the object's own properties (a tagged enum's shared fields).
            if let (Value::Object(m), Some(Value::Object(_))) = (&mut merged, obj.get("properties"))
                && let Some(Value::Object(own)) = object(obj, root, depth)
            {
                for (k, v) in own {
                    m.entry(k).or_insert(v);
                }
            }
            return Some(merged);
        }
    }
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null")?,
        None if obj.contains_key("properties") => "object",
        None => return Some(Value::Null),
        _ => return None,
    };
    match ty {
        "object" => object(obj, root, depth),
        "array" => {
            let n = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let items = obj.get("items").unwrap_or(&Value::Bool(true));
            let item = if n > 0 {
                instance(items, root, depth + 1)?
            } else {
                Value::Null
            };
            Some(Value::Array(vec![item; n as usize]))
        }
        "string" => string(obj),
        "integer" | "number" => {
            let lo = obj.get("minimum").and_then(Value::as_i64).unwrap_or(0);
            let lo = match obj.get("exclusiveMinimum").and_then(Value::as_i64) {
                Some(x) => lo.max(x + 1),
                None => lo,
            };
            Some(json!(lo))
        }
        "boolean" => Some(json!(false)),
        "null" => Some(Value::Null),
        _ => None,
    }
}

/// Every property that can be filled; `None` when a required one cannot.
fn object(obj: &Map<String, Value>, root: &Value, depth: u32) -> Option<Value> {
    let required: Vec<&str> = match obj.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut out = Map::new();
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (name, schema) in props {
            match instance(schema, root, depth + 1) {
                Some(v) => {
                    out.insert(name.clone(), v);
                }
                None if required.contains(&name.as_str()) => return None,
                None => {}
            }
        }
    }
    Some(Value::Object(out))
}

fn string(obj: &Map<String, Value>) -> Option<Value> {
    if let Some(Value::String(f)) = obj.get("format") {
        let sample = match f.as_str() {
            "date-time" => "2026-01-01T00:00:00Z",
            "date" => "2026-01-01",
            "time" => "00:00:00Z",
            "email" => "a@example.com",
            "uri" | "iri" | "uri-reference" | "iri-reference" => "https://example.com/",
            "uuid" => "00000000-0000-0000-0000-000000000000",
            "ipv4" => "127.0.0.1",
            "ipv6" => "::1",
            "hostname" | "idn-hostname" => "example.com",
            "idn-email" => "a@example.com",
            "ip" => "127.0.0.1",
            "duration" => "P1D",
            "json-pointer" => "/a",
            "relative-json-pointer" => "0",
            "regex" => "a",
            "uri-template" => "https://example.com/{id}",
            _ => return None,
        };
        return Some(json!(sample));
    }
    let n = obj.get("minLength").and_then(Value::as_u64).unwrap_or(1);
    let max = obj
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    Some(Value::String("a".repeat(n.min(max) as usize)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_fill_every_property_they_can() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 3},
                "when": {"type": "string", "format": "date"},
                "code": {"type": "string", "pattern": "^[A-Z]+$"},
                "n": {"type": "integer", "minimum": 5},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "inner": {"$ref": "#/$defs/Inner"},
                "maybe": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}
            },
            "required": ["name", "inner"],
            "$defs": {"Inner": {"type": "object", "properties": {"x": {"const": 1}}, "required": ["x"]}}
        });
        let got = instance(&schema, &schema, 0).unwrap();
        assert_eq!(
            got,
            json!({"name": "aaa", "when": "2026-01-01", "n": 5, "tags": ["a", "a"],
                   "inner": {"x": 1}, "maybe": false})
        );
        // A required property it cannot write: no instance, so no check.
        let hard = json!({"type": "object", "properties": {"c": {"type": "string", "pattern": "x"}}, "required": ["c"]});
        assert_eq!(instance(&hard, &hard, 0), None);
    }
}
