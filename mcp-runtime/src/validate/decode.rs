//! What decoding the arguments into the tool's types will cost, counted before it starts.
//!
//! serde's derived `Deserialize` for an untagged enum (`#[serde(untagged)]`, published as an
//! `anyOf`) tries its variants in order on a buffered copy of the value, and a variant that fails
//! deep inside has decoded everything above the failure first. When such an enum holds itself, a
//! value that takes a later variant at each level is decoded again for every earlier variant at
//! every level above it: 2^depth times with two variants. 20 levels cost 0.5 to 0.8 s in a
//! release build and 30 levels would cost hours, well within [`super::MAX_DEPTH`]. Nothing reaches
//! into serde's buffered decoding, so the validator, which has just learnt which branch each value
//! takes, counts what serde's attempts will cost before the tool's arguments are decoded.
//!
//! The count is in values decoded. Decoding a value under a schema node costs:
//! - one, plus the cost of each child under the subschema this node gives it (`properties`,
//!   `additionalProperties`, `prefixItems`, `items`; a struct decoded from an array, as serde
//!   allows, takes its properties in order); a key with no subschema costs one (serde skips a
//!   buffered value without walking it); a node that says nothing of the children decodes them
//!   whole (a `serde_json::Value` field): one per value;
//! - `$ref` and `allOf` (flattened fields): the sum of their targets;
//! - an optional value (`anyOf` of a type and `null`), or a union told apart by a tag property
//!   or a key (serde's tagged enums): the branch the value takes;
//! - any other union: serde's attempts in order, each the cost of its branch, up to the first
//!   branch the value meets; a branch whose `type` rules the value out costs nothing (an object
//!   branch is tried on an array too: serde decodes a struct from a sequence).
//!
//! The count follows serde's time closely: 60 to 125 ns per value decoded in a release build,
//! on recursive chains that take the second or third variant at every level (from 1,300 to 2.6
//! million values) and on lists of 100,000 shallow values alike. A call is refused when its count
//! passes the limit plus [`PER_VALUE`] decodings per value of the arguments: decoding then costs
//! at most a constant per value plus the limit, linear in the size of the arguments whatever
//! their shape. The count stops where it passes that allowance, so it costs no more than the
//! decoding it allows, plus the branch answers it asks the validator for (`probe.rs`: a nested
//! probe is answered once per subschema and value). The violation names the outermost untagged
//! value on the way to where the count ran out, or the arguments.
//!
//! It runs only for schemas in which an untagged union holds itself; elsewhere the schema bounds
//! the attempts by a constant. Priced in BENCHMARKS.md (the complexity battery's `untagged-*`
//! rows): on 80,000 shallow values it adds about as much as validation itself.

use std::sync::Arc;

use serde_json::Value;

use super::Validator;
use super::node::{Additional, Alternatives, Node, NodeId, Rules, Types};
use super::path::Path;
use super::probe;
use super::union::json_type;

/// How many decodings of values a call's arguments may cost beyond a fixed allowance per value (8),
/// unless the server sets another limit (`ServerBuilder::untagged_decode_limit`): about 10 ms of
/// serde's untagged decoding in a release build.
pub const DEFAULT_UNTAGGED_DECODE_LIMIT: u64 = 100_000;

/// Decodings allowed per value of the arguments on top of the limit: a list of values three
/// levels deep that each try two variants at every level costs 9.5 per value.
const PER_VALUE: u64 = 8;

/// The unions of a schema that serde decodes by trying their branches in order, when one of them
/// holds itself; `None` in a [`Validator`] whose schema has none.
#[derive(Debug, Clone)]
pub(super) struct Decode {
    /// By node: an untagged union (`anyOf`/`oneOf` that is neither optional nor tagged).
    untagged: Vec<bool>,
    limit: u64,
    /// The schema generated from the types the arguments are decoded into, when the published
    /// one is another (`Tool::with_input_schema`): the count follows the types, and `untagged`
    /// indexes its nodes.
    types: Option<Arc<Validator>>,
}

/// Arguments whose decoding would cost too much: where the count ran out, and what was allowed.
pub(super) struct Excess {
    path: String,
    allowed: u64,
    size: u64,
}

/// One count: the decodings still allowed, and where they ran out.
struct Count<'d> {
    decode: &'d Decode,
    left: u64,
    over: Option<String>,
}

impl Validator {
    /// Finds the untagged unions and whether one of them is recursive (reaches itself through
    /// the schema); sets [`Validator::decode`] when one is.
    pub(super) fn find_untagged_recursion(&mut self) {
        let untagged: Vec<bool> = (0..self.nodes.len())
            .map(|id| match &self.nodes[id] {
                Node::Rules(r) => [&r.any_of, &r.one_of].into_iter().flatten().any(|alt| {
                    alt.non_null.is_none()
                        && alt.choices.is_none()
                        && !self.is_tagged(&alt.branches)
                }),
                _ => false,
            })
            .collect();
        let recursive = (0..self.nodes.len())
            .any(|id| untagged[id] && self.reaches(id as NodeId, id as NodeId));
        self.decode = recursive.then(|| {
            Box::new(Decode {
                untagged,
                limit: DEFAULT_UNTAGGED_DECODE_LIMIT,
                types: None,
            })
        });
    }

    /// Counts decoding by `types`, the validator of the schema generated from the types the
    /// arguments are decoded into, instead of by this schema: for a published schema of the
    /// developer's own (whose unions say nothing of how serde decodes).
    pub fn count_decoding_as(&mut self, types: &Validator) {
        self.decode = types.decode.as_deref().map(|d| {
            let types = d.types.clone().unwrap_or_else(|| Arc::new(types.clone()));
            Box::new(Decode {
                untagged: d.untagged.clone(),
                limit: d.limit,
                types: Some(types),
            })
        });
    }

    /// Sets how much decoding a call may cost beyond 8 decodings per value (default
    /// [`DEFAULT_UNTAGGED_DECODE_LIMIT`]); `u64::MAX` counts nothing. Without effect on a schema
    /// with no recursive untagged union.
    pub fn set_untagged_decode_limit(&mut self, limit: u64) {
        if let Some(d) = &mut self.decode {
            d.limit = limit;
        }
    }

    /// True when the schema holds an untagged union that holds itself, whose decoding is counted.
    pub fn counts_untagged_decoding(&self) -> bool {
        self.decode.is_some()
    }

    /// Whether node `to` is reached from `from` by one step or more.
    fn reaches(&self, from: NodeId, to: NodeId) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = self.successors(from);
        while let Some(id) = stack.pop() {
            if id == to {
                return true;
            }
            if !std::mem::replace(&mut seen[id as usize], true) {
                stack.extend(self.successors(id));
            }
        }
        false
    }

    /// The nodes applied to a value under `id` or to its children.
    fn successors(&self, id: NodeId) -> Vec<NodeId> {
        let Node::Rules(r) = &self.nodes[id as usize] else {
            return Vec::new();
        };
        let mut next = r.in_place();
        next.extend(r.properties.iter().map(|(_, n)| *n));
        next.extend(r.pattern_properties.iter().map(|(_, n)| *n));
        if let Some(Additional::Schema(n)) = &r.additional {
            next.push(*n);
        }
        next.extend(r.prefix_items.iter().copied());
        next.extend(r.items);
        next
    }

    /// Where decoding `args` (which meet the schema) would cost more than the limit allows;
    /// `None` when the schema has no recursive untagged union or the arguments are within it.
    pub(super) fn decode_excess(&self, args: &mut Value) -> Option<Excess> {
        let decode = self.decode.as_deref().filter(|d| d.limit != u64::MAX)?;
        let by = decode.types.as_deref().unwrap_or(self);
        let size = size(args);
        let allowed = allowed(decode.limit, size);
        let mut count = Count {
            decode,
            left: allowed,
            over: None,
        };
        // A walk of its own: the probe answers kept are by node, and `by` may be another arena.
        let _walk = probe::Walk;
        if by.spend(&mut count, 0, args, &Path::ROOT, None).is_ok() {
            return None;
        }
        tracing::warn!(
            allowed,
            values = size,
            "arguments were refused: decoding their untagged enums would cost more than \
             untagged_decode_limit allows"
        );
        Some(Excess {
            path: count.over.unwrap_or_default(),
            allowed,
            size,
        })
    }

    /// Spends what decoding `v` under node `id` costs (see the module docs). `outer`: the
    /// outermost value of an untagged union on the way here.
    fn spend(
        &self,
        count: &mut Count<'_>,
        id: NodeId,
        v: &mut Value,
        path: &Path<'_>,
        outer: Option<&Path<'_>>,
    ) -> Result<(), Over> {
        let r = match &self.nodes[id as usize] {
            Node::Rules(r) => r,
            Node::Any => return count.take(size(v), path, outer),
            Node::Never => return count.take(1, path, outer),
        };
        let untagged = count.decode.untagged[id as usize];
        let outer = match outer {
            None if untagged => Some(path),
            outer => outer,
        };
        let in_place = r.reference.is_some()
            || !r.all_of.is_empty()
            || r.any_of.is_some()
            || r.one_of.is_some();
        if own_children(r, v) {
            count.take(1, path, outer)?;
            self.spend_children(count, r, v, path, outer)?;
        } else if !in_place {
            count.take(size(v), path, outer)?;
        }
        for t in r.reference.iter().chain(&r.all_of) {
            self.spend(count, *t, v, path, outer)?;
        }
        for alt in [&r.any_of, &r.one_of].into_iter().flatten() {
            self.spend_union(count, alt, untagged, v, path, outer)?;
        }
        Ok(())
    }

    /// The children of `v`, each under the subschema `r` gives it (a key with none costs one).
    fn spend_children(
        &self,
        count: &mut Count<'_>,
        r: &Rules,
        v: &mut Value,
        path: &Path<'_>,
        outer: Option<&Path<'_>>,
    ) -> Result<(), Over> {
        match v {
            Value::Object(map) => {
                for (k, child) in map.iter_mut() {
                    let sub = match r.property(k) {
                        Some(i) => Some(r.properties[i].1),
                        None => match &r.additional {
                            Some(Additional::Schema(n)) => Some(*n),
                            _ => None,
                        },
                    };
                    let p = path.key(k);
                    match sub {
                        Some(n) => self.spend(count, n, child, &p, outer)?,
                        None => count.take(1, &p, outer)?,
                    }
                }
            }
            Value::Array(items) => {
                let as_struct = r.prefix_items.is_empty() && r.items.is_none();
                for (i, item) in items.iter_mut().enumerate() {
                    let sub = match r.prefix_items.get(i) {
                        Some(n) => Some(*n),
                        None if as_struct => r.properties.get(i).map(|(_, n)| *n),
                        None => r.items,
                    };
                    let p = path.index(i);
                    match sub {
                        Some(n) => self.spend(count, n, item, &p, outer)?,
                        None => count.take(1, &p, outer)?,
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The branches serde decodes `v` with: the one it takes, after every earlier branch that
    /// admits its type when the union is untagged.
    fn spend_union(
        &self,
        count: &mut Count<'_>,
        alt: &Alternatives,
        untagged: bool,
        v: &mut Value,
        path: &Path<'_>,
        outer: Option<&Path<'_>>,
    ) -> Result<(), Over> {
        if let Some(t) = alt.non_null {
            return match v.is_null() {
                true => count.take(1, path, outer),
                false => self.spend(count, t, v, path, outer),
            };
        }
        let mut bit = json_type(v);
        if bit == Types::ARRAY {
            bit |= Types::OBJECT;
        }
        for &b in &alt.branches {
            let takes = self.probe(b, v, path);
            if takes || (untagged && self.admits(b, bit)) {
                self.spend(count, b, v, path, outer)?;
            }
            if takes {
                break;
            }
        }
        Ok(())
    }
}

/// The count ran out: decoding would cost more than allowed.
struct Over;

impl Count<'_> {
    /// Spends `n` decodings, or records where the count ran out: the outermost value of an
    /// untagged union on the way, else the value itself.
    fn take(&mut self, n: u64, path: &Path<'_>, outer: Option<&Path<'_>>) -> Result<(), Over> {
        match self.left.checked_sub(n) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => {
                self.over = Some(outer.unwrap_or(path).pointer());
                Err(Over)
            }
        }
    }
}

/// Whether `r` names subschemas for the children of `v`.
fn own_children(r: &Rules, v: &Value) -> bool {
    match v {
        Value::Object(_) => !r.properties.is_empty() || r.additional.is_some(),
        Value::Array(_) => {
            !r.prefix_items.is_empty() || r.items.is_some() || !r.properties.is_empty()
        }
        _ => true,
    }
}

/// The decodings allowed for arguments of `size` values.
fn allowed(limit: u64, size: u64) -> u64 {
    limit.saturating_add(size.saturating_mul(PER_VALUE))
}

/// How many values `v` holds, itself included.
fn size(v: &Value) -> u64 {
    match v {
        Value::Array(items) => 1 + items.iter().map(size).sum::<u64>(),
        Value::Object(map) => 1 + map.values().map(size).sum::<u64>(),
        _ => 1,
    }
}

impl Excess {
    pub(super) fn violation(self) -> super::Violation {
        super::Violation {
            path: self.path,
            message: format!(
                "nests its untagged alternatives too deeply: trying them in order would take more \
                 than the {} decodings allowed for arguments of {} values (untagged_decode_limit); \
                 send a less deeply nested value",
                self.allowed, self.size
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::{Value, json};

    use crate::schema::{ArgSpec, InputSchema};
    use crate::validate::{DEFAULT_UNTAGGED_DECODE_LIMIT, Validator};

    /// Each variant descends into `child` before it can fail on its own field.
    #[derive(Deserialize, JsonSchema, Debug)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Obj {
        A { child: Box<Obj>, a: i64 },
        B { child: Box<Obj>, b: i64 },
        L { leaf: i64 },
    }

    /// Tuple variants: a pair fails on a one-item array only after decoding its item.
    #[derive(Deserialize, JsonSchema, Debug)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Seq {
        Leaf(i64),
        Pair(Box<Seq>, Box<Seq>),
        Single([Box<Seq>; 1]),
    }

    /// Tagged: serde reads the tag and decodes one variant.
    #[derive(Deserialize, JsonSchema, Debug)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Tagged {
        Add { l: Box<Tagged>, r: Box<Tagged> },
        Num { n: i64 },
    }

    /// A linked list: `Option` is decoded by looking at `null`, never by trying.
    #[derive(Deserialize, JsonSchema, Debug)]
    #[allow(dead_code)]
    struct List {
        next: Option<Box<List>>,
        v: i64,
    }

    /// An untagged union that does not hold itself.
    #[derive(Deserialize, JsonSchema, Debug)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Flat {
        Num(i64),
        Pair { x: i64, y: i64 },
        Name { name: String },
    }

    fn validator<T: JsonSchema>() -> Validator {
        let mut b = InputSchema::new();
        b.arg::<T>(ArgSpec {
            name: "n",
            ..Default::default()
        });
        Validator::compile(&b.finish()).expect("compiles")
    }

    fn obj_chain(depth: usize, variant: &str) -> Value {
        (0..depth).fold(json!({"leaf": 1}), |v, _| json!({"child": v, variant: 1}))
    }

    fn seq_chain(depth: usize) -> Value {
        (0..depth).fold(json!(1), |v, _| json!([v]))
    }

    /// Validates `{"n": n}` and, when it is valid, checks that serde decodes it.
    fn check<T: for<'de> Deserialize<'de>>(v: &Validator, n: Value) -> Vec<String> {
        let mut args = json!({ "n": n });
        let out = v.validate(&mut args);
        assert_eq!(v.is_valid(&mut args.clone()), out.is_empty());
        if out.is_empty() {
            T::deserialize(&args["n"]).expect("serde decodes what the validator let through");
        }
        out.into_iter()
            .map(|v| format!("{}: {}", v.path, v.message))
            .collect()
    }

    #[test]
    fn only_recursive_untagged_unions_are_counted() {
        assert!(validator::<Obj>().counts_untagged_decoding());
        assert!(validator::<Seq>().counts_untagged_decoding());
        assert!(!validator::<Tagged>().counts_untagged_decoding());
        assert!(!validator::<List>().counts_untagged_decoding());
        assert!(!validator::<Flat>().counts_untagged_decoding());
        assert!(!validator::<Vec<Flat>>().counts_untagged_decoding());
    }

    #[test]
    fn a_chain_that_takes_a_later_variant_at_every_level_is_refused() {
        let v = validator::<Obj>();
        // 2^n repeated decodings: within the limit at 12 levels, far beyond it at 40.
        assert_eq!(check::<Obj>(&v, obj_chain(12, "b")), Vec::<String>::new());
        let refused = check::<Obj>(&v, obj_chain(40, "b"));
        assert_eq!(
            refused,
            [format!(
                "/n: nests its untagged alternatives too deeply: trying them in order would \
                 take more than the {} decodings allowed for arguments of 83 values \
                 (untagged_decode_limit); send a less deeply nested value",
                DEFAULT_UNTAGGED_DECODE_LIMIT + 8 * 83
            )]
        );
        let v = validator::<Seq>();
        assert_eq!(check::<Seq>(&v, seq_chain(10)), Vec::<String>::new());
        assert_eq!(check::<Seq>(&v, seq_chain(60)).len(), 1);
    }

    #[test]
    fn the_outermost_value_over_its_bound_is_named() {
        let v = validator::<Vec<Obj>>();
        let args = json!([obj_chain(3, "a"), obj_chain(40, "b")]);
        let refused = check::<Vec<Obj>>(&v, args);
        assert!(refused[0].starts_with("/n/1: nests"), "{refused:?}");
    }

    #[test]
    fn deep_values_that_take_the_first_variant_pass() {
        let v = validator::<Obj>();
        // 60 levels (121 deep), each taking `A`: decoded once.
        assert_eq!(check::<Obj>(&v, obj_chain(60, "a")), Vec::<String>::new());
    }

    #[test]
    fn many_shallow_values_pass_whatever_their_number() {
        // 30,000 values that each try two variants before the third: linear work, far more
        // than the limit in total.
        let v = validator::<Vec<Obj>>();
        let many = Value::Array((0..10_000).map(|_| obj_chain(1, "b")).collect());
        assert_eq!(check::<Vec<Obj>>(&v, many), Vec::<String>::new());
        let leaves = Value::Array((0..30_000).map(|_| json!({"leaf": 1})).collect());
        assert_eq!(check::<Vec<Obj>>(&v, leaves), Vec::<String>::new());
    }

    #[test]
    fn the_untagged_value_is_named_not_the_padding_beside_it() {
        #[derive(Deserialize, JsonSchema, Debug)]
        #[allow(dead_code)]
        struct Padded {
            pad: Vec<i64>,
            chain: Obj,
        }
        let v = validator::<Padded>();
        let pad: Vec<i64> = (0..20_000).collect();
        let refused = check::<Padded>(&v, json!({"pad": pad, "chain": obj_chain(40, "b")}));
        assert!(refused[0].starts_with("/n/chain: nests"), "{refused:?}");
    }

    #[test]
    fn a_schema_of_the_developers_own_is_counted_by_the_types() {
        // Published: an untagged recursive union; decoded into plain JSON values: nothing to
        // count, however deep.
        let own = Validator::compile(&json!({
            "$defs": {"E": {"anyOf": [
                {"type": "object", "properties": {"of": {"$ref": "#/$defs/E"}, "a": true}, "required": ["of", "a"]},
                {"type": "object", "properties": {"of": {"$ref": "#/$defs/E"}, "b": true}, "required": ["of", "b"]},
                {"type": "object", "properties": {"leaf": true}, "required": ["leaf"]}
            ]}},
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/E"}}
        }))
        .unwrap();
        let deep =
            || json!({"n": (0..40).fold(json!({"leaf": 1}), |v, _| json!({"of": v, "b": 1}))});
        assert_eq!(
            own.validate(&mut deep()).len(),
            1,
            "counted by its own unions"
        );
        let mut published = own.clone();
        published.count_decoding_as(&validator::<Value>());
        assert!(!published.counts_untagged_decoding());
        assert_eq!(published.validate(&mut deep()), []);
        // Published: anything; decoded into `Obj`: counted by `Obj`'s schema.
        let mut published = Validator::compile(&json!({"type": "object"})).unwrap();
        published.count_decoding_as(&validator::<Obj>());
        assert_eq!(
            published
                .validate(&mut json!({"n": obj_chain(40, "b")}))
                .len(),
            1
        );
        assert_eq!(
            published.validate(&mut json!({"n": obj_chain(40, "a")})),
            []
        );
    }

    #[test]
    fn the_limit_is_the_servers_to_set() {
        let mut v = validator::<Obj>();
        let deep = obj_chain(18, "b"); // 2.6 million decodings
        assert_eq!(check::<Obj>(&v, deep.clone()).len(), 1);
        v.set_untagged_decode_limit(1 << 22);
        assert_eq!(check::<Obj>(&v, deep), Vec::<String>::new());
    }
}
