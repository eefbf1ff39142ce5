//! Probes: a subschema applied to a value only to learn whether it holds there, nothing
//! reported. An `anyOf` or `oneOf` branch, an `if`, a `not` and `contains` are probed, and so are
//! the in-place subschemas whose annotations `unevaluated*` counts, and, inside a probe, the
//! target of every `$ref` (the only way a schema recurses).
//!
//! A union whose branches each descend into the same children probes all of them again at every
//! level: an untagged recursive enum (an `anyOf` of objects that each hold the next level) cost
//! 2^depth walks of its deepest values (0.7 s at 20 levels; [`super::MAX_DEPTH`] is 128), and so
//! did `unevaluatedProperties` beside a recursive `$ref`, whose annotations are probed again at
//! each level. So the answer of a probe of an array or an object made inside another probe is
//! kept, by subschema and by the value's address, until the check of the arguments ends: each
//! recursive subschema is then walked once per value, and a probe costs a hash lookup when it is
//! made again. The outermost probes are not kept, so that a call whose probes do not nest (an
//! optional argument's `anyOf` of its type and `null`, a tagged enum) allocates nothing.
//!
//! An address names one value for the whole check: the arguments do not move or change shape
//! while they are checked (only numbers are rewritten, in place), and no array or object is
//! checked as a temporary copy.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};

use serde_json::Value;

use super::Validator;
use super::node::NodeId;
use super::path::Path;

thread_local! {
    /// How many probes of containers are running on this thread, one inside the other.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Whether `ANSWERS` holds anything (so that a check that kept nothing does not touch it).
    static KEPT: Cell<bool> = const { Cell::new(false) };
    /// The answers of nested probes of containers, by subschema and value address (unkeyed
    /// SipHash: no client chooses an address).
    static ANSWERS: RefCell<Answers> = const {
        RefCell::new(HashMap::with_hasher(BuildHasherDefault::new()))
    };
}

type Answers = HashMap<(NodeId, usize), bool, BuildHasherDefault<DefaultHasher>>;

/// Answers kept beyond this many are freed when a check ends, not kept for the next one.
const KEEP_CAPACITY: usize = 1024;

/// The check of one value (`validate`, `is_valid`): the answers kept are forgotten when it ends.
pub(super) struct Walk;

impl Drop for Walk {
    fn drop(&mut self) {
        if KEPT.replace(false) {
            ANSWERS.with_borrow_mut(|answers| {
                if answers.capacity() > KEEP_CAPACITY {
                    *answers = Answers::default();
                } else {
                    answers.clear();
                }
            });
        }
    }
}

/// One probe of a container running: the depth goes back down when it ends.
struct Running(u32);

impl Drop for Running {
    fn drop(&mut self) {
        DEPTH.set(self.0);
    }
}

impl Validator {
    /// Whether `v` meets node `id`, nothing reported (see the module docs).
    #[inline]
    pub(super) fn probe(&self, id: NodeId, v: &mut Value, path: &Path<'_>) -> bool {
        match v {
            Value::Array(_) | Value::Object(_) => self.probe_container(id, v, path),
            _ => self.check(id, v, path, None),
        }
    }

    fn probe_container(&self, id: NodeId, v: &mut Value, path: &Path<'_>) -> bool {
        let depth = DEPTH.get();
        if depth == 0 {
            // An outermost probe: neither looked up nor kept.
            let _running = Running(depth);
            DEPTH.set(1);
            return self.check(id, v, path, None);
        }
        let key = (id, std::ptr::from_ref::<Value>(v) as usize);
        let known = if KEPT.get() {
            ANSWERS.with_borrow(|answers| answers.get(&key).copied())
        } else {
            None
        };
        if let Some(held) = known {
            return held;
        }
        let held = {
            let _running = Running(depth);
            DEPTH.set(depth + 1);
            self.check(id, v, path, None)
        };
        ANSWERS.with_borrow_mut(|answers| answers.insert(key, held));
        KEPT.set(true);
        held
    }
}

#[cfg(test)]
mod tests {
    use crate::validate::Validator;
    use crate::validate::tests::run;
    use serde_json::{Value, json};

    /// An untagged recursive enum: each branch requires its own key and descends into `a` first.
    fn tree() -> Value {
        json!({
            "$defs": {"N": {"anyOf": [
                {"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#/$defs/N"}}, "x": {"type": "integer"}}, "required": ["a", "x"]},
                {"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#/$defs/N"}}, "y": {"type": "string"}}, "required": ["a", "y"]}
            ]}},
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/N"}}
        })
    }

    /// `depth` levels, each taking the second branch (its `x` has the wrong type), the deepest
    /// holding `leaf`.
    fn chain(depth: usize, leaf: Value) -> Value {
        let n = (0..depth).fold(leaf, |v, _| json!({"a": [v], "x": "s", "y": "s"}));
        json!({ "n": n })
    }

    #[test]
    fn deep_recursive_unions_get_their_answers() {
        let ok = json!({"a": [], "x": "s", "y": "s"});
        // 60 levels: 121 deep, within `MAX_DEPTH`. Valid, and answered; serde's decoding would
        // try the first branch again at each level, which `decode.rs` refuses unless allowed.
        let mut v = Validator::compile(&tree()).unwrap();
        v.set_untagged_decode_limit(u64::MAX);
        assert_eq!(v.validate(&mut chain(60, ok.clone())), []);
        let refused = run(tree(), chain(60, ok));
        assert!(
            refused[0].starts_with("/n: nests its untagged"),
            "{refused:?}"
        );
        // The deepest level matches neither branch: the closest one's violation (the first
        // branch's, below the union's own pointer), at its pointer.
        let bad = json!({"a": [], "x": "s"});
        let got = run(tree(), chain(60, bad));
        let pointer = "/a/0".repeat(60);
        assert_eq!(
            got,
            [format!("/n{pointer}/x: must be an integer (got string)")]
        );
    }

    /// `unevaluatedProperties` beside a recursive `$ref`: the annotations of each level are
    /// probed again at every level above it.
    #[test]
    fn deep_unevaluated_chains_get_their_answers() {
        let schema = json!({
            "$defs": {
                "Node": {"$ref": "#/$defs/Base", "unevaluatedProperties": false},
                "Base": {"type": "object", "properties": {"name": {"type": "string"}, "next": {"$ref": "#/$defs/Node"}}, "required": ["name"]}
            },
            "type": "object",
            "properties": {"chain": {"$ref": "#/$defs/Node"}}
        });
        let chain = |depth: usize, leaf: Value| {
            let node = (0..depth).fold(leaf, |v, _| json!({"name": "n", "next": v}));
            json!({ "chain": node })
        };
        assert_eq!(
            run(schema.clone(), chain(100, json!({"name": "end"}))),
            Vec::<String>::new()
        );
        let got = run(schema, chain(100, json!({"name": "end", "extra": 1})));
        let pointer = "/next".repeat(100);
        assert_eq!(
            got,
            [format!(
                "/chain{pointer}: unknown property \"extra\" (allowed: name, next)"
            )]
        );
    }

    /// Two values checked one after the other, by one validator and by the same subschemas, get
    /// their own answers: nothing is kept from one check to the next.
    #[test]
    fn answers_are_not_kept_between_checks() {
        let v = Validator::compile(&tree()).unwrap();
        for depth in [3, 4, 3] {
            let mut good = chain(depth, json!({"a": [], "x": 1}));
            assert!(v.is_valid(&mut good));
            let mut bad = chain(depth, json!({"a": [], "x": "s"}));
            assert!(!v.is_valid(&mut bad));
            assert_eq!(v.validate(&mut bad).len(), 1);
        }
    }

    /// Siblings probed by the same subschemas, inside a probe (the dependent schema's union), get
    /// their own answers.
    #[test]
    fn siblings_get_their_own_answers() {
        let schema = json!({
            "type": "object",
            "properties": {"list": {"type": "array", "items": {"anyOf": [
                {"type": "object", "properties": {"d": {"anyOf": [{"type": "object", "required": ["p"]}, {"type": "object", "required": ["q"]}]}}, "required": ["d"]},
                {"type": "null"}
            ]}}},
            "dependentSchemas": {"list": {"properties": {"list": {"items": {"anyOf": [
                {"type": "object", "properties": {"d": {"not": {"required": ["z"]}}}},
                {"type": "null"}
            ]}}}}}
        });
        let got = run(
            schema,
            json!({"list": [{"d": {"p": 1}}, {"d": {"r": 1}}, null, {"d": {"q": 1, "z": 2}}, {"d": {"q": 1}}]}),
        );
        assert_eq!(
            got,
            [
                r#"/list/1/d: missing required property "p""#,
                "/list/3/d: must not match the disallowed shape",
            ]
        );
    }
}
