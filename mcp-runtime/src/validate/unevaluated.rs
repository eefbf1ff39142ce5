//! `unevaluatedProperties` and `unevaluatedItems` (2020-12 §11): after every other keyword at a
//! location, the keys (items) that no keyword evaluated there must match the schema.
//!
//! A key is evaluated by `properties`, `patternProperties`, `additionalProperties` or a nested
//! `unevaluatedProperties`; an item by `prefixItems`, `items`, `contains` or a nested
//! `unevaluatedItems`. These count when they sit in the schema itself or in a schema applied in
//! place (`$ref`, `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`, `dependentSchemas`) that
//! validated: annotations of a failed subschema are dropped, so only the `anyOf`/`oneOf`
//! branches that matched and the `if` that held contribute. `not` never does.
//!
//! The evaluated set is one `Vec<bool>` per checked value, allocated only for schemas carrying
//! one of these keywords. Once the value has already failed at this location, the set counts
//! every in-place subschema whether it validated or not: the verdict is settled, and a key named
//! by a branch that did not match is better reported by that branch than as unknown.

use serde_json::Value;

use super::Validator;
use super::node::{Additional, Node, NodeId, Rules};
use super::path::Path;
use super::report::{Msg, Out, fail};

/// How a subschema's annotations are counted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trust {
    /// The subschema is not known to validate: check it first.
    Check,
    /// It validated (it sits under one that did, through `allOf`, `$ref`, …).
    Valid,
    /// Count it whatever it says (the value already failed at this location).
    Lenient,
}

impl Validator {
    /// Applies `unevaluatedProperties` and `unevaluatedItems` of `r` to `v`, after `r`'s other
    /// keywords; `failed` says whether those already failed.
    pub(super) fn check_unevaluated(
        &self,
        r: &Rules,
        v: &mut Value,
        path: &Path<'_>,
        failed: bool,
        out: &mut Out<'_>,
    ) -> bool {
        let mut ok = true;
        let trust = if failed { Trust::Lenient } else { Trust::Check };
        match v {
            Value::Object(map) if r.unevaluated_properties.is_some() => {
                let mut marks = vec![false; map.len()];
                self.mark(r, v, path, &mut marks, trust, true);
                let Value::Object(map) = v else {
                    unreachable!("checked above")
                };
                for ((key, value), seen) in map.iter_mut().zip(marks) {
                    if seen {
                        continue;
                    }
                    match &r.unevaluated_properties {
                        Some(Additional::Forbidden { allowed }) => {
                            fail!(out, ok, path, Msg::Unknown(path.noun(), key, allowed))
                        }
                        Some(Additional::Schema(schema)) => {
                            ok &= self.check(*schema, value, &path.key(key), out.as_deref_mut());
                            if !ok && out.is_none() {
                                return false;
                            }
                        }
                        Some(Additional::Allowed) | None => {}
                    }
                }
            }
            Value::Array(items) if r.unevaluated_items.is_some() => {
                let mut marks = vec![false; items.len()];
                self.mark(r, v, path, &mut marks, trust, true);
                let (Value::Array(items), Some(schema)) = (v, r.unevaluated_items) else {
                    unreachable!("checked above")
                };
                for (i, (item, seen)) in items.iter_mut().zip(marks).enumerate() {
                    if !seen {
                        ok &= self.check(schema, item, &path.index(i), out.as_deref_mut());
                        if !ok && out.is_none() {
                            return false;
                        }
                    }
                }
            }
            _ => {}
        }
        ok
    }

    /// Marks the keys (or items) of `v` that `r` evaluates, itself and through the schemas it
    /// applies in place. `own` is true for the schema whose `unevaluated*` is being applied.
    fn mark(
        &self,
        r: &Rules,
        v: &mut Value,
        path: &Path<'_>,
        marks: &mut [bool],
        trust: Trust,
        own: bool,
    ) {
        if marks.iter().all(|&m| m) {
            return;
        }
        match &*v {
            Value::Object(map) => {
                let everything =
                    r.additional.is_some() || (!own && r.unevaluated_properties.is_some());
                for (key, seen) in map.keys().zip(marks.iter_mut()) {
                    *seen |= everything
                        || r.property(key).is_some()
                        || r.pattern_properties
                            .iter()
                            .any(|(p, _)| p.is_match(key) == Ok(true));
                }
            }
            Value::Array(_) => {
                if r.items.is_some() || (!own && r.unevaluated_items.is_some()) {
                    marks.iter_mut().for_each(|m| *m = true);
                }
                for m in marks.iter_mut().take(r.prefix_items.len()) {
                    *m = true;
                }
                if let (Some(contains), Value::Array(items)) = (r.contains, &mut *v) {
                    for (i, (item, seen)) in items.iter_mut().zip(marks.iter_mut()).enumerate() {
                        if !*seen && self.probe(contains, item, &path.index(i)) {
                            *seen = true;
                        }
                    }
                }
            }
            _ => return,
        }

        // Applied whenever this schema applies: valid when it is.
        let mut always: Vec<NodeId> = r.all_of.clone();
        always.extend(r.reference);
        if let Value::Object(map) = &*v {
            always.extend(
                r.dependent_schemas
                    .iter()
                    .filter(|(name, _)| map.contains_key(&**name))
                    .map(|(_, id)| *id),
            );
        }
        for id in always {
            self.mark_node(id, v, path, marks, trust);
        }
        // Alternatives: only the branches that matched count.
        for alt in [&r.any_of, &r.one_of].into_iter().flatten() {
            for &b in &alt.branches {
                self.mark_node(b, v, path, marks, trust.or_check());
            }
        }
        if let Some((cond, then, otherwise)) = r.if_then_else {
            if trust == Trust::Lenient {
                for id in [Some(cond), then, otherwise].into_iter().flatten() {
                    self.mark_node(id, v, path, marks, trust);
                }
            } else {
                let held = self.probe(cond, v, path);
                if held {
                    self.mark_node(cond, v, path, marks, Trust::Valid);
                }
                if let Some(b) = if held { then } else { otherwise } {
                    self.mark_node(b, v, path, marks, trust);
                }
            }
        }
    }

    fn mark_node(
        &self,
        id: NodeId,
        v: &mut Value,
        path: &Path<'_>,
        marks: &mut [bool],
        trust: Trust,
    ) {
        let Node::Rules(r) = &self.nodes[id as usize] else {
            return;
        };
        if trust == Trust::Check && !self.probe(id, v, path) {
            return;
        }
        let inner = if trust == Trust::Lenient {
            Trust::Lenient
        } else {
            Trust::Valid
        };
        self.mark(r, v, path, marks, inner, false);
    }

    /// Fills in the names `unevaluatedProperties: false` lists as allowed: every property named
    /// at its location, through in-place applicators, each once and in schema order.
    pub(super) fn name_unevaluated(&mut self) {
        for id in 0..self.nodes.len() {
            let Node::Rules(r) = &self.nodes[id] else {
                continue;
            };
            if !matches!(r.unevaluated_properties, Some(Additional::Forbidden { .. })) {
                continue;
            }
            let mut names: Vec<&str> = Vec::new();
            let mut seen = vec![false; self.nodes.len()];
            let mut stack = vec![id as NodeId];
            while let Some(n) = stack.pop() {
                if std::mem::replace(&mut seen[n as usize], true) {
                    continue;
                }
                let Node::Rules(r) = &self.nodes[n as usize] else {
                    continue;
                };
                for (name, _) in &r.properties {
                    if !names.contains(&&**name) {
                        names.push(name);
                    }
                }
                // Reversed so that the first applicator is named first.
                let mut next = r.in_place();
                if let Some(not) = r.not {
                    next.retain(|&n| n != not);
                }
                stack.extend(next.into_iter().rev());
            }
            let joined: Box<str> = names.join(", ").into();
            if let Node::Rules(r) = &mut self.nodes[id]
                && let Some(Additional::Forbidden { allowed }) = &mut r.unevaluated_properties
            {
                *allowed = joined;
            }
        }
    }
}

impl Trust {
    /// For `anyOf`/`oneOf` branches: a valid parent says nothing about which branch matched.
    fn or_check(self) -> Trust {
        match self {
            Trust::Lenient => Trust::Lenient,
            _ => Trust::Check,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::validate::tests::run;
    use serde_json::{Value, json};

    fn rows(schema: Value, cases: &[(Value, &[&str])]) {
        for (value, expected) in cases {
            let got = run(schema.clone(), value.clone());
            assert_eq!(got, *expected, "schema {schema} value {value}");
        }
    }

    #[test]
    fn flattened_tagged_enum() {
        // What schemars publishes for a `deny_unknown_fields` struct flattening a tagged enum.
        let schema = json!({
            "type": "object",
            "properties": {"label": {"type": "string"}},
            "required": ["label"],
            "oneOf": [
                {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
                {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}
            ],
            "unevaluatedProperties": false
        });
        rows(
            schema,
            &[
                (json!({"label": "a", "kind": "circle", "r": 1}), &[]),
                (json!({"label": "a", "kind": "square", "side": 1}), &[]),
                (
                    json!({"label": "a", "kind": "circle", "r": 1, "extra": 1}),
                    &[r#"/: unknown argument "extra" (allowed: label, kind, r, side)"#],
                ),
                // `side` belongs to the branch that did not match.
                (
                    json!({"label": "a", "kind": "circle", "r": 1, "side": 1}),
                    &[r#"/: unknown argument "side" (allowed: label, kind, r, side)"#],
                ),
                // Already failing: the branches' keys are not reported as unknown as well.
                (
                    json!({"label": "a", "kind": "hexagon", "r": 1}),
                    &[r#"/kind: must be one of "circle", "square" (got "hexagon")"#],
                ),
            ],
        );
    }

    #[test]
    fn in_place_applicators_evaluate() {
        let schema = json!({
            "$defs": {"Named": {"properties": {"name": {"type": "string"}}}},
            "$ref": "#/$defs/Named",
            "allOf": [{"properties": {"a": true}}],
            "anyOf": [{"properties": {"b": {"type": "integer"}}}, {"properties": {"c": true}}],
            "if": {"properties": {"mode": {"const": "x"}}, "required": ["mode"]},
            "then": {"properties": {"x": true}},
            "else": {"properties": {"y": true}},
            "dependentSchemas": {"d": {"properties": {"e": true}}},
            "not": {"properties": {"n": true}, "required": ["n", "never"]},
            "properties": {"p": {"type": "object", "unevaluatedProperties": {"type": "integer"}}},
            "patternProperties": {"^z_": true},
            "unevaluatedProperties": false
        });
        let unknown = |k: &str| {
            format!(r#"/: unknown argument "{k}" (allowed: p, a, name, b, c, mode, x, y, e)"#)
        };
        rows(
            schema.clone(),
            &[
                (json!({"name": "n", "a": 1, "b": 1, "c": 1, "z_1": 1}), &[]),
                (json!({"mode": "x", "x": 1}), &[]),
                (json!({"y": 1}), &[]),
                (json!({"p": {"q": 1}}), &[]),
                (
                    json!({"p": {"q": "1"}}),
                    &["/p/q: must be an integer (got string)"],
                ),
            ],
        );
        // A branch that failed evaluates nothing; neither does `not`, nor an `if` that failed
        // (its `mode` is then unevaluated too).
        for (value, keys) in [
            (json!({"b": "s", "c": 1}), &["b"][..]),
            (json!({"mode": "x", "y": 1}), &["y"]),
            (json!({"mode": "w", "y": 1}), &["mode"]),
            (json!({"mode": "w", "x": 1}), &["mode", "x"]),
            (json!({"e": 1}), &["e"]),
            // `dependentSchemas` evaluates what its schema names, not the key it depends on.
            (json!({"d": 1, "e": 1}), &["d"]),
            (json!({"n": 1}), &["n"]),
        ] {
            let expected: Vec<String> = keys.iter().map(|k| unknown(k)).collect();
            assert_eq!(run(schema.clone(), value.clone()), expected, "{value}");
        }
    }

    #[test]
    fn nested_unevaluated_and_additional() {
        // An inner `unevaluatedProperties` that validated evaluated every key.
        let schema = json!({
            "allOf": [{"properties": {"a": true}, "unevaluatedProperties": {"type": "integer"}}],
            "unevaluatedProperties": false
        });
        rows(
            schema,
            &[
                (json!({"a": "s", "b": 1}), &[]),
                (
                    json!({"a": "s", "b": "t"}),
                    &["/b: must be an integer (got string)"],
                ),
            ],
        );
        // `additionalProperties` evaluates every key it sees.
        let schema = json!({"additionalProperties": true, "unevaluatedProperties": false});
        rows(schema, &[(json!({"q": 1}), &[])]);
        // Recursion through `$ref`, one level down each time.
        let schema = json!({
            "$defs": {"T": {
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}},
                "unevaluatedProperties": false
            }},
            "$ref": "#/$defs/T"
        });
        rows(
            schema,
            &[
                (json!({"kids": [{"kids": []}]}), &[]),
                (
                    json!({"kids": [{"kids": [], "x": 1}]}),
                    &[r#"/kids/0: unknown property "x" (allowed: kids)"#],
                ),
            ],
        );
    }

    #[test]
    fn unevaluated_items() {
        let schema = json!({
            "prefixItems": [{"type": "string"}],
            "anyOf": [{"prefixItems": [true, {"type": "integer"}]}, {"contains": {"const": "c"}}],
            "unevaluatedItems": false
        });
        rows(
            schema,
            &[
                (json!(["a", 1]), &[]),
                (json!(["a", "c", "c"]), &[]),
                (json!(["a", 1, 2]), &["/2: is not allowed here"]),
                (json!(["a", "c", 3]), &["/2: is not allowed here"]),
            ],
        );
        let schema = json!({"items": {"type": "integer"}, "unevaluatedItems": false});
        rows(schema, &[(json!([1, 2]), &[])]);
        let schema = json!({"allOf": [{"unevaluatedItems": {"type": "integer"}}], "unevaluatedItems": false});
        rows(
            schema,
            &[
                (json!([1, 2]), &[]),
                (json!([1, "a"]), &["/1: must be an integer (got string)"]),
            ],
        );
    }
}
