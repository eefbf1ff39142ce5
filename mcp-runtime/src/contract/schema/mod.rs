//! Two versions of one JSON Schema compared keyword by keyword.
//!
//! An input schema says what the server accepts: a change that accepts less is breaking (some
//! call that worked is refused), one that accepts more is compatible. An output schema says what
//! the server promises: there the direction reverses, and a change that allows more breaks the
//! consumers that relied on the promise. Each rule below finds whether a keyword's change
//! *tightened* (fewer instances valid) or *loosened* (more) the schema, and [`Side`] turns that
//! into a class. What cannot be proven either way (`anyOf`, `$ref` cycles, `if`/`then`) is
//! [`Class::Unknown`], never guessed safe.
//!
//! | file | what it holds |
//! |---|---|
//! | this file | the walk: two schemas compared at each place, their `allOf`/`anyOf`/`oneOf`, `items` and `$ref`s |
//! | `view.rs` | the schema as the walk sees it: local `$ref`s followed, pydantic's optional unions unfolded |
//! | `object.rs` | an object's keywords: `properties`, `required`, `additionalProperties`, `unevaluatedProperties`, `default` |
//! | `scalar.rs` | one value's keywords: `type`, `enum`/`const`, numeric bounds, `multipleOf`, lengths and counts, `uniqueItems`, `pattern`, `format` |

use serde_json::{Map, Value};

use super::report::Class;

mod object;
mod scalar;
mod view;

pub(crate) use object::{escape, extra, required};
pub(crate) use view::view;
use view::{has_ref, refs_differ};

/// Which way a schema is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Arguments the server accepts: tightening breaks callers.
    Input,
    /// Results the server promises: loosening breaks consumers.
    Output,
}

/// One change a walk found, before it is attached to its entry.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub pointer: String,
    pub rule: String,
    pub class: Class,
    pub message: String,
}

/// How many `$ref`s deep the walk follows before comparing what is left as plain JSON.
pub(crate) const MAX_REF_DEPTH: usize = 16;

/// Keywords for people only: a change to one is [`Class::Info`].
pub(crate) const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "contentMediaType",
    "contentEncoding",
];

/// Keywords combining subschemas: a change to one is [`Class::Unknown`].
pub(crate) const COMPOSITION: &[&str] = &[
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$dynamicRef",
];

/// Keywords the walk compares itself (the rest are compared as JSON).
pub(crate) const COMPARED: &[&str] = &[
    "type",
    "enum",
    "const",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "pattern",
    "format",
    "properties",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "default",
    "$defs",
    "definitions",
];

/// Compares `old` with `new` (each with its root, for `$ref`s) read as `side`.
pub(crate) fn compare(side: Side, old: &Value, new: &Value, pointer: &str) -> Vec<Found> {
    let defs = |root: &Value| (root.get("$defs").cloned(), root.get("definitions").cloned());
    let mut walk = Walk {
        side,
        old_root: old,
        new_root: new,
        same_defs: defs(old) == defs(new),
        out: Vec::new(),
    };
    walk.node(old, new, pointer, 0);
    walk.out
}

struct Walk<'a> {
    side: Side,
    old_root: &'a Value,
    new_root: &'a Value,
    /// Whether both roots hold the same definitions: then equal nodes mean equal schemas even
    /// when they hold `$ref`s.
    same_defs: bool,
    out: Vec<Found>,
}

impl Walk<'_> {
    pub(crate) fn push(&mut self, pointer: &str, rule: &str, class: Class, message: String) {
        let side = match self.side {
            Side::Input => "input",
            Side::Output => "output",
        };
        self.out.push(Found {
            pointer: pointer.to_owned(),
            rule: format!("{side}.{rule}"),
            class,
            message,
        });
    }

    /// Fewer instances are valid under the new schema.
    pub(crate) fn tightened(&mut self, pointer: &str, rule: &str, message: String) {
        let class = match self.side {
            Side::Input => Class::Breaking,
            Side::Output => Class::Compatible,
        };
        self.push(pointer, rule, class, message);
    }

    /// More instances are valid under the new schema.
    pub(crate) fn loosened(&mut self, pointer: &str, rule: &str, message: String) {
        let class = match self.side {
            Side::Input => Class::Compatible,
            Side::Output => Class::Breaking,
        };
        self.push(pointer, rule, class, message);
    }

    /// Some instances are valid only under the old schema and some only under the new one.
    pub(crate) fn changed(&mut self, pointer: &str, rule: &str, message: String) {
        self.push(pointer, rule, Class::Breaking, message);
    }

    /// Whether `v`, the same text in both versions, holds a `$ref` whose target (or a target
    /// reached from it) differs between the two roots.
    pub(crate) fn reaches_changed_def(&self, v: Option<&Value>) -> bool {
        !self.same_defs && v.is_some_and(|v| refs_differ(v, self.old_root, self.new_root))
    }

    pub(crate) fn node(&mut self, old: &Value, new: &Value, ptr: &str, depth: usize) {
        if old == new && (self.same_defs || !has_ref(old)) {
            return;
        }
        if depth > MAX_REF_DEPTH {
            let message = "a recursive schema changed below the depth compared".to_owned();
            return self.push(ptr, "composition-changed", Class::Unknown, message);
        }
        let old_view = view(old, self.old_root, depth);
        let new_view = view(new, self.new_root, depth);
        let depth = depth + usize::from(old_view.1 || new_view.1);
        let (old, new) = (old_view.0, new_view.0);
        if old == new && (self.same_defs || !has_ref(&old)) {
            return;
        }
        match (old == Value::Bool(false), new == Value::Bool(false)) {
            (true, true) => return,
            (true, false) => {
                return self.loosened(
                    ptr,
                    "schema-opened",
                    "nothing was allowed here; now something is".into(),
                );
            }
            (false, true) => {
                return self.tightened(
                    ptr,
                    "schema-closed",
                    "nothing is allowed here any more".into(),
                );
            }
            _ => {}
        }
        let unresolved = |v: &Value| v.get("$ref").cloned();
        if (unresolved(&old).is_some() || unresolved(&new).is_some())
            && unresolved(&old) != unresolved(&new)
        {
            // A `$ref` that does not resolve (or is too deep) on one side: what it allows is
            // unknown, so nothing below it is compared as if it allowed anything.
            let message = "a `$ref` that does not resolve here changed; not proven either way \
                 (a union or a reference)"
                .to_owned();
            return self.push(
                &format!("{ptr}/$ref"),
                "composition-changed",
                Class::Unknown,
                message,
            );
        }
        let is_schema = |v: &Value| v.is_object() || v.is_boolean();
        if !is_schema(&old) || !is_schema(&new) {
            // Not a schema (a tuple-form `items: [...]`, a stray number): compared as JSON.
            let message = "a value that is not a schema (an object or a boolean) changed here; \
                 not proven either way (this form is not compared)"
                .to_owned();
            return self.push(ptr, "keyword-changed", Class::Unknown, message);
        }
        let empty = Map::new();
        let o = old.as_object().unwrap_or(&empty);
        let n = new.as_object().unwrap_or(&empty);
        self.types(o, n, ptr);
        self.values(o, n, ptr);
        self.bound(o, n, ptr, scalar::Bound::Lower);
        self.bound(o, n, ptr, scalar::Bound::Upper);
        self.multiple_of(o, n, ptr);
        for (kw, higher_is_tighter) in [
            ("minLength", true),
            ("maxLength", false),
            ("minItems", true),
            ("maxItems", false),
            ("minProperties", true),
            ("maxProperties", false),
        ] {
            self.count(o, n, ptr, kw, higher_is_tighter);
        }
        self.flag(o, n, ptr, "uniqueItems");
        self.text_rule(o, n, ptr, "pattern");
        self.text_rule(o, n, ptr, "format");
        self.object(o, n, ptr, depth);
        for (kw, rule) in [
            ("additionalProperties", "additional-properties"),
            ("unevaluatedProperties", "unevaluated-properties"),
        ] {
            self.closure(o, n, ptr, kw, rule, depth);
        }
        let items = (o.get("items"), n.get("items"));
        if items.0 != items.1 || self.reaches_changed_def(items.0) {
            let t = Value::Bool(true);
            let here = format!("{ptr}/items");
            self.node(items.0.unwrap_or(&t), items.1.unwrap_or(&t), &here, depth);
        }
        self.default(o, n, ptr);
        self.rest(o, n, ptr);
    }
}
