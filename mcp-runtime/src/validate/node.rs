//! The compiled form: a flat arena of nodes, one per schema, linked by index.

use std::collections::HashMap;

use serde_json::Value;

use super::formats::{IntFormat, StrCheck};
use super::numbers::Num;
use super::pattern::Pattern;

pub(super) type NodeId = u32;

/// One compiled schema.
#[derive(Debug, Clone)]
pub(super) enum Node {
    /// `true`, `{}`, or a schema of annotations only.
    Any,
    /// `false`.
    Never,
    /// A schema with at least one assertion or applicator.
    Rules(Box<Rules>),
}

/// The JSON types a `type` keyword admits, as a bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Types(pub(super) u8);

impl Types {
    pub(super) const NULL: u8 = 1;
    pub(super) const BOOLEAN: u8 = 2;
    pub(super) const OBJECT: u8 = 4;
    pub(super) const ARRAY: u8 = 8;
    pub(super) const NUMBER: u8 = 16;
    pub(super) const STRING: u8 = 32;
    pub(super) const INTEGER: u8 = 64;

    pub(super) fn parse(name: &str) -> Option<u8> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "number" => Self::NUMBER,
            "string" => Self::STRING,
            "integer" => Self::INTEGER,
            _ => return None,
        })
    }

    /// `a string`, `an integer or null`, `a string, a number or null`.
    pub(super) fn describe(self) -> String {
        let names: Vec<&str> = [
            (Self::STRING, "a string"),
            (Self::INTEGER, "an integer"),
            (Self::NUMBER, "a number"),
            (Self::BOOLEAN, "a boolean"),
            (Self::OBJECT, "an object"),
            (Self::ARRAY, "an array"),
            (Self::NULL, "null"),
        ]
        .into_iter()
        .filter(|(bit, _)| self.0 & bit != 0)
        .map(|(_, name)| name)
        .collect();
        match names.split_last() {
            None => "of no type".to_owned(),
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }
}

/// A numeric bound: the number, and its text as published.
#[derive(Debug, Clone)]
pub(super) struct Bound {
    pub(super) value: Num,
    pub(super) text: Box<str>,
}

/// What `additionalProperties` says about keys that `properties` and `patternProperties` don't name.
#[derive(Debug, Clone)]
pub(super) enum Additional {
    /// Absent or `true`.
    Allowed,
    /// `false`; carries the allowed names as listed in the message.
    Forbidden { allowed: Box<str> },
    /// A schema every other value must match.
    Schema(NodeId),
}

/// `anyOf` / `oneOf`.
#[derive(Debug, Clone)]
pub(super) struct Alternatives {
    pub(super) branches: Vec<NodeId>,
    /// For `anyOf: [T, {"type": "null"}]`: `T`, whose errors are reported for non-null values.
    pub(super) non_null: Option<NodeId>,
    /// When every branch is a `const` or `enum`: `must be one of …`, used instead of the
    /// generic message.
    pub(super) choices: Option<Box<str>>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Rules {
    pub(super) types: Option<(Types, Box<str>)>,
    /// `enum` values and the message prefix `must be one of …`.
    pub(super) enumeration: Option<(Vec<Value>, Box<str>)>,
    pub(super) constant: Option<(Value, Box<str>)>,

    pub(super) minimum: Option<Bound>,
    pub(super) maximum: Option<Bound>,
    pub(super) exclusive_minimum: Option<Bound>,
    pub(super) exclusive_maximum: Option<Bound>,
    pub(super) multiple_of: Option<Bound>,

    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    pub(super) pattern: Option<Pattern>,
    /// A string `format` this validator asserts, and its name.
    pub(super) str_format: Option<(StrCheck, Box<str>)>,
    /// An integer `format` (`int64`, `uint8`, …): its range, checked before `type`.
    pub(super) int_format: Option<IntFormat>,

    pub(super) prefix_items: Vec<NodeId>,
    pub(super) items: Option<NodeId>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) unique_items: bool,
    pub(super) contains: Option<NodeId>,
    pub(super) min_contains: Option<u64>,
    pub(super) max_contains: Option<u64>,

    pub(super) properties: Vec<(Box<str>, NodeId)>,
    /// Name → index into `properties`, built when there are many.
    pub(super) property_index: Option<HashMap<Box<str>, usize>>,
    pub(super) required: Vec<Box<str>>,
    pub(super) pattern_properties: Vec<(Pattern, NodeId)>,
    pub(super) additional: Option<Additional>,
    pub(super) property_names: Option<NodeId>,
    pub(super) min_properties: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) dependent_required: Vec<(Box<str>, Vec<Box<str>>)>,
    pub(super) dependent_schemas: Vec<(Box<str>, NodeId)>,

    pub(super) reference: Option<NodeId>,
    pub(super) all_of: Vec<NodeId>,
    pub(super) any_of: Option<Alternatives>,
    pub(super) one_of: Option<Alternatives>,
    pub(super) not: Option<NodeId>,
    pub(super) if_then_else: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,

    /// `unevaluatedProperties`: what the keys no other keyword evaluated must satisfy. Its
    /// `Forbidden` names are every property named at this location, through in-place
    /// applicators (filled in once the whole arena is compiled).
    pub(super) unevaluated_properties: Option<Additional>,
    /// `unevaluatedItems`: the schema of the items no other keyword evaluated.
    pub(super) unevaluated_items: Option<NodeId>,
}

impl Rules {
    #[inline]
    pub(super) fn property(&self, name: &str) -> Option<usize> {
        match &self.property_index {
            Some(index) => index.get(name).copied(),
            None => self.properties.iter().position(|(n, _)| &**n == name),
        }
    }

    /// The schemas applied in place, to the same value (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`,
    /// `if`/`then`/`else`, `dependentSchemas`).
    pub(super) fn in_place(&self) -> Vec<NodeId> {
        let mut next: Vec<NodeId> = self.all_of.clone();
        next.extend(self.reference);
        next.extend(self.not);
        for alt in [&self.any_of, &self.one_of].into_iter().flatten() {
            next.extend(&alt.branches);
        }
        if let Some((i, t, e)) = self.if_then_else {
            next.push(i);
            next.extend(t);
            next.extend(e);
        }
        next.extend(self.dependent_schemas.iter().map(|(_, n)| *n));
        next
    }

    #[inline]
    pub(super) fn has_object_rules(&self) -> bool {
        !self.properties.is_empty()
            || !self.required.is_empty()
            || !self.pattern_properties.is_empty()
            || self.additional.is_some()
            || self.property_names.is_some()
            || self.min_properties.is_some()
            || self.max_properties.is_some()
            || !self.dependent_required.is_empty()
            || !self.dependent_schemas.is_empty()
    }
}
