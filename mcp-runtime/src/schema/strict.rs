//! Strict objects: every object schema derived for an argument type refuses keys it does not
//! declare, so that a misspelt field (`colorhex` for `colorHex`) is reported at its pointer
//! instead of being dropped by serde and read as absent.
//!
//! The rule, applied to each schema that declares `properties`:
//! - a schema that already says what other keys get (`additionalProperties`,
//!   `unevaluatedProperties` or `patternProperties`) is left as it is: a catch-all map
//!   (`#[serde(flatten)] extra: HashMap<..>`), a type that opts out with
//!   `#[schemars(extend("additionalProperties" = true))]`, or `deny_unknown_fields`;
//! - otherwise, with no composition beside the properties, it gets `additionalProperties: false`;
//! - with a composition beside them (`oneOf`/`anyOf`/`allOf`, `if`/`then`/`else`,
//!   `dependentSchemas`, `$ref`: what schemars emits for a `#[serde(flatten)]` enum), it gets
//!   `unevaluatedProperties: false`, which sees the keys the composition's branches declare;
//!   `additionalProperties: false` would refuse them. The branches themselves are partial
//!   objects and are not closed at their top level.
//!
//! The branches of a `oneOf`/`anyOf` standing alone (an enum argument) are whole objects and are
//! closed like any other. `allOf` branches are always partial, and nothing under `not` is touched
//! (closing a negated schema would widen what it accepts). Values (`const`, `enum`, `default`,
//! `examples`) are data, not schemas, and are never visited.

use serde_json::{Map, Value};

/// Keywords that apply subschemas to the same object beside `properties`.
const COMPOSITION: &[&str] = &[
    "allOf",
    "oneOf",
    "anyOf",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "$ref",
];

/// Keywords that already say what undeclared keys get.
const OPEN: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "patternProperties",
];

/// Closes every object schema in `schema`, a whole argument schema (or a `$defs` entry).
pub(crate) fn close_objects(schema: &mut Value) {
    close(schema, false);
}

/// `partial`: the schema is a branch of a composition whose parent declares properties, so its
/// own top level must stay open.
fn close(schema: &mut Value, partial: bool) {
    let Value::Object(obj) = schema else { return };
    let declares = obj.contains_key("properties");
    let composed = COMPOSITION.iter().any(|k| obj.contains_key(*k));
    if declares && !partial && !OPEN.iter().any(|k| obj.contains_key(*k)) {
        let key = if composed {
            "unevaluatedProperties"
        } else {
            "additionalProperties"
        };
        obj.insert(key.into(), false.into());
    }
    // -- subschemas of the values of keys: whole schemas --
    for key in [
        "additionalProperties",
        "unevaluatedProperties",
        "items",
        "contains",
    ] {
        if let Some(child) = obj.get_mut(key) {
            close(child, false);
        }
    }
    for key in ["properties", "patternProperties", "$defs"] {
        each_value(obj, key, |child| close(child, false));
    }
    if let Some(Value::Array(items)) = obj.get_mut("prefixItems") {
        items.iter_mut().for_each(|child| close(child, false));
    }
    // -- subschemas applied to the same instance --
    let branches_partial = partial || declares;
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = obj.get_mut(key) {
            branches
                .iter_mut()
                .for_each(|child| close(child, branches_partial));
        }
    }
    if let Some(Value::Array(branches)) = obj.get_mut("allOf") {
        branches.iter_mut().for_each(|child| close(child, true));
    }
    for key in ["if", "then", "else"] {
        if let Some(child) = obj.get_mut(key) {
            close(child, true);
        }
    }
    each_value(obj, "dependentSchemas", |child| close(child, true));
}

fn each_value(obj: &mut Map<String, Value>, key: &str, mut f: impl FnMut(&mut Value)) {
    if let Some(Value::Object(children)) = obj.get_mut(key) {
        children.values_mut().for_each(&mut f);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn closed(mut v: Value) -> Value {
        close_objects(&mut v);
        v
    }

    #[test]
    fn closes_plain_objects_and_leaves_open_ones() {
        #[rustfmt::skip]
        let table = [
            // A struct: closed, and its nested struct too.
            (json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {}}}}}),
             json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {}}, "additionalProperties": false}}, "additionalProperties": false})),
            // A catch-all map, an opt-out, a map with integer keys: left as they are.
            (json!({"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}),
             json!({"properties": {"a": {}}, "additionalProperties": {"type": "integer"}})),
            (json!({"properties": {"a": {}}, "additionalProperties": true}),
             json!({"properties": {"a": {}}, "additionalProperties": true})),
            (json!({"type": "object", "patternProperties": {"^1$": {}}, "additionalProperties": false}),
             json!({"type": "object", "patternProperties": {"^1$": {}}, "additionalProperties": false})),
            // An enum argument: each branch is a whole object.
            (json!({"oneOf": [{"properties": {"kind": {"const": "a"}}}, {"properties": {"kind": {"const": "b"}, "x": {}}}]}),
             json!({"oneOf": [{"properties": {"kind": {"const": "a"}}, "additionalProperties": false}, {"properties": {"kind": {"const": "b"}, "x": {}}, "additionalProperties": false}]})),
            // A struct with a flattened enum: the parent sees its branches' keys, they stay open;
            // a struct inside a branch's property is closed.
            (json!({"properties": {"a": {}}, "oneOf": [{"properties": {"k": {"properties": {"z": {}}}}}]}),
             json!({"properties": {"a": {}}, "oneOf": [{"properties": {"k": {"properties": {"z": {}}, "additionalProperties": false}}}], "unevaluatedProperties": false})),
            // `allOf` branches are partial, `not` is not visited, values are data.
            (json!({"allOf": [{"properties": {"a": {}}}], "not": {"properties": {"n": {}}}, "default": {"properties": {}}, "const": {"properties": {}}}),
             json!({"allOf": [{"properties": {"a": {}}}], "not": {"properties": {"n": {}}}, "default": {"properties": {}}, "const": {"properties": {}}})),
            // Arrays, maps and `$defs` of structs.
            (json!({"items": {"properties": {"a": {}}}, "prefixItems": [{"properties": {}}], "$defs": {"T": {"properties": {}}}, "additionalProperties": {"properties": {}}}),
             json!({"items": {"properties": {"a": {}}, "additionalProperties": false}, "prefixItems": [{"properties": {}, "additionalProperties": false}], "$defs": {"T": {"properties": {}, "additionalProperties": false}}, "additionalProperties": {"properties": {}, "additionalProperties": false}})),
        ];
        for (input, expected) in table {
            assert_eq!(closed(input.clone()), expected, "{input}");
        }
    }
}
