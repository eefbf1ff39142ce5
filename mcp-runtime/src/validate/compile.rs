//! Schema → node arena: every keyword this validator understands, compiled once. Bounds are
//! parsed into numbers, patterns compiled and the fixed parts of messages rendered up front.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::Value;

use super::Validator;
use super::formats::{self, Format, Formats, StrCheck};
use super::node::{Additional, Alternatives, Bound, Node, NodeId, Rules, Types};
use super::numbers::Num;
use super::pattern::Pattern;
use super::report::choices_message;

/// Keywords that only annotate. Anything neither here nor understood below is refused, so that a
/// schema never publishes a rule the validator would silently skip.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$vocabulary",
    "$defs",
    "definitions",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "nullable",
];

/// The state of one compilation: the schema `$ref`s resolve against, the arena, and the node
/// of every `$ref` target compiled so far (by decoded JSON Pointer).
pub(super) struct Compiler<'s> {
    pub(super) root: &'s Value,
    pub(super) nodes: Vec<Node>,
    pub(super) refs: HashMap<String, NodeId>,
    formats: &'s Formats,
    /// Each format neither JSON Schema's nor registered: its name and where.
    unchecked: Vec<UncheckedFormat>,
}

/// A `format` the validator does not check: neither one of JSON Schema 2020-12's nor registered
/// in the [`Formats`] the schema was compiled with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UncheckedFormat {
    /// The format's name.
    pub name: String,
    /// Where it is, as a JSON Pointer into the schema (`#/properties/code`).
    pub at: String,
}

impl Validator {
    /// Compiles a schema (patterns included) once.
    ///
    /// Fails on an invalid keyword value, a pattern that is not ECMA-262, a `$ref` that does not
    /// resolve inside the schema, a `$ref` loop that never descends into the value, and keywords
    /// this validator does not implement (`$dynamicRef`, `$recursiveRef`, …).
    pub fn compile(schema: &Value) -> Result<Self, String> {
        Validator::compile_with(schema, &Formats::default())
    }

    /// [`Validator::compile`], checking the user-defined formats of `formats` too. A format
    /// nobody checks is an annotation here; [`Validator::unchecked_formats`] lists them, for the
    /// caller to refuse ([`Formats::unchecked_allowed`]).
    pub fn compile_with(schema: &Value, formats: &Formats) -> Result<Self, String> {
        let mut c = Compiler {
            root: schema,
            nodes: Vec::new(),
            refs: HashMap::new(),
            formats,
            unchecked: Vec::new(),
        };
        // Node 0 is the root, so `#` resolves to it.
        c.nodes.push(Node::Any);
        c.refs.insert(String::new(), 0);
        let node = c.compile(schema, "#")?;
        c.nodes[0] = node;
        let mut v = Validator {
            nodes: c.nodes,
            decode: None,
            unchecked_formats: c.unchecked,
        };
        v.check_ref_loops()?;
        v.name_unevaluated();
        v.find_untagged_recursion();
        Ok(v)
    }
}

/// An array of strings (`required`, the values of `dependentRequired`); `None` for anything else.
fn string_list(v: &Value) -> Option<Vec<Box<str>>> {
    v.as_array()?
        .iter()
        .map(|n| n.as_str().map(Box::from))
        .collect()
}

fn as_count(v: &Value, key: &str, at: &str) -> Result<u64, String> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
                    .map(|f| f as u64)
            })
            .ok_or_else(|| format!("{at}: `{key}` must be a non-negative integer")),
        _ => Err(format!("{at}: `{key}` must be a non-negative integer")),
    }
}

fn as_bound(v: &Value, key: &str, at: &str) -> Result<Bound, String> {
    match v {
        Value::Number(n) => Ok(Bound {
            value: Num::of(n),
            text: n.to_string().into(),
        }),
        _ => Err(format!("{at}: `{key}` must be a number")),
    }
}

/// True when a schema is exactly `{"type": "null"}` (annotations aside).
fn is_null_schema(v: &Value) -> bool {
    let Value::Object(o) = v else { return false };
    let mut only_type = o
        .keys()
        .all(|k| k == "type" || ANNOTATIONS.contains(&k.as_str()));
    only_type &= match o.get("type") {
        Some(Value::String(s)) => s == "null",
        Some(Value::Array(a)) => a.len() == 1 && a[0] == "null",
        _ => false,
    };
    only_type
}

/// The values a branch admits when it is only a `const` or an `enum` (annotations aside).
fn branch_choices(v: &Value) -> Option<Vec<&Value>> {
    let Value::Object(o) = v else { return None };
    if !o
        .keys()
        .all(|k| k == "const" || k == "enum" || k == "type" || ANNOTATIONS.contains(&k.as_str()))
    {
        return None;
    }
    match (o.get("const"), o.get("enum")) {
        (Some(c), None) => Some(vec![c]),
        (None, Some(Value::Array(e))) => Some(e.iter().collect()),
        _ => None,
    }
}

impl<'s> Compiler<'s> {
    /// The checks of an `anyOf` whose branches are each a string `format` and nothing else,
    /// and their names.
    fn formats_only<'v>(&self, v: &'v Value) -> Option<(Vec<StrCheck>, Vec<&'v str>)> {
        let branches = v.as_array()?;
        let mut checks = Vec::new();
        let mut names = Vec::new();
        for b in branches {
            let o = b.as_object()?;
            let name = match (o.len(), o.get("format")) {
                (1, Some(Value::String(name))) => name.as_str(),
                _ => return None,
            };
            checks.push(self.str_check(name)?);
            names.push(name);
        }
        (checks.len() > 1).then_some((checks, names))
    }

    /// How the string format `name` is checked: the server's own check, else the standard one.
    fn str_check(&self, name: &str) -> Option<StrCheck> {
        match (self.formats.get(name), formats::parse(name)) {
            (Some(check), _) => Some(StrCheck::Custom(check.clone())),
            (None, Some(Format::Str(f))) => Some(StrCheck::Std(f)),
            _ => None,
        }
    }

    pub(super) fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        (self.nodes.len() - 1) as NodeId
    }

    fn subschema(&mut self, v: &'s Value, at: &str) -> Result<NodeId, String> {
        let node = self.compile(v, at)?;
        Ok(self.push(node))
    }

    fn subschemas(&mut self, v: &'s Value, key: &str, at: &str) -> Result<Vec<NodeId>, String> {
        match v {
            Value::Array(items) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, s)| self.subschema(s, &format!("{at}/{key}/{i}")))
                .collect(),
            _ => Err(format!(
                "{at}: `{key}` must be a non-empty array of schemas"
            )),
        }
    }

    /// What `additionalProperties` or `unevaluatedProperties` (`key`) allows of the other keys.
    fn additional(&mut self, key: &str, v: &'s Value, at: &str) -> Result<Additional, String> {
        Ok(match v {
            Value::Bool(true) => Additional::Allowed,
            Value::Bool(false) => Additional::Forbidden { allowed: "".into() },
            s => Additional::Schema(self.subschema(s, &format!("{at}/{key}"))?),
        })
    }

    /// An object of schemas by name (`properties`, `dependentSchemas`), in the order written.
    fn named_subschemas(
        &mut self,
        v: &'s Value,
        key: &str,
        at: &str,
    ) -> Result<Vec<(Box<str>, NodeId)>, String> {
        let Value::Object(named) = v else {
            return Err(format!("{at}: `{key}` must be an object"));
        };
        named
            .iter()
            .map(|(name, s)| {
                Ok((
                    name.as_str().into(),
                    self.subschema(s, &format!("{at}/{key}/{name}"))?,
                ))
            })
            .collect()
    }

    pub(super) fn compile(&mut self, schema: &'s Value, at: &str) -> Result<Node, String> {
        let obj = match schema {
            Value::Bool(true) => return Ok(Node::Any),
            Value::Bool(false) => return Ok(Node::Never),
            Value::Object(obj) => obj,
            _ => return Err(format!("{at}: a schema must be an object or a boolean")),
        };
        let mut r = Rules::default();
        for (key, v) in obj {
            let key = key.as_str();
            match key {
                "type" => {
                    let mut mask = 0u8;
                    let mut add = |name: &Value| -> Result<(), String> {
                        let bit = name
                            .as_str()
                            .and_then(Types::parse)
                            .ok_or_else(|| format!("{at}: unknown type {name}"))?;
                        mask |= bit;
                        Ok(())
                    };
                    match v {
                        Value::Array(names) => names.iter().try_for_each(&mut add)?,
                        other => add(other)?,
                    }
                    let types = Types(mask);
                    r.types = Some((types, format!("must be {}", types.describe()).into()));
                }
                "enum" => {
                    let Value::Array(values) = v else {
                        return Err(format!("{at}: `enum` must be an array"));
                    };
                    r.enumeration = Some((values.clone(), choices_message(values).into()));
                }
                "const" => r.constant = Some((v.clone(), choices_message([v]).into())),
                "minimum" => r.minimum = Some(as_bound(v, key, at)?),
                "maximum" => r.maximum = Some(as_bound(v, key, at)?),
                "exclusiveMinimum" => r.exclusive_minimum = Some(as_bound(v, key, at)?),
                "exclusiveMaximum" => r.exclusive_maximum = Some(as_bound(v, key, at)?),
                "multipleOf" => {
                    let b = as_bound(v, key, at)?;
                    if b.value.cmp(Num::U(0)) != Ordering::Greater {
                        return Err(format!("{at}: `multipleOf` must be greater than 0"));
                    }
                    r.multiple_of = Some(b);
                }
                "minLength" => r.min_length = Some(as_count(v, key, at)?),
                "maxLength" => r.max_length = Some(as_count(v, key, at)?),
                "pattern" => {
                    let source = v
                        .as_str()
                        .ok_or_else(|| format!("{at}: `pattern` must be a string"))?;
                    r.pattern = Some(Pattern::compile(source, at)?);
                }
                "items" => {
                    if v.is_array() {
                        return Err(format!(
                            "{at}: `items` must be a schema (2020-12 spells tuples `prefixItems`)"
                        ));
                    }
                    r.items = Some(self.subschema(v, &format!("{at}/items"))?);
                }
                "prefixItems" => r.prefix_items = self.subschemas(v, key, at)?,
                "minItems" => r.min_items = Some(as_count(v, key, at)?),
                "maxItems" => r.max_items = Some(as_count(v, key, at)?),
                "uniqueItems" => {
                    r.unique_items = v
                        .as_bool()
                        .ok_or_else(|| format!("{at}: `uniqueItems` must be a boolean"))?
                }
                "contains" => r.contains = Some(self.subschema(v, &format!("{at}/contains"))?),
                "minContains" => r.min_contains = Some(as_count(v, key, at)?),
                "maxContains" => r.max_contains = Some(as_count(v, key, at)?),
                "properties" => r.properties = self.named_subschemas(v, key, at)?,
                "required" => {
                    r.required = string_list(v)
                        .ok_or_else(|| format!("{at}: `required` must be an array of strings"))?;
                }
                "patternProperties" => {
                    let Value::Object(pats) = v else {
                        return Err(format!("{at}: `patternProperties` must be an object"));
                    };
                    for (source, s) in pats {
                        let p = Pattern::compile(source, at)?;
                        let id = self.subschema(s, &format!("{at}/patternProperties/{source}"))?;
                        r.pattern_properties.push((p, id));
                    }
                }
                "additionalProperties" => r.additional = Some(self.additional(key, v, at)?),
                "unevaluatedProperties" => {
                    r.unevaluated_properties = Some(self.additional(key, v, at)?)
                }
                "unevaluatedItems" => {
                    r.unevaluated_items =
                        Some(self.subschema(v, &format!("{at}/unevaluatedItems"))?)
                }
                "propertyNames" => {
                    r.property_names = Some(self.subschema(v, &format!("{at}/propertyNames"))?)
                }
                "minProperties" => r.min_properties = Some(as_count(v, key, at)?),
                "maxProperties" => r.max_properties = Some(as_count(v, key, at)?),
                "dependentRequired" => {
                    let Value::Object(deps) = v else {
                        return Err(format!("{at}: `dependentRequired` must be an object"));
                    };
                    for (name, needs) in deps {
                        let needs = string_list(needs).ok_or_else(|| {
                            format!("{at}: `dependentRequired` values must be arrays of strings")
                        })?;
                        r.dependent_required.push((name.as_str().into(), needs));
                    }
                }
                "dependentSchemas" => r.dependent_schemas = self.named_subschemas(v, key, at)?,
                "$ref" => {
                    let target = v
                        .as_str()
                        .ok_or_else(|| format!("{at}: `$ref` must be a string"))?;
                    r.reference = Some(self.resolve(target, at)?);
                }
                "allOf" => r.all_of = self.subschemas(v, key, at)?,
                "anyOf" if !obj.contains_key("format") && self.formats_only(v).is_some() => {
                    // `{"anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}` (how `IpAddr` is
                    // published): one check, named `ipv4 or ipv6` in its message.
                    let (checks, names) = self.formats_only(v).expect("checked");
                    r.str_format = Some((StrCheck::Any(checks), names.join(" or ").into()));
                }
                "anyOf" | "oneOf" => {
                    let branches = self.subschemas(v, key, at)?;
                    let raw = v.as_array().expect("checked by subschemas");
                    let non_null = match raw.as_slice() {
                        [_, b] if key == "anyOf" && is_null_schema(b) => Some(branches[0]),
                        [a, _] if key == "anyOf" && is_null_schema(a) => Some(branches[1]),
                        _ => None,
                    };
                    let choices: Option<Vec<&Value>> =
                        raw.iter()
                            .map(branch_choices)
                            .try_fold(Vec::new(), |mut all, one| {
                                all.extend(one?);
                                Some(all)
                            });
                    let alt = Alternatives {
                        branches,
                        non_null,
                        choices: choices.map(|c| choices_message(c).into()),
                    };
                    if key == "anyOf" {
                        r.any_of = Some(alt);
                    } else {
                        r.one_of = Some(alt);
                    }
                }
                "not" => r.not = Some(self.subschema(v, &format!("{at}/not"))?),
                "if" => {
                    let i = self.subschema(v, &format!("{at}/if"))?;
                    let t = match obj.get("then") {
                        Some(s) => Some(self.subschema(s, &format!("{at}/then"))?),
                        None => None,
                    };
                    let e = match obj.get("else") {
                        Some(s) => Some(self.subschema(s, &format!("{at}/else"))?),
                        None => None,
                    };
                    r.if_then_else = Some((i, t, e));
                }
                // Without `if` these do nothing (2020-12 §10.2.2).
                "then" | "else" => {}
                "format" => {
                    let Some(name) = v.as_str() else {
                        return Err(format!("{at}: `format` must be a string"));
                    };
                    match (self.formats.get(name), formats::parse(name)) {
                        (Some(check), _) => {
                            r.str_format = Some((StrCheck::Custom(check.clone()), name.into()))
                        }
                        (None, Some(Format::Str(f))) => {
                            r.str_format = Some((StrCheck::Std(f), name.into()))
                        }
                        (None, Some(Format::Int(f))) => r.int_format = Some(f),
                        (None, None) => self.unchecked.push(UncheckedFormat {
                            name: name.into(),
                            at: at.into(),
                        }),
                    }
                }
                k if ANNOTATIONS.contains(&k) => {}
                k if k.starts_with("x-") => {}
                other => {
                    return Err(format!(
                        "{at}: the keyword `{other}` is not supported by this validator"
                    ));
                }
            }
        }
        if let Some(Additional::Forbidden { allowed }) = &mut r.additional {
            // The names listed, then the patterns (a map with integer keys has only a pattern).
            let names = r.properties.iter().map(|(n, _)| n.to_string());
            let patterns =
                (r.pattern_properties.iter()).map(|(p, _)| format!("names matching {}", p.source));
            let all: Vec<String> = names.chain(patterns).collect();
            *allowed = if all.is_empty() {
                "none".into()
            } else {
                all.join(", ").into()
            };
        }
        if r.properties.len() > 8 {
            r.property_index = Some(
                r.properties
                    .iter()
                    .enumerate()
                    .map(|(i, (n, _))| (n.clone(), i))
                    .collect(),
            );
        }
        let is_empty = r.types.is_none()
            && r.enumeration.is_none()
            && r.constant.is_none()
            && r.minimum.is_none()
            && r.maximum.is_none()
            && r.exclusive_minimum.is_none()
            && r.exclusive_maximum.is_none()
            && r.multiple_of.is_none()
            && r.min_length.is_none()
            && r.max_length.is_none()
            && r.pattern.is_none()
            && r.str_format.is_none()
            && r.int_format.is_none()
            && r.prefix_items.is_empty()
            && r.items.is_none()
            && r.min_items.is_none()
            && r.max_items.is_none()
            && !r.unique_items
            && r.contains.is_none()
            && !r.has_object_rules()
            && r.reference.is_none()
            && r.all_of.is_empty()
            && r.any_of.is_none()
            && r.one_of.is_none()
            && r.not.is_none()
            && r.if_then_else.is_none()
            && r.unevaluated_properties.is_none()
            && r.unevaluated_items.is_none();
        Ok(if is_empty {
            Node::Any
        } else {
            Node::Rules(Box::new(r))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::{refused, table};
    use serde_json::json;

    #[test]
    fn compile_errors() {
        refused([
            (json!({"pattern": "("}), "invalid pattern"),
            (json!({"pattern": "(?<x"}), "invalid pattern"),
            (json!({"type": "text"}), "unknown type"),
            (json!({"minLength": -1}), "non-negative integer"),
            (json!({"maximum": "9"}), "must be a number"),
            (json!({"multipleOf": 0}), "greater than 0"),
            (json!({"items": [{}]}), "prefixItems"),
            (json!({"unevaluatedProperties": 1}), "object or a boolean"),
            (json!({"$dynamicRef": "#meta"}), "not supported"),
            (json!(5), "object or a boolean"),
            // `$ref` (refs.rs)
            (json!({"$ref": "#/$defs/Missing"}), "does not resolve"),
            (json!({"$ref": "other.json"}), "does not point inside"),
            (json!({"$ref": "#anchor"}), "not a JSON Pointer"),
            (
                json!({"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}),
                "cycle",
            ),
            (json!({"allOf": [{"$ref": "#"}]}), "cycle"),
        ]);
    }

    #[test]
    fn annotations_are_ignored() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &[&str])> = vec![
            (json!({"title": "T", "description": "D", "default": 1, "format": "sku", "examples": [1], "$comment": "c"}), json!("not an email"), &[]),
        ];
        table(rows);
        let v = Validator::compile(&json!({"title": "T", "x-origin": 1, "then": {}})).unwrap();
        assert!(matches!(v.nodes[..], [Node::Any]));
    }

    #[test]
    fn many_properties_are_indexed() {
        let names: Vec<String> = (0..9).map(|i| format!("p{i}")).collect();
        let props: serde_json::Map<String, Value> =
            names.iter().map(|n| (n.clone(), json!({}))).collect();
        let v = Validator::compile(&json!({"properties": props})).unwrap();
        let Node::Rules(r) = &v.nodes[0] else {
            panic!("properties compile to rules")
        };
        assert!(r.property_index.is_some());
        assert_eq!(r.property("p8"), Some(8));
        assert_eq!(r.property("p9"), None);
    }
}
