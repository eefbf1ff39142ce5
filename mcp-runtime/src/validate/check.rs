//! Instance → violations: the walk over the node arena, the `type`, `enum` and `const` checks,
//! numbers, strings and the applicators (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`).
//! Arrays and objects are in `containers.rs`.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::equality::json_eq;
use super::formats::{EXACT, IntFault};
use super::node::{Bound, Node, NodeId, Rules, Types};
use super::numbers::{self, Num, integral, is_integer};
use super::path::Path;
use super::probe::Walk;
use super::report::{Msg, Out, fail, report};
use super::{MAX_DEPTH, Validator, Violation};

impl Validator {
    /// Checks `args` and returns every violation. Integral floats where an integer is expected are
    /// rewritten in place as integers (2020-12 counts 1042.0 as an integer).
    pub fn validate(&self, args: &mut Value) -> Vec<Violation> {
        let mut out = Vec::new();
        let valid = {
            let _walk = Walk;
            self.check(0, args, &Path::ROOT, Some(&mut out))
        };
        if valid && let Some(excess) = self.decode_excess(args) {
            out.push(excess.violation());
        }
        out
    }

    /// True when `args` is valid; stops at the first violation. Rewrites integral floats too.
    pub fn is_valid(&self, args: &mut Value) -> bool {
        let valid = {
            let _walk = Walk;
            self.check(0, args, &Path::ROOT, None)
        };
        valid && self.decode_excess(args).is_none()
    }

    pub(super) fn check(
        &self,
        id: NodeId,
        v: &mut Value,
        path: &Path<'_>,
        mut out: Out<'_>,
    ) -> bool {
        let r = match &self.nodes[id as usize] {
            Node::Any => return true,
            Node::Never => {
                if let Some(o) = out {
                    report(o, path, Msg::Text("is not allowed here"));
                }
                return false;
            }
            Node::Rules(r) => r,
        };
        let mut ok = true;
        if path.depth > MAX_DEPTH {
            fail!(out, ok, path, Msg::Depth);
            return ok;
        }

        // -- an integer format, before `type` rewrites integral floats
        if let Some(f) = &r.int_format
            && let Value::Number(n) = &*v
            && let Some(fault) = f.check(n)
        {
            let msg = match fault {
                IntFault::Below => Msg::Bound(">=", f.lo_text, n),
                IntFault::Above => Msg::Bound("<=", f.hi_text, n),
                IntFault::Fraction => Msg::Type("must be an integer", v),
                IntFault::Inexact => Msg::Inexact(n),
            };
            fail!(out, ok, path, msg);
            return ok;
        }

        // An integral float at or beyond 2^53 where only integers are allowed may have been
        // rounded from its literal (`9007199254740993.0`), or parsed from an integer literal
        // beyond 64 bits (`-9223372036854775809`): taking it as an integer would hand the tool a
        // number nobody sent.
        // Beyond 64 bits it is out of range too, and that is the message: the declared bound it
        // breaks (checked below), else the range of `i64` or `u64`, the integer types the schema
        // profile publishes without a maximum (their bounds are beyond what JavaScript holds).
        if let Some((types, _)) = &r.types
            && types.0 & (Types::INTEGER | Types::NUMBER) == Types::INTEGER
            && let Value::Number(n) = &*v
            && n.is_f64()
            && let Some(f) = n.as_f64()
            && f.fract() == 0.0
            && f.abs() >= EXACT
        {
            let x = Num::of(n);
            let breaks = |b: &Option<Bound>, side: Ordering| {
                b.as_ref().is_some_and(|b| x.cmp(b.value) == side)
            };
            if !breaks(&r.minimum, Ordering::Less) && !breaks(&r.maximum, Ordering::Greater) {
                let min = r.minimum.as_ref().map(|b| b.value);
                let msg = match numbers::beyond_64_bits(f, min, r.maximum.is_some()) {
                    Some((op, bound)) => Msg::Bound(op, bound, n),
                    None => Msg::Inexact(n),
                };
                fail!(out, ok, path, msg);
                return ok;
            }
        }

        // -- type, enum, const
        if let Some((types, message)) = &r.types
            && !check_type(*types, v)
        {
            fail!(out, ok, path, Msg::Type(message, v));
            // The other rules would only restate the type mismatch.
            return ok;
        }
        if let Some((values, message)) = &r.enumeration
            && !values.iter().any(|e| json_eq(e, v))
        {
            fail!(out, ok, path, Msg::Choices(message, v));
        }
        if let Some((value, message)) = &r.constant
            && !json_eq(value, v)
        {
            fail!(out, ok, path, Msg::Choices(message, v));
        }

        // -- by kind
        ok &= match v {
            Value::Number(n) => check_number(r, n, path, &mut out),
            Value::String(s) => check_string(r, s, path, &mut out),
            Value::Array(items) => self.check_array(r, items, path, &mut out),
            Value::Object(map) => self.check_object(r, map, path, &mut out),
            Value::Null | Value::Bool(_) => true,
        };
        if !ok && out.is_none() {
            return false;
        }
        if !r.dependent_schemas.is_empty() {
            ok &= self.check_dependent(r, v, path, &mut out);
        }

        // -- applicators
        if let Some(target) = r.reference {
            // Without a report to write, a `$ref` is probed: its answer may be kept (`probe.rs`).
            ok &= match out.as_deref_mut() {
                Some(o) => self.check(target, v, path, Some(o)),
                None => self.probe(target, v, path),
            };
        }
        for &branch in &r.all_of {
            ok &= self.check(branch, v, path, out.as_deref_mut());
        }
        if !ok && out.is_none() {
            return false;
        }
        if let Some(alt) = &r.any_of
            && !alt.branches.iter().any(|&b| self.probe(b, v, path))
        {
            ok = false;
            let Some(o) = out.as_deref_mut() else {
                return false;
            };
            self.explain_union(alt, false, v, path, o);
        }
        if let Some(alt) = &r.one_of {
            let mut matched = 0;
            for &b in &alt.branches {
                if self.probe(b, v, path) {
                    matched += 1;
                    if matched > 1 {
                        break;
                    }
                }
            }
            match matched {
                1 => {}
                0 => {
                    ok = false;
                    let Some(o) = out.as_deref_mut() else {
                        return false;
                    };
                    self.explain_union(alt, true, v, path, o);
                }
                n => fail!(out, ok, path, Msg::OneOf(n)),
            }
        }
        if let Some(not) = r.not
            && self.probe(not, v, path)
        {
            fail!(
                out,
                ok,
                path,
                Msg::Text("must not match the disallowed shape")
            );
        }
        if let Some((cond, then, otherwise)) = r.if_then_else {
            let branch = if self.probe(cond, v, path) {
                then
            } else {
                otherwise
            };
            if let Some(b) = branch {
                ok &= self.check(b, v, path, out.as_deref_mut());
            }
        }
        if r.unevaluated_properties.is_some() || r.unevaluated_items.is_some() {
            if !ok && out.is_none() {
                return false;
            }
            ok &= self.check_unevaluated(r, v, path, !ok, &mut out);
        }
        ok
    }
}

/// The `type` check; an integral float passing as an integer is rewritten as one.
fn check_type(types: Types, v: &mut Value) -> bool {
    let bit = match v {
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::Object(_) => Types::OBJECT,
        Value::Array(_) => Types::ARRAY,
        Value::String(_) => Types::STRING,
        Value::Number(n) => {
            if types.0 & Types::NUMBER != 0 {
                return true;
            }
            if types.0 & Types::INTEGER == 0 || !is_integer(n) {
                return false;
            }
            if n.is_f64()
                && let Some(i) = n.as_f64().and_then(integral)
            {
                *n = i;
            }
            return true;
        }
    };
    types.0 & bit != 0
}

fn check_number(r: &Rules, n: &Number, path: &Path<'_>, out: &mut Out<'_>) -> bool {
    let mut ok = true;
    let x = Num::of(n);
    if let Some(b) = &r.minimum
        && x.cmp(b.value) == Ordering::Less
    {
        fail!(out, ok, path, Msg::Bound(">=", &b.text, n));
    }
    if let Some(b) = &r.maximum
        && x.cmp(b.value) == Ordering::Greater
    {
        fail!(out, ok, path, Msg::Bound("<=", &b.text, n));
    }
    if let Some(b) = &r.exclusive_minimum
        && x.cmp(b.value) != Ordering::Greater
    {
        fail!(out, ok, path, Msg::Bound(">", &b.text, n));
    }
    if let Some(b) = &r.exclusive_maximum
        && x.cmp(b.value) != Ordering::Less
    {
        fail!(out, ok, path, Msg::Bound("<", &b.text, n));
    }
    if let Some(m) = &r.multiple_of
        && !x.is_multiple_of(m.value)
    {
        fail!(out, ok, path, Msg::MultipleOf(&m.text, n));
    }
    ok
}

fn check_string(r: &Rules, s: &str, path: &Path<'_>, out: &mut Out<'_>) -> bool {
    let mut ok = true;
    if r.min_length.is_some() || r.max_length.is_some() {
        // A string has at most as many code points as bytes: skip the count when bytes decide.
        let needs_count = r.min_length.is_some_and(|m| (s.len() as u64) >= m)
            || r.max_length.is_some_and(|m| (s.len() as u64) > m);
        let chars = if needs_count {
            s.chars().count() as u64
        } else {
            s.len() as u64
        };
        // The message counts code points even when the byte length alone decided.
        if let Some(min) = r.min_length
            && chars < min
        {
            fail!(out, ok, path, Msg::MinLength(min, s.chars().count() as u64));
        }
        if let Some(max) = r.max_length
            && chars > max
        {
            fail!(out, ok, path, Msg::MaxLength(max, s.chars().count() as u64));
        }
    }
    if let Some(p) = &r.pattern {
        match p.is_match(s) {
            Ok(true) => {}
            Ok(false) => fail!(out, ok, path, Msg::Pattern(&p.source)),
            Err(_) => fail!(out, ok, path, Msg::PatternBudget(p)),
        }
    }
    if let Some((f, name)) = &r.str_format
        && !f.is_valid(s)
    {
        fail!(out, ok, path, Msg::Format(name, s));
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::{run, table};
    use serde_json::{Map, json};

    /// Every scalar keyword and its message, one row each.
    #[test]
    fn scalar_keywords() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &[&str])> = vec![
            // type: strict, no coercion
            (json!({"type": "integer"}), json!(5), &[]),
            (json!({"type": "integer"}), json!("5"), &["/x: must be an integer (got string)"]),
            (json!({"type": "integer"}), json!(1.5), &["/x: must be an integer (got 1.5)"]),
            (json!({"type": "integer"}), json!(true), &["/x: must be an integer (got boolean)"]),
            (json!({"type": "number"}), json!("5"), &["/x: must be a number (got string)"]),
            (json!({"type": "number"}), json!(true), &["/x: must be a number (got boolean)"]),
            (json!({"type": "number"}), json!(2.5), &[]),
            (json!({"type": "boolean"}), json!(1), &["/x: must be a boolean (got number)"]),
            (json!({"type": "boolean"}), json!("true"), &["/x: must be a boolean (got string)"]),
            (json!({"type": "string"}), json!(null), &["/x: must be a string (got null)"]),
            (json!({"type": "object"}), json!([]), &["/x: must be an object (got array)"]),
            (json!({"type": "array"}), json!({}), &["/x: must be an array (got object)"]),
            (json!({"type": "null"}), json!(0), &["/x: must be null (got number)"]),
            (json!({"type": ["string", "null"]}), json!(1), &["/x: must be a string or null (got number)"]),
            (json!({"type": ["string", "integer", "null"]}), json!([]), &["/x: must be a string, an integer or null (got array)"]),
            // enum / const
            (json!({"enum": ["low", "normal", "high"]}), json!("urgent"), &[r#"/x: must be one of "low", "normal", "high" (got "urgent")"#]),
            (json!({"enum": [1, 2]}), json!(2.0), &[]),
            (json!({"enum": [{"a": [1]}]}), json!({"a": [1.0]}), &[]),
            (json!({"const": "a"}), json!("b"), &[r#"/x: must be "a" (got "b")"#]),
            (json!({"const": null}), json!(null), &[]),
            // numbers
            (json!({"minimum": 0}), json!(-1), &["/x: must be >= 0 (got -1)"]),
            (json!({"minimum": 0}), json!(0), &[]),
            (json!({"maximum": 9999}), json!(10000), &["/x: must be <= 9999 (got 10000)"]),
            (json!({"maximum": 9999}), json!(9999.5), &["/x: must be <= 9999 (got 9999.5)"]),
            (json!({"exclusiveMinimum": 0}), json!(0), &["/x: must be > 0 (got 0)"]),
            (json!({"exclusiveMinimum": 0}), json!(1e-300), &[]),
            (json!({"exclusiveMaximum": 1}), json!(1), &["/x: must be < 1 (got 1)"]),
            (json!({"exclusiveMaximum": 1}), json!(0.999), &[]),
            (json!({"multipleOf": 5}), json!(7), &["/x: must be a multiple of 5 (got 7)"]),
            (json!({"multipleOf": 5}), json!(-15), &[]),
            (json!({"multipleOf": 0.5}), json!(2.5), &[]),
            (json!({"multipleOf": 0.5}), json!(2.25), &["/x: must be a multiple of 0.5 (got 2.25)"]),
            (json!({"maximum": 18446744073709551615u64}), json!(18446744073709551615u64), &[]),
            (json!({"maximum": 18446744073709551615u64}), json!(1e20), &["/x: must be <= 18446744073709551615 (got 1e+20)"]),
            (json!({"minimum": -9223372036854775808i64}), json!(-9223372036854775808i64), &[]),
            (json!({"maximum": 9007199254740993u64}), json!(9007199254740992.0), &[]),
            (json!({"minimum": 9007199254740993u64}), json!(9007199254740992.0), &["/x: must be >= 9007199254740993 (got 9007199254740992.0)"]),
            // strings: code points
            (json!({"minLength": 3}), json!("ab"), &["/x: must be at least 3 characters (got 2)"]),
            (json!({"minLength": 1}), json!(""), &["/x: must be at least 1 character (got 0)"]),
            (json!({"maxLength": 80}), json!("a".repeat(81)), &["/x: must be at most 80 characters (got 81)"]),
            (json!({"maxLength": 2}), json!("éé"), &[]),
            (json!({"maxLength": 2}), json!("😀😀"), &[]),
            (json!({"minLength": 3}), json!("😀😀"), &["/x: must be at least 3 characters (got 2)"]),
            (json!({"minLength": 3}), json!(12), &[]),
            // non-ASCII strings short in bytes: the count is still in code points
            (json!({"minLength": 3}), json!("é"), &["/x: must be at least 3 characters (got 1)"]),
            (json!({"minLength": 5}), json!("😀"), &["/x: must be at least 5 characters (got 1)"]),
            (json!({"minLength": 2}), json!("é"), &["/x: must be at least 2 characters (got 1)"]),
            (json!({"maxLength": 1}), json!("éa"), &["/x: must be at most 1 character (got 2)"]),
        ];
        table(rows);
    }

    /// The applicators, and the message each reports.
    #[test]
    fn applicators() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &[&str])> = vec![
            // applicators
            (json!({"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]}), json!("ab"), &["/x: must be at least 3 characters (got 2)"]),
            (json!({"anyOf": [{"type": "null"}, {"type": "integer"}]}), json!("5"), &["/x: must be an integer (got string)"]),
            (json!({"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]}), json!(null), &[]),
            (json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}), json!([]), &["/x: must be a string or an integer (got array)"]),
            (json!({"anyOf": [{"type": "string"}, {"multipleOf": 2}]}), json!(3), &["/x: must be a multiple of 2 (got 3)"]),
            (json!({"anyOf": [{"type": "string"}, false]}), json!(3), &["/x: must match at least one of the allowed shapes"]),
            (json!({"anyOf": [{"const": "a"}, {"const": "b"}]}), json!("c"), &[r#"/x: must be one of "a", "b" (got "c")"#]),
            (json!({"oneOf": [{"const": "a", "description": "A"}, {"enum": ["b", "c"]}]}), json!("d"), &[r#"/x: must be one of "a", "b", "c" (got "d")"#]),
            (json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]}), json!(5), &["/x: must match exactly one of the allowed shapes (matched more than one)"]),
            (json!({"oneOf": [{"type": "integer"}, {"type": "string"}]}), json!(null), &["/x: must be a string or an integer (got null)"]),
            (json!({"oneOf": [{"type": "integer"}, false]}), json!(null), &["/x: must match exactly one of the allowed shapes (matched none)"]),
            (json!({"oneOf": [{"type": "integer"}, {"type": "string"}]}), json!(3), &[]),
            (json!({"allOf": [{"minimum": 1}, {"maximum": 0}]}), json!(0.5), &["/x: must be >= 1 (got 0.5)", "/x: must be <= 0 (got 0.5)"]),
            (json!({"not": {"type": "string"}}), json!("a"), &["/x: must not match the disallowed shape"]),
            (json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 5}}), json!("a"), &["/x: must be at least 2 characters (got 1)"]),
            (json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 5}}), json!(4), &["/x: must be >= 5 (got 4)"]),
            (json!({"then": {"minLength": 2}}), json!("a"), &[]),
            (json!(true), json!({"anything": [1]}), &[]),
            (json!(false), json!(1), &["/x: is not allowed here"]),
        ];
        table(rows);
    }

    #[test]
    fn reports_every_violation() {
        let schema = json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 3},
                "n": {"type": "integer", "minimum": 0, "multipleOf": 2}
            }
        });
        assert_eq!(
            run(schema, json!({"title": "ab", "n": -3})),
            [
                "/title: must be at least 3 characters (got 2)",
                "/n: must be >= 0 (got -3)",
                "/n: must be a multiple of 2 (got -3)"
            ]
        );
    }

    #[test]
    fn integral_floats_become_integers() {
        let v = Validator::compile(&json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "number"},
                "c": {"type": ["integer", "null"]},
                "d": {"type": "integer"},
                "e": {"type": "integer", "maximum": 255},
                "f": {"type": "integer"},
                "g": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}
            }
        }))
        .unwrap();
        let mut args = json!({
            "a": 1042.0, "b": 2.0, "c": -3.0, "d": 1e19, "e": 1e300, "f": 1e20, "g": [4.0, null]
        });
        let violations = v.validate(&mut args);
        // At or beyond 2^53 a float may not be the integer that was written: refused.
        let inexact = |path: &str, got: &str| Violation {
            path: path.into(),
            message: format!(
                "must be an integer literal: a float this large is not exact (got {got})"
            ),
        };
        // Beyond 64 bits the bound is the message: the declared one, else `i64`'s.
        let bound = |path: &str, bound: &str, got: &str| Violation {
            path: path.into(),
            message: format!("must be <= {bound} (got {got})"),
        };
        assert_eq!(
            violations,
            [
                bound("/d", "9223372036854775807", "1e+19"),
                bound("/e", "255", "1e+300"),
                bound("/f", "9223372036854775807", "1e+20")
            ]
        );
        let mut below = json!({"a": -9223372036854775808.0, "d": 9007199254740994.0});
        assert_eq!(
            v.validate(&mut below),
            [
                Violation {
                    path: "/a".into(),
                    message: "must be >= -9223372036854775808 (got -9.223372036854776e+18)".into()
                },
                inexact("/d", "9007199254740994.0")
            ]
        );
        assert!(args["a"].is_i64() && args["a"] == 1042);
        assert!(args["b"].is_f64(), "a number stays as sent");
        assert!(args["c"].is_i64() && args["c"] == -3);
        assert!(
            args["d"].is_f64() && args["f"].is_f64(),
            "refused, not rewritten"
        );
        assert!(args["g"][0].is_i64());
        assert_eq!(
            serde_json::from_value::<u8>(json!(args["a"].as_i64().unwrap() % 256)).ok(),
            Some(18)
        );
        assert_eq!(
            serde_json::from_value::<i64>(args["a"].clone()).unwrap(),
            1042
        );
    }

    fn nested(depth: usize) -> Value {
        // Built by hand: `json!` would serialize the inner value again at every level.
        let mut v = Value::Object(Map::new());
        for _ in 0..depth {
            let mut m = Map::new();
            m.insert("next".into(), v);
            v = Value::Object(m);
        }
        v
    }

    /// Drops a deep value without recursing.
    fn dismantle(v: Value) {
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
                Value::Array(a) => stack.extend(a),
                _ => {}
            }
        }
    }

    #[test]
    fn depth_is_bounded() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
        });
        assert!(run(schema.clone(), nested(128)).is_empty());
        let got = run(schema.clone(), nested(129));
        let at = "/next".repeat(129);
        assert_eq!(got, [format!("{at}: nesting deeper than 128 levels")]);

        // Far past the bound, on a stack half the size of a tokio worker's: one violation, no
        // overflow. Unoptimized builds need about 4 KiB per level.
        let deep = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(move || {
                let v = Validator::compile(&schema).unwrap();
                let mut args = nested(100_000);
                let found = v.validate(&mut args);
                let probe = v.is_valid(&mut args);
                dismantle(args);
                let mut any = Value::Object(Map::from_iter([("x".into(), nested(100_000))]));
                let loose = Validator::compile(&json!({"properties": {"x": true}})).unwrap();
                // A value the schema does not look into may be as deep as it likes.
                let untouched = loose.validate(&mut any);
                dismantle(any);
                (found, probe, untouched)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(deep.0.len(), 1);
        assert_eq!(deep.0[0].message, "nesting deeper than 128 levels");
        assert!(!deep.1);
        assert!(deep.2.is_empty());
    }
}
