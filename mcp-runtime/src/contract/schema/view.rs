//! The schema as the walk sees it: local `$ref`s followed, pydantic's optional unions unfolded.

use serde_json::{Map, Value};

use super::{ANNOTATIONS, MAX_REF_DEPTH};

/// The schema as the walk compares it: a local `$ref` replaced by its target (its siblings kept),
/// and a pydantic-style optional `anyOf: [X, {"type": "null"}]` read as X that also allows null.
/// The flag says whether a `$ref` was followed (it counts toward [`MAX_REF_DEPTH`]).
pub(crate) fn view(schema: &Value, root: &Value, depth: usize) -> (Value, bool) {
    let mut followed = false;
    let mut s = schema.clone();
    if let Some(target) = s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(r, root))
        && depth < MAX_REF_DEPTH
    {
        let mut merged = target.as_object().cloned().unwrap_or_default();
        if let Some(m) = s.as_object() {
            for (k, v) in m {
                if k != "$ref" {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
        s = Value::Object(merged);
        followed = true;
    }
    if let Some(nullable) = unfold_nullable(&s, root, depth) {
        s = nullable;
    }
    (s, followed)
}

fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let decoded = percent_encoding::percent_decode_str(pointer)
        .decode_utf8()
        .ok()?;
    root.pointer(&decoded)
}

/// `anyOf: [X, {"type": "null"}]` (either order) where X has a `type`: X's keywords with `null`
/// added to its type (and to its `enum`), the parent's other keywords kept.
fn unfold_nullable(s: &Value, root: &Value, depth: usize) -> Option<Value> {
    let m = s.as_object()?;
    let branches = m.get("anyOf").or_else(|| m.get("oneOf"))?.as_array()?;
    let [a, b] = branches.as_slice() else {
        return None;
    };
    let is_null = |v: &Value| {
        v.get("type").and_then(Value::as_str) == Some("null")
            && v.as_object().is_some_and(|o| o.len() == 1)
    };
    let x = if is_null(b) {
        a
    } else if is_null(a) {
        b
    } else {
        return None;
    };
    let (x, _) = view(x, root, depth + 1);
    let x = x.as_object()?;
    let mut types = match x.get("type")? {
        Value::String(t) => vec![Value::String(t.clone())],
        Value::Array(a) => a.clone(),
        _ => return None,
    };
    if m.keys()
        .any(|k| x.contains_key(k) && !ANNOTATIONS.contains(&k.as_str()) && k != "default")
    {
        return None;
    }
    let mut out: Map<String, Value> = m
        .iter()
        .filter(|(k, _)| *k != "anyOf" && *k != "oneOf")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in x {
        out.entry(k.clone()).or_insert_with(|| v.clone());
    }
    if !types.contains(&Value::from("null")) {
        types.push(Value::from("null"));
    }
    types.sort_by_key(|t| t.to_string());
    out.insert("type".into(), Value::Array(types));
    if let Some(c) = out.remove("const") {
        out.insert("enum".into(), Value::Array(vec![c]));
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Some(Value::Object(out))
}

pub(crate) fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(a) => a.iter().any(has_ref),
        _ => false,
    }
}

/// Whether a `$ref` inside `v` (followed transitively through the definitions it reaches)
/// resolves to different values in `old_root` and `new_root`, or in only one of them.
pub(crate) fn refs_differ(v: &Value, old_root: &Value, new_root: &Value) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = Vec::new();
    collect_refs(v, &mut todo);
    while let Some(r) = todo.pop() {
        if !seen.insert(r.clone()) {
            continue;
        }
        let (a, b) = (resolve(&r, old_root), resolve(&r, new_root));
        if a != b {
            return true;
        }
        if let Some(target) = a {
            collect_refs(target, &mut todo);
        }
    }
    false
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r.clone());
            }
            m.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}
