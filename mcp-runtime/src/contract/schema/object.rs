//! The keywords of an object: `properties` (each compared, added or removed), `required`,
//! `additionalProperties` and `unevaluatedProperties`; then `default`, and every other keyword.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{ANNOTATIONS, COMPARED, COMPOSITION, Side, Walk};
use crate::contract::normalize::is_true_schema;
use crate::contract::report::Class;

impl Walk<'_> {
    pub(super) fn object(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
    ) {
        let props = |m: &Map<String, Value>| {
            m.get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let (old_props, new_props) = (props(o), props(n));
        let (old_req, new_req) = (required(o), required(n));
        let (old_extra, new_extra) = (extra(o), extra(n));
        let names: BTreeSet<&String> = old_props.keys().chain(new_props.keys()).collect();
        for name in names {
            let here = format!("{ptr}/properties/{}", escape(name));
            match (old_props.get(name), new_props.get(name)) {
                (Some(a), Some(b)) => self.node(a, b, &here, depth),
                (None, Some(b)) => {
                    let rule = "property-added";
                    let message = format!("property `{name}` added");
                    match self.side {
                        Side::Output => self.push(&here, rule, Class::Compatible, message),
                        Side::Input
                            if old_extra == Value::Bool(false) || new_req.contains(name) =>
                        {
                            if !new_req.contains(name) {
                                self.push(&here, rule, Class::Compatible, message);
                            }
                        }
                        Side::Input => {
                            // The old schema took this key as an undeclared one.
                            self.push(&here, rule, Class::Compatible, message);
                            self.node(&old_extra, b, &here, depth);
                        }
                    }
                }
                (Some(a), None) => {
                    let message = format!("property `{name}` removed");
                    match self.side {
                        Side::Output => {
                            self.push(&here, "property-removed", Class::Breaking, message)
                        }
                        Side::Input if new_extra == Value::Bool(false) => self.push(
                            &here,
                            "property-removed",
                            Class::Breaking,
                            message + " (now refused as unknown)",
                        ),
                        Side::Input => {
                            self.push(
                                &here,
                                "property-removed",
                                Class::Compatible,
                                message + " (still accepted as an undeclared key)",
                            );
                            self.node(a, &new_extra, &here, depth);
                        }
                    }
                }
                (None, None) => {}
            }
        }
        for name in new_req.difference(&old_req) {
            let here = format!("{ptr}/required");
            if old_props.contains_key(name) {
                self.tightened(
                    &here,
                    "property-made-required",
                    format!("property `{name}` is now required"),
                );
            } else {
                self.tightened(
                    &here,
                    "required-added",
                    format!("required property `{name}` added"),
                );
            }
        }
        for name in old_req.difference(&new_req) {
            let here = format!("{ptr}/required");
            let removed = old_props.contains_key(name) && !new_props.contains_key(name);
            if !(removed && self.side == Side::Output) {
                self.loosened(
                    &here,
                    "property-made-optional",
                    format!("property `{name}` is no longer required"),
                );
            }
        }
    }

    pub(super) fn closure(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        kw: &str,
        rule: &str,
        depth: usize,
    ) {
        let t = Value::Bool(true);
        let (old, new) = (o.get(kw).unwrap_or(&t), n.get(kw).unwrap_or(&t));
        if old == new && !self.reaches_changed_def(Some(old)) {
            return;
        }
        let here = format!("{ptr}/{kw}");
        match (old, new) {
            (Value::Bool(false), _) => self.loosened(
                &here,
                &format!("{rule}-opened"),
                format!("undeclared properties now allowed ({kw})"),
            ),
            (_, Value::Bool(false)) => self.tightened(
                &here,
                &format!("{rule}-closed"),
                format!("undeclared properties now refused ({kw})"),
            ),
            (a, b) => self.node(a, b, &here, depth),
        }
    }

    pub(super) fn default(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, ptr: &str) {
        let here = format!("{ptr}/default");
        match (o.get("default"), n.get("default")) {
            (Some(a), Some(b)) if a != b => {
                let message = format!("default {a} became {b}");
                match self.side {
                    // A caller that leaves the argument out gets another value: the schema
                    // cannot say whether that is compatible.
                    Side::Input => self.push(&here, "default-changed", Class::Unknown, message),
                    Side::Output => self.push(&here, "default-changed", Class::Info, message),
                }
            }
            (None, Some(b)) => self.push(
                &here,
                "default-added",
                Class::Info,
                format!("default {b} added"),
            ),
            (Some(a), None) => self.push(
                &here,
                "default-removed",
                Class::Info,
                format!("default {a} removed"),
            ),
            _ => {}
        }
    }

    pub(super) fn rest(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, ptr: &str) {
        let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
        for key in keys {
            let k = key.as_str();
            if COMPARED.contains(&k) {
                continue;
            }
            let here = format!("{ptr}/{}", escape(k));
            if o.get(k) == n.get(k) {
                // The same text may still mean another schema: a `$ref` under `anyOf`, `not`,
                // `if`/`then`/`else` or `patternProperties` reads a definition that changed.
                if self.reaches_changed_def(o.get(k)) {
                    let rule = if COMPOSITION.contains(&k) {
                        "composition-changed"
                    } else {
                        "keyword-changed"
                    };
                    let message =
                        format!("`{k}` refers to a definition that changed; not proven either way");
                    self.push(&here, rule, Class::Unknown, message);
                }
                continue;
            }
            if ANNOTATIONS.contains(&k) {
                self.push(
                    &here,
                    "annotation-changed",
                    Class::Info,
                    format!("`{k}` changed"),
                );
            } else if COMPOSITION.contains(&k) {
                self.push(
                    &here,
                    "composition-changed",
                    Class::Unknown,
                    format!("`{k}` changed; not proven either way (a union or a reference)"),
                );
            } else {
                self.push(
                    &here,
                    "keyword-changed",
                    Class::Unknown,
                    format!("`{k}` changed; not proven either way (this keyword is not compared)"),
                );
            }
        }
    }
}

/// The names `required` lists.
pub(crate) fn required(m: &Map<String, Value>) -> BTreeSet<String> {
    m.get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The schema an undeclared property meets (`additionalProperties`, `true` when absent).
pub(crate) fn extra(m: &Map<String, Value>) -> Value {
    match m.get("additionalProperties") {
        None => Value::Bool(true),
        Some(v) if is_true_schema(v) => Value::Bool(true),
        Some(v) => v.clone(),
    }
}

/// A JSON Pointer token: `~` as `~0`, `/` as `~1`.
pub(crate) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
