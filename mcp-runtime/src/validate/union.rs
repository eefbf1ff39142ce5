//! Why a union (`anyOf`, `oneOf`) matched none of its branches, said so the model can fix the call.
//!
//! Runs only after a union has failed and violations are being collected: valid calls and the
//! `is_valid` probe never come here. The branches are read from the compiled arena as they are:
//!
//! - **Tagged by a property**: every branch is an object that requires one same property with a
//!   `const` (serde's internally and adjacently tagged enums). A missing or unknown tag is
//!   reported with the allowed values (`/rule/kind: must be one of "percent", "fixed" (got
//!   "explode")`); a known tag selects its branch, whose own violations are reported at their own
//!   pointers, those at the union's pointer followed by the tag (`(kind = "moveTo")`).
//! - **Tagged by a key**: every branch is an object requiring exactly one key, or the strings of
//!   unit variants (serde's externally tagged enums). The key present selects the branch.
//! - **Untagged**: the closest branch's violations. The candidates are the branches whose `type`
//!   admits the value's JSON type; the closest is the one with the fewest violations at the union's
//!   own pointer (a deeper violation means more of the shape matched), then the fewest in all, then
//!   the first declared.
//!
//! Scoring runs each candidate's full check. While it does, nested unions that fail give their
//! one generic message instead of explaining themselves (the `SCORING` flag), so the explanation
//! follows a single branch per level and its cost stays polynomial in the size of the value.
//!
//! A string holding the JSON of an object or array that a branch would take gets the hint to pass
//! the value itself (`report.rs` renders it for any `must be an object` as well).

use std::cell::Cell;

use serde_json::Value;

use super::node::{Alternatives, Node, NodeId, Rules, Types};
use super::path::Path;
use super::report::{Msg, choices_message, json_container, quoted, report};
use super::{Validator, Violation};

thread_local! {
    /// True while untagged branches are scored: nested unions then report without explaining.
    static SCORING: Cell<bool> = const { Cell::new(false) };
}

/// How far `$ref`s are followed to find a branch's own rules (loops are refused at compile time).
const REF_HOPS: usize = 8;

/// Sets [`SCORING`] for its lifetime and restores the previous value when dropped.
struct Scoring(bool);

impl Scoring {
    fn start() -> Self {
        Scoring(SCORING.replace(true))
    }
}

impl Drop for Scoring {
    fn drop(&mut self) {
        SCORING.set(self.0);
    }
}

/// How the branches of a union are told apart.
enum Tagging<'n> {
    /// Each branch requires the property `name` with its own `const` value.
    Property {
        name: &'n str,
        values: Vec<(&'n Value, NodeId)>,
    },
    /// Each branch requires one key of its own, or is the strings of unit variants.
    Key {
        keys: Vec<(&'n str, NodeId)>,
        units: Vec<&'n Value>,
    },
}

impl Validator {
    /// Reports why `v` matched no branch of `alt`. `one_of` picks the generic message.
    #[cold]
    #[inline(never)]
    pub(super) fn explain_union(
        &self,
        alt: &Alternatives,
        one_of: bool,
        v: &mut Value,
        path: &Path<'_>,
        out: &mut Vec<Violation>,
    ) {
        if let Some(non_null) = alt.non_null
            && !v.is_null()
        {
            self.check(non_null, v, path, Some(out));
            return;
        }
        if let Some(choices) = &alt.choices {
            report(out, path, Msg::Choices(choices, v));
            return;
        }
        let generic = || {
            if one_of {
                Msg::OneOf(0)
            } else {
                Msg::Text("must match at least one of the allowed shapes")
            }
        };
        if SCORING.get() {
            return report(out, path, generic());
        }
        if let Value::String(s) = &*v
            && let Some(bit) = json_container(s)
            && alt.branches.iter().any(|&b| self.admits(b, bit))
        {
            let expected = format!("must be {}", Types(bit).describe());
            return report(out, path, Msg::Type(&expected, &*v));
        }
        match self.tagging(&alt.branches) {
            Some(Tagging::Property { name, values }) => {
                self.by_property(name, &values, v, path, out)
            }
            Some(Tagging::Key { keys, units }) => self.by_key(&keys, &units, v, path, out),
            None => {
                if !self.closest(&alt.branches, v, path, out) {
                    report(out, path, generic());
                }
            }
        }
    }

    /// A union tagged by the property `name`: the tag's problem, or the selected branch's.
    fn by_property(
        &self,
        name: &str,
        values: &[(&Value, NodeId)],
        v: &mut Value,
        path: &Path<'_>,
        out: &mut Vec<Violation>,
    ) {
        let allowed = choices_message(values.iter().map(|(value, _)| *value));
        let Value::Object(map) = &*v else {
            return report(out, path, Msg::Type("must be an object", &*v));
        };
        let Some(tag) = map.get(name) else {
            let mut m = String::new();
            quote_key(&mut m, name);
            let message = format!("missing required {} {m} ({allowed})", path.noun());
            return push(out, path.pointer(), message);
        };
        let Some(&(value, branch)) = values.iter().find(|(value, _)| *value == tag) else {
            return report(out, &path.key(name), Msg::Choices(&allowed, tag));
        };
        let from = out.len();
        self.check(branch, v, path, Some(out));
        let here = path.pointer();
        for violation in &mut out[from..] {
            if violation.path == here {
                violation.message = format!("{} ({name} = {})", violation.message, quoted(value));
            }
        }
    }

    /// A union tagged by which key the object holds (or a unit variant's string).
    fn by_key(
        &self,
        keys: &[(&str, NodeId)],
        units: &[&Value],
        v: &mut Value,
        path: &Path<'_>,
        out: &mut Vec<Violation>,
    ) {
        let mut names = String::new();
        for (i, (key, _)) in keys.iter().enumerate() {
            if i > 0 {
                names.push_str(", ");
            }
            quote_key(&mut names, key);
        }
        let Value::Object(map) = &*v else {
            let expected = if units.is_empty() {
                format!("must be an object with one of the keys {names}")
            } else {
                let units = choices_message(units.iter().copied());
                format!("{units}, or an object with one of the keys {names}")
            };
            return report(out, path, Msg::Choices(&expected, &*v));
        };
        match keys.iter().find(|(key, _)| map.contains_key(*key)) {
            Some(&(_, branch)) => {
                self.check(branch, v, path, Some(out));
            }
            None => {
                let expected = format!("must have one of the keys {names}");
                report(out, path, Msg::Choices(&expected, &*v));
            }
        }
    }

    /// An untagged union: reports the closest candidate's violations. False when no branch's
    /// `type` admits the value and there is no common type to name.
    fn closest(
        &self,
        branches: &[NodeId],
        v: &mut Value,
        path: &Path<'_>,
        out: &mut Vec<Violation>,
    ) -> bool {
        let bit = json_type(v);
        let candidates: Vec<NodeId> = branches
            .iter()
            .copied()
            .filter(|&b| self.admits(b, bit))
            .collect();
        let best = match candidates.as_slice() {
            [] => {
                let Some(all) = self.union_types(branches) else {
                    return false;
                };
                let expected = format!("must be {}", all.describe());
                report(out, path, Msg::Type(&expected, &*v));
                return true;
            }
            [one] => *one,
            many => {
                let _scoring = Scoring::start();
                let here = path.pointer();
                let mut best = (many[0], (usize::MAX, usize::MAX));
                for &b in many {
                    let mut found = Vec::new();
                    self.check(b, v, path, Some(&mut found));
                    let own = found.iter().filter(|f| f.path == here).count();
                    let score = (own, found.len());
                    if score < best.1 {
                        best = (b, score);
                    }
                }
                best.0
            }
        };
        self.check(best, v, path, Some(out));
        true
    }

    /// The rules of a branch, through `$ref`s that stand alone.
    fn rules_of(&self, mut id: NodeId) -> Option<&Rules> {
        for _ in 0..REF_HOPS {
            let Node::Rules(r) = &self.nodes[id as usize] else {
                return None;
            };
            match r.reference {
                Some(target) if r.types.is_none() && r.properties.is_empty() => id = target,
                _ => return Some(r),
            }
        }
        None
    }

    /// True unless the branch's `type` (or its `const`/`enum`) rules out JSON values of `bit`.
    pub(super) fn admits(&self, id: NodeId, bit: u8) -> bool {
        match &self.nodes[id as usize] {
            Node::Never => false,
            Node::Any => true,
            // A number may be an integer: `type: integer` decides that later, with its message.
            Node::Rules(_) => self
                .branch_types(id)
                .is_none_or(|t| t & bit != 0 || (bit == Types::NUMBER && t & Types::INTEGER != 0)),
        }
    }

    /// The JSON types a branch allows, when it says: its `type`, or the types of its choices.
    fn branch_types(&self, id: NodeId) -> Option<u8> {
        let r = self.rules_of(id)?;
        if let Some((types, _)) = &r.types {
            return Some(types.0);
        }
        let values: Vec<&Value> = match (&r.constant, &r.enumeration) {
            (Some((c, _)), _) => vec![c],
            (None, Some((e, _))) => e.iter().collect(),
            (None, None) => return None,
        };
        Some(values.into_iter().fold(0, |all, v| all | json_type(v)))
    }

    /// Every type the branches allow, when each branch says.
    fn union_types(&self, branches: &[NodeId]) -> Option<Types> {
        let mut all = 0;
        for &b in branches {
            all |= self.branch_types(b)?;
        }
        if all & Types::NUMBER != 0 {
            all &= !Types::INTEGER;
        }
        Some(Types(all))
    }

    /// True when the branches are told apart by a tag property or a key (serde's tagged enums).
    pub(super) fn is_tagged(&self, branches: &[NodeId]) -> bool {
        self.tagging(branches).is_some()
    }

    /// How the branches are told apart, if they are.
    fn tagging(&self, branches: &[NodeId]) -> Option<Tagging<'_>> {
        let rules: Vec<&Rules> = branches
            .iter()
            .map(|&b| self.rules_of(b))
            .collect::<Option<_>>()?;
        let first = rules.first()?;
        // -- a property with a `const` in every branch, a different value in each
        let property = first.required.iter().find_map(|name| {
            let values: Vec<(&Value, NodeId)> = rules
                .iter()
                .zip(branches)
                .map(|(r, &b)| Some((self.tag_value(r, name)?, b)))
                .collect::<Option<_>>()?;
            let distinct = values
                .iter()
                .enumerate()
                .all(|(i, (a, _))| values[..i].iter().all(|(b, _)| a != b));
            distinct.then_some(Tagging::Property { name, values })
        });
        if property.is_some() {
            return property;
        }
        // -- one required key per object branch; unit variants as strings
        let mut keys: Vec<(&str, NodeId)> = Vec::new();
        let mut units: Vec<&Value> = Vec::new();
        for (r, &b) in rules.iter().zip(branches) {
            match (&r.constant, &r.enumeration, r.required.as_slice()) {
                (Some((c, _)), None, []) if c.is_string() => units.push(c),
                (None, Some((e, _)), []) if e.iter().all(Value::is_string) => units.extend(e),
                (None, None, [key]) if r.property(key).is_some() => {
                    if keys.iter().any(|(k, _)| k == &&**key) {
                        return None;
                    }
                    keys.push((key, b));
                }
                _ => return None,
            }
        }
        (!keys.is_empty()).then_some(Tagging::Key { keys, units })
    }

    /// The `const` of the required property `name` of an object branch.
    fn tag_value<'n>(&'n self, r: &'n Rules, name: &str) -> Option<&'n Value> {
        if !r.required.iter().any(|n| &**n == name) {
            return None;
        }
        let (_, node) = r.properties[r.property(name)?];
        let tag = self.rules_of(node)?;
        match (&tag.constant, &tag.enumeration) {
            (Some((c, _)), _) => Some(c),
            (None, Some((e, _))) if e.len() == 1 => Some(&e[0]),
            _ => None,
        }
    }
}

/// The type bit of a JSON value, as `type` names it (integers are numbers here).
pub(super) fn json_type(v: &Value) -> u8 {
    match v {
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::Object(_) => Types::OBJECT,
        Value::Array(_) => Types::ARRAY,
        Value::String(_) => Types::STRING,
        Value::Number(_) => Types::NUMBER,
    }
}

/// Appends a property name, quoted as the other messages quote it.
fn quote_key(out: &mut String, name: &str) {
    out.push_str(&quoted(&Value::String(name.to_owned())));
}

fn push(out: &mut Vec<Violation>, path: String, message: String) {
    out.push(Violation { path, message });
}
