//! The walk into arrays (`items`, `prefixItems`, `contains`, counts, `uniqueItems`) and objects
//! (`properties`, `required`, `patternProperties`, `additionalProperties`, names, dependencies).

use serde_json::{Map, Value};

use super::Validator;
use super::equality::has_duplicates;
use super::node::{Additional, Rules};
use super::path::Path;
use super::report::{Msg, Out, fail, report_name};

impl Validator {
    pub(super) fn check_array(
        &self,
        r: &Rules,
        items: &mut [Value],
        path: &Path<'_>,
        out: &mut Out<'_>,
    ) -> bool {
        let mut ok = true;
        let len = items.len() as u64;
        for msg in outside(len, r.min_items, r.max_items, Msg::MinItems, Msg::MaxItems) {
            fail!(out, ok, path, msg);
        }
        if r.items.is_some() || !r.prefix_items.is_empty() {
            for (i, item) in items.iter_mut().enumerate() {
                if let Some(schema) = r.prefix_items.get(i).copied().or(r.items) {
                    ok &= self.check(schema, item, &path.index(i), out.as_deref_mut());
                    if !ok && out.is_none() {
                        return false;
                    }
                }
            }
        }
        if r.unique_items && has_duplicates(items) {
            fail!(out, ok, path, Msg::Text("must not contain duplicate items"));
        }
        if let Some(contains) = r.contains {
            let mut found = 0u64;
            for (i, item) in items.iter_mut().enumerate() {
                if self.probe(contains, item, &path.index(i)) {
                    found += 1;
                }
            }
            let min = Some(r.min_contains.unwrap_or(1));
            for msg in outside(
                found,
                min,
                r.max_contains,
                Msg::MinContains,
                Msg::MaxContains,
            ) {
                fail!(out, ok, path, msg);
            }
        }
        ok
    }

    pub(super) fn check_object(
        &self,
        r: &Rules,
        map: &mut Map<String, Value>,
        path: &Path<'_>,
        out: &mut Out<'_>,
    ) -> bool {
        let mut ok = true;
        if !r.has_object_rules() {
            return true;
        }
        for name in &r.required {
            if !map.contains_key(&**name) {
                fail!(out, ok, path, Msg::Missing(path.noun(), name));
            }
        }
        let len = map.len() as u64;
        let (min, max) = (r.min_properties, r.max_properties);
        for msg in outside(len, min, max, Msg::MinProperties, Msg::MaxProperties) {
            fail!(out, ok, path, msg);
        }
        for (name, needs) in &r.dependent_required {
            if map.contains_key(&**name) {
                for need in needs {
                    if !map.contains_key(&**need) {
                        fail!(out, ok, path, Msg::Dependent(path.noun(), need, name));
                    }
                }
            }
        }

        // -- named properties, in schema order
        let mut known = 0;
        for (name, schema) in &r.properties {
            if let Some(value) = map.get_mut(&**name) {
                known += 1;
                ok &= self.check(*schema, value, &path.key(name), out.as_deref_mut());
                if !ok && out.is_none() {
                    return false;
                }
            }
        }

        // -- the other keys: patterns, then additionalProperties, then their names
        let all_keys = !r.pattern_properties.is_empty() || r.property_names.is_some();
        let additional = matches!(
            r.additional,
            Some(Additional::Schema(_) | Additional::Forbidden { .. })
        );
        if all_keys || (additional && known < map.len()) {
            ok &= self.check_other_keys(r, map, path, out);
            if !ok && out.is_none() {
                return false;
            }
        }
        ok
    }

    /// `dependentSchemas`: each applies to the object itself, checked where it is, not as a
    /// copy (a probe below may keep its answer by the object's address: `probe.rs`).
    #[cold]
    pub(super) fn check_dependent(
        &self,
        r: &Rules,
        v: &mut Value,
        path: &Path<'_>,
        out: &mut Out<'_>,
    ) -> bool {
        let mut ok = true;
        for (name, schema) in &r.dependent_schemas {
            if v.as_object().is_some_and(|map| map.contains_key(&**name)) {
                ok &= self.check(*schema, v, path, out.as_deref_mut());
                if !ok && out.is_none() {
                    return false;
                }
            }
        }
        ok
    }

    fn check_other_keys(
        &self,
        r: &Rules,
        map: &mut Map<String, Value>,
        path: &Path<'_>,
        out: &mut Out<'_>,
    ) -> bool {
        let mut ok = true;
        for (key, value) in map.iter_mut() {
            let here = path.key(key);
            let mut matched = r.property(key).is_some();
            for (p, schema) in &r.pattern_properties {
                match p.is_match(key) {
                    Ok(true) => {
                        matched = true;
                        ok &= self.check(*schema, value, &here, out.as_deref_mut());
                    }
                    Ok(false) => {}
                    // A name the pattern could not decide is refused, never let through.
                    Err(_) => {
                        matched = true;
                        fail!(out, ok, &here, Msg::PatternBudget(p));
                    }
                }
            }
            if !matched {
                match &r.additional {
                    Some(Additional::Forbidden { allowed }) => {
                        fail!(out, ok, path, Msg::Unknown(path.noun(), key, allowed))
                    }
                    Some(Additional::Schema(schema)) => {
                        ok &= self.check(*schema, value, &here, out.as_deref_mut());
                    }
                    Some(Additional::Allowed) | None => {}
                }
            }
            if let Some(names) = r.property_names {
                let mut name = Value::String(key.clone());
                let mut inner = out.as_ref().map(|_| Vec::new());
                if !self.check(names, &mut name, path, inner.as_mut()) {
                    ok = false;
                    match out.as_deref_mut() {
                        Some(o) => report_name(o, path, key, inner.unwrap_or_default()),
                        None => return false,
                    }
                }
            }
            if !ok && out.is_none() {
                return false;
            }
        }
        ok
    }
}

/// The messages for a count `n` below `min` or above `max`, in that order (both when `min > max`).
fn outside<'a>(
    n: u64,
    min: Option<u64>,
    max: Option<u64>,
    below: fn(u64, u64) -> Msg<'a>,
    above: fn(u64, u64) -> Msg<'a>,
) -> impl Iterator<Item = Msg<'a>> {
    let low = min.filter(|&m| n < m).map(|m| below(m, n));
    let high = max.filter(|&m| n > m).map(|m| above(m, n));
    low.into_iter().chain(high)
}

#[cfg(test)]
mod tests {
    use crate::validate::tests::{run, table};
    use serde_json::{Value, json};

    /// Every array and object keyword and its message, one row each.
    #[test]
    fn array_and_object_keywords() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &[&str])> = vec![
            // arrays
            (json!({"minItems": 1}), json!([]), &["/x: must have at least 1 item (got 0)"]),
            (json!({"minItems": 2}), json!([1]), &["/x: must have at least 2 items (got 1)"]),
            (json!({"maxItems": 1}), json!([1, 2]), &["/x: must have at most 1 item (got 2)"]),
            (json!({"uniqueItems": true}), json!([1, 2, 1.0]), &["/x: must not contain duplicate items"]),
            (json!({"uniqueItems": true}), json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]), &["/x: must not contain duplicate items"]),
            (json!({"uniqueItems": true}), json!([1, "1", [1], {"1": 1}]), &[]),
            (json!({"items": {"type": "integer"}}), json!([1, "a", 2, null]), &["/x/1: must be an integer (got string)", "/x/3: must be an integer (got null)"]),
            (json!({"prefixItems": [{"type": "string"}], "items": false}), json!(["a", 1]), &["/x/1: is not allowed here"]),
            (json!({"prefixItems": [{"type": "string"}, {"type": "integer"}]}), json!([1, "a", true]), &["/x/0: must be a string (got number)", "/x/1: must be an integer (got string)"]),
            (json!({"contains": {"type": "string"}}), json!([1]), &["/x: must contain at least 1 item matching the required shape (got 0)"]),
            (json!({"contains": {"type": "string"}, "maxContains": 1}), json!(["a", "b"]), &["/x: must contain at most 1 item matching the required shape (got 2)"]),
            // objects
            (json!({"type": "object", "required": ["zip"]}), json!({}), &[r#"/x: missing required property "zip""#]),
            (json!({"type": "object", "properties": {"zip": {}}, "additionalProperties": false}), json!({"zip": 1, "colour": 2}), &[r#"/x: unknown property "colour" (allowed: zip)"#]),
            (json!({"additionalProperties": {"type": "integer"}}), json!({"a": 1, "b": "2"}), &["/x/b: must be an integer (got string)"]),
            (json!({"patternProperties": {"^n_": {"type": "integer"}}, "additionalProperties": false}), json!({"n_a": "1", "m": 1}), &["/x/n_a: must be an integer (got string)", r#"/x: unknown property "m" (allowed: names matching ^n_)"#]),
            (json!({"properties": {"id": {}}, "patternProperties": {"^x-": {}}, "additionalProperties": false}), json!({"id": 1, "x-a": 2, "b": 3}), &[r#"/x: unknown property "b" (allowed: id, names matching ^x-)"#]),
            (json!({"additionalProperties": false}), json!({"b": 3}), &[r#"/x: unknown property "b" (allowed: none)"#]),
            (json!({"propertyNames": {"maxLength": 2}}), json!({"abc": 1}), &[r#"/x: property name "abc": must be at most 2 characters (got 3)"#]),
            (json!({"minProperties": 1}), json!({}), &["/x: must have at least 1 property (got 0)"]),
            (json!({"maxProperties": 1}), json!({"a": 1, "b": 2}), &["/x: must have at most 1 property (got 2)"]),
            (json!({"dependentRequired": {"a": ["b"]}}), json!({"a": 1}), &[r#"/x: missing property "b", required when "a" is present"#]),
            (json!({"dependentSchemas": {"a": {"required": ["b"]}}}), json!({"a": 1}), &[r#"/x: missing required property "b""#]),
        ];
        table(rows);
    }

    #[test]
    fn root_object_messages() {
        let schema = json!({
            "type": "object",
            "properties": {"title": {"type": "string"}, "priority": {}},
            "required": ["title"],
            "additionalProperties": false
        });
        assert_eq!(
            run(schema.clone(), json!({"colour": "red"})),
            [
                r#"/: missing required argument "title""#,
                r#"/: unknown argument "colour" (allowed: title, priority)"#
            ]
        );
        assert_eq!(run(schema, json!([])), ["/: must be an object (got array)"]);
    }
}
