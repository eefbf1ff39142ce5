//! The runtime half of validation: the published inputSchema compiled once into a validator that
//! reports every violation with its JSON Pointer, the rule and the bound.
//!
//! [`Validator::compile`] turns the schema into a flat arena of nodes: patterns are compiled with
//! `regress` (ECMA-262, as JSON Schema requires), `$ref`s become node indices, bounds are parsed
//! into numbers and the fixed parts of messages are rendered up front. [`Validator::validate`]
//! walks the arguments against that arena only; the valid path allocates nothing.
//!
//! Messages are meant for the model that made the call: each names the rule and its bound, and
//! says what was received without echoing long values. Their wording is stable:
//!
//! | rule | message |
//! | --- | --- |
//! | `type` | `must be an integer (got string)`, `must be a string or null (got number)` |
//! | `enum`, `const` | `must be one of "low", "normal", "high" (got "urgent")`, `must be "a" (got "b")` |
//! | `minimum` … | `must be >= 0 (got -1)`, `must be <= 9`, `must be > 0`, `must be < 1` |
//! | `multipleOf` | `must be a multiple of 5 (got 7)` |
//! | `minLength` | `must be at least 3 characters (got 2)` (code points) |
//! | `pattern` | `must match the pattern ^T-\d+$` |
//! | `minItems`, `uniqueItems` | `must have at least 1 item (got 0)`, `must not contain duplicate items` |
//! | `required` | `missing required argument "title"` at `/`, `missing required property "zip"` below |
//! | `additionalProperties: false` | `unknown argument "colour" (allowed: title, priority)` |
//! | `anyOf`, `oneOf` | `must match at least one of the allowed shapes`, `must match exactly one of the allowed shapes (matched 2)` |
//! | depth | `nesting deeper than 128 levels` |
//!
//! An `anyOf` of one schema and `{"type": "null"}` (how optional arguments are published) reports
//! the errors of the non-null schema, the way pydantic does.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

/// How deep into the arguments validation descends before it gives up with a violation.
pub const MAX_DEPTH: usize = 128;

/// Strings longer than this many characters are cut (with `…`) when quoted in a message.
const QUOTE_LIMIT: usize = 40;

/// One violation: where, and what rule was broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer to the offending value (`/title`); empty for the root.
    pub path: String,
    /// The rule and the bound, e.g. `must be at least 3 characters (got 2)`.
    pub message: String,
}

/// A compiled inputSchema.
#[derive(Debug)]
pub struct Validator {
    nodes: Vec<Node>,
}

/// The model-readable text for a rejected call.
pub fn format_violations(tool: &str, violations: &[Violation]) -> String {
    let mut text = format!("Invalid arguments for tool {tool}: ");
    for (i, v) in violations.iter().enumerate() {
        if i > 0 {
            text.push_str("; ");
        }
        text.push_str(if v.path.is_empty() { "/" } else { &v.path });
        text.push_str(": ");
        text.push_str(&v.message);
    }
    text
}

// ---- the compiled form ---------------------------------------------------------------------------

type NodeId = u32;

/// One compiled schema.
#[derive(Debug)]
enum Node {
    /// `true`, `{}`, or a schema of annotations only.
    Any,
    /// `false`.
    Never,
    /// A schema with at least one assertion or applicator.
    Rules(Box<Rules>),
}

/// The JSON types a `type` keyword admits, as a bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Types(u8);

impl Types {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 2;
    const OBJECT: u8 = 4;
    const ARRAY: u8 = 8;
    const NUMBER: u8 = 16;
    const STRING: u8 = 32;
    const INTEGER: u8 = 64;

    fn parse(name: &str) -> Option<u8> {
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
    fn describe(self) -> String {
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
#[derive(Debug)]
struct Bound {
    value: Num,
    text: Box<str>,
}

/// What `additionalProperties` says about keys that `properties` and `patternProperties` don't name.
#[derive(Debug)]
enum Additional {
    /// Absent or `true`.
    Allowed,
    /// `false`; carries the allowed names as listed in the message.
    Forbidden { allowed: Box<str> },
    /// A schema every other value must match.
    Schema(NodeId),
}

#[derive(Debug)]
struct Pattern {
    regex: regress::Regex,
    source: Box<str>,
}

/// `anyOf` / `oneOf`.
#[derive(Debug)]
struct Alternatives {
    branches: Vec<NodeId>,
    /// For `anyOf: [T, {"type": "null"}]`: `T`, whose errors are reported for non-null values.
    non_null: Option<NodeId>,
    /// When every branch is a `const` or `enum`: `must be one of …`, used instead of the
    /// generic message.
    choices: Option<Box<str>>,
}

#[derive(Debug, Default)]
struct Rules {
    types: Option<(Types, Box<str>)>,
    /// `enum` values and the message prefix `must be one of …`.
    enumeration: Option<(Vec<Value>, Box<str>)>,
    constant: Option<(Value, Box<str>)>,

    minimum: Option<Bound>,
    maximum: Option<Bound>,
    exclusive_minimum: Option<Bound>,
    exclusive_maximum: Option<Bound>,
    multiple_of: Option<Bound>,

    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<Pattern>,

    prefix_items: Vec<NodeId>,
    items: Option<NodeId>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique_items: bool,
    contains: Option<NodeId>,
    min_contains: Option<u64>,
    max_contains: Option<u64>,

    properties: Vec<(Box<str>, NodeId)>,
    /// Name → index into `properties`, built when there are many.
    property_index: Option<HashMap<Box<str>, usize>>,
    required: Vec<Box<str>>,
    pattern_properties: Vec<(Pattern, NodeId)>,
    additional: Option<Additional>,
    property_names: Option<NodeId>,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    dependent_required: Vec<(Box<str>, Vec<Box<str>>)>,
    dependent_schemas: Vec<(Box<str>, NodeId)>,

    reference: Option<NodeId>,
    all_of: Vec<NodeId>,
    any_of: Option<Alternatives>,
    one_of: Option<Alternatives>,
    not: Option<NodeId>,
    if_then_else: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,
}

impl Rules {
    fn property(&self, name: &str) -> Option<usize> {
        match &self.property_index {
            Some(index) => index.get(name).copied(),
            None => self.properties.iter().position(|(n, _)| &**n == name),
        }
    }

    fn has_object_rules(&self) -> bool {
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

// ---- compiling ------------------------------------------------------------------------------------

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

struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    refs: HashMap<String, NodeId>,
}

impl Validator {
    /// Compiles a schema (patterns included) once.
    ///
    /// Fails on an invalid keyword value, a pattern that is not ECMA-262, a `$ref` that does not
    /// resolve inside the schema, a `$ref` loop that never descends into the value, and keywords
    /// this validator does not implement (`unevaluatedProperties`, `$dynamicRef`, …).
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let mut c = Compiler {
            root: schema,
            nodes: Vec::new(),
            refs: HashMap::new(),
        };
        // Node 0 is the root, so `#` resolves to it.
        c.nodes.push(Node::Any);
        c.refs.insert(String::new(), 0);
        let node = c.compile(schema, "#")?;
        c.nodes[0] = node;
        let v = Validator { nodes: c.nodes };
        v.check_ref_loops()?;
        Ok(v)
    }

    /// A `$ref` (or `allOf`, `anyOf`, …) cycle that returns to a node without moving into the
    /// value would never terminate; refuse it at compile time.
    fn check_ref_loops(&self) -> Result<(), String> {
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; self.nodes.len()];
        fn visit(v: &Validator, id: NodeId, state: &mut [u8]) -> Result<(), String> {
            match state[id as usize] {
                1 => return Err("a `$ref` cycle never descends into the value".into()),
                2 => return Ok(()),
                _ => {}
            }
            state[id as usize] = 1;
            if let Node::Rules(r) = &v.nodes[id as usize] {
                let mut next: Vec<NodeId> = r.all_of.clone();
                next.extend(r.reference);
                next.extend(r.not);
                for alt in [&r.any_of, &r.one_of].into_iter().flatten() {
                    next.extend(&alt.branches);
                }
                if let Some((i, t, e)) = r.if_then_else {
                    next.push(i);
                    next.extend(t);
                    next.extend(e);
                }
                next.extend(r.dependent_schemas.iter().map(|(_, n)| *n));
                for n in next {
                    visit(v, n, state)?;
                }
            }
            state[id as usize] = 2;
            Ok(())
        }
        for id in 0..self.nodes.len() as NodeId {
            visit(self, id, &mut state)?;
        }
        Ok(())
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

fn compile_pattern(source: &str, at: &str) -> Result<Pattern, String> {
    let regex = regress::Regex::with_flags(source, "u")
        .map_err(|e| format!("{at}: invalid pattern {source:?}: {e}"))?;
    Ok(Pattern {
        regex,
        source: source.into(),
    })
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

fn choices_message<'a>(values: impl IntoIterator<Item = &'a Value>) -> String {
    let values: Vec<&Value> = values.into_iter().collect();
    let mut m = String::from("must be ");
    if values.len() != 1 {
        m.push_str("one of ");
    }
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            m.push_str(", ");
        }
        quote_into(&mut m, v);
    }
    m
}

fn percent_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent-encoding in `$ref` {s:?}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("bad percent-encoding in `$ref` {s:?}"))
}

impl<'s> Compiler<'s> {
    fn push(&mut self, node: Node) -> NodeId {
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

    fn resolve(&mut self, reference: &str, at: &str) -> Result<NodeId, String> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(format!(
                "{at}: `$ref` {reference:?} does not point inside this schema"
            ));
        };
        let pointer = percent_decode(fragment)?;
        if let Some(&id) = self.refs.get(&pointer) {
            return Ok(id);
        }
        if !pointer.starts_with('/') {
            return Err(format!(
                "{at}: `$ref` {reference:?} is not a JSON Pointer (anchors are not supported)"
            ));
        }
        let target = self
            .root
            .pointer(&pointer)
            .ok_or_else(|| format!("{at}: `$ref` {reference:?} does not resolve"))?;
        // Reserve the slot first: the target may refer back to itself.
        let id = self.push(Node::Any);
        self.refs.insert(pointer, id);
        let node = self.compile(target, &format!("#{fragment}"))?;
        self.nodes[id as usize] = node;
        Ok(id)
    }

    fn compile(&mut self, schema: &'s Value, at: &str) -> Result<Node, String> {
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
                    r.pattern = Some(compile_pattern(source, at)?);
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
                        let p = compile_pattern(source, at)?;
                        let id = self.subschema(s, &format!("{at}/patternProperties/{source}"))?;
                        r.pattern_properties.push((p, id));
                    }
                }
                "additionalProperties" => {
                    r.additional = Some(match v {
                        Value::Bool(true) => Additional::Allowed,
                        Value::Bool(false) => Additional::Forbidden { allowed: "".into() },
                        s => Additional::Schema(
                            self.subschema(s, &format!("{at}/additionalProperties"))?,
                        ),
                    })
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
            let names: Vec<&str> = r.properties.iter().map(|(n, _)| &**n).collect();
            *allowed = names.join(", ").into();
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
            && r.if_then_else.is_none();
        Ok(if is_empty {
            Node::Any
        } else {
            Node::Rules(Box::new(r))
        })
    }
}

// ---- numbers --------------------------------------------------------------------------------------

/// A JSON number compared exactly, whatever its representation.
#[derive(Debug, Clone, Copy)]
enum Num {
    /// Non-negative integers.
    U(u64),
    /// Negative integers.
    I(i64),
    /// Everything serde_json keeps as a float.
    F(f64),
}

impl Num {
    fn of(n: &Number) -> Num {
        if let Some(u) = n.as_u64() {
            Num::U(u)
        } else if let Some(i) = n.as_i64() {
            Num::I(i)
        } else {
            Num::F(n.as_f64().unwrap_or(f64::NAN))
        }
    }

    fn int(self) -> Option<i128> {
        match self {
            Num::U(u) => Some(u as i128),
            Num::I(i) => Some(i as i128),
            Num::F(_) => None,
        }
    }

    fn cmp(self, other: Num) -> Ordering {
        match (self.int(), other.int(), self, other) {
            (Some(a), Some(b), _, _) => a.cmp(&b),
            (Some(a), None, _, Num::F(b)) => cmp_int_float(a, b),
            (None, Some(b), Num::F(a), _) => cmp_int_float(b, a).reverse(),
            (_, _, Num::F(a), Num::F(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            _ => unreachable!("every Num is an integer or a float"),
        }
    }

    fn is_multiple_of(self, m: Num) -> bool {
        match (self.int(), m.int()) {
            (Some(a), Some(b)) => a % b == 0,
            _ => {
                let (a, b) = (self.as_f64(), m.as_f64());
                if m.int().is_some() || b.fract() == 0.0 {
                    // fmod is exact in binary floating point.
                    a % b == 0.0
                } else {
                    let q = a / b;
                    q.is_finite() && q.fract() == 0.0
                }
            }
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Num::U(u) => u as f64,
            Num::I(i) => i as f64,
            Num::F(f) => f,
        }
    }
}

/// Compares an integer in `[-2^63, 2^64)` with a finite float, exactly.
fn cmp_int_float(a: i128, b: f64) -> Ordering {
    if b.is_nan() {
        return Ordering::Equal;
    }
    if b >= 18_446_744_073_709_551_616.0 {
        return Ordering::Less;
    }
    if b < -9_223_372_036_854_775_808.0 {
        return Ordering::Greater;
    }
    let floor = b.floor();
    match a.cmp(&(floor as i128)) {
        Ordering::Equal if b > floor => Ordering::Less,
        o => o,
    }
}

/// An integral float as an integer Number, when it fits one.
fn integral(f: f64) -> Option<Number> {
    if f.fract() != 0.0 || !f.is_finite() {
        return None;
    }
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Some(Number::from(f as i64))
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(Number::from(f as u64))
    } else {
        None
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

// ---- equality and messages ------------------------------------------------------------------------

/// JSON Schema equality: numbers by value (`1 == 1.0`), objects regardless of key order.
/// Iterative, so deep values cannot overflow the stack.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => Num::of(x).cmp(Num::of(y)) == Ordering::Equal,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_)) => {
            let mut stack = vec![(a, b)];
            while let Some((a, b)) = stack.pop() {
                match (a, b) {
                    (Value::Array(x), Value::Array(y)) => {
                        if x.len() != y.len() {
                            return false;
                        }
                        stack.extend(x.iter().zip(y));
                    }
                    (Value::Object(x), Value::Object(y)) => {
                        if x.len() != y.len() {
                            return false;
                        }
                        for (k, va) in x {
                            match y.get(k) {
                                Some(vb) => stack.push((va, vb)),
                                None => return false,
                            }
                        }
                    }
                    (Value::Array(_) | Value::Object(_), _)
                    | (_, Value::Array(_) | Value::Object(_)) => return false,
                    (a, b) => {
                        if !json_eq(a, b) {
                            return false;
                        }
                    }
                }
            }
            true
        }
        _ => false,
    }
}

/// A hash consistent with [`json_eq`]; only a prefilter, so it stops at a fixed depth.
fn json_hash(v: &Value, depth: usize) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mix = |h: u64, x: u64| (h ^ x).wrapping_mul(K).rotate_left(29);
    match v {
        Value::Null => 1,
        Value::Bool(b) => 2 + *b as u64,
        Value::Number(n) => {
            let x = match Num::of(n) {
                Num::U(u) => u,
                Num::I(i) => i as u64,
                Num::F(f) => match integral(f) {
                    Some(i) => i.as_u64().or(i.as_i64().map(|i| i as u64)).unwrap_or(0),
                    None => f.to_bits(),
                },
            };
            mix(4, x)
        }
        Value::String(s) => s
            .bytes()
            .fold(5, |h, b| h.wrapping_mul(0x100_0000_01B3) ^ b as u64),
        Value::Array(_) | Value::Object(_) if depth == 0 => 6,
        Value::Array(a) => a.iter().fold(7, |h, x| mix(h, json_hash(x, depth - 1))),
        Value::Object(o) => o.iter().fold(8u64, |h, (k, x)| {
            // Order-independent: a sum of per-entry hashes.
            h.wrapping_add(mix(
                json_hash(&Value::String(k.clone()), 0),
                json_hash(x, depth - 1),
            ))
        }),
    }
}

fn has_duplicates(items: &[Value]) -> bool {
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .any(|(i, a)| items[i + 1..].iter().any(|b| json_eq(a, b)));
    }
    let mut hashes: Vec<(u64, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, v)| (json_hash(v, 8), i))
        .collect();
    hashes.sort_unstable();
    hashes.chunk_by(|a, b| a.0 == b.0).any(|group| {
        group.iter().enumerate().any(|(i, a)| {
            group[i + 1..]
                .iter()
                .any(|b| json_eq(&items[a.1], &items[b.1]))
        })
    })
}

/// The JSON type of a value, as `got …` names it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Appends a short rendering of a value: JSON text, cut after [`QUOTE_LIMIT`] characters.
fn quote_into(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => quote_str(out, s),
        Value::Array(_) | Value::Object(_) => {
            let mut w = Limited {
                text: String::new(),
                full: false,
            };
            // Stops serializing once the limit is reached, however large the value.
            let _ = serde_json::to_writer(&mut w, v);
            out.push_str(&w.text);
            if w.full {
                out.push('…');
            }
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

fn quote_str(out: &mut String, s: &str) {
    let cut = s.char_indices().nth(QUOTE_LIMIT).map(|(i, _)| i);
    let shown = &s[..cut.unwrap_or(s.len())];
    let quoted = Value::String(shown.to_owned()).to_string();
    match cut {
        None => out.push_str(&quoted),
        Some(_) => {
            out.push_str(&quoted[..quoted.len() - 1]);
            out.push_str("…\"");
        }
    }
}

struct Limited {
    text: String,
    full: bool,
}

impl std::io::Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = QUOTE_LIMIT.saturating_sub(self.text.chars().count());
        let chunk = String::from_utf8_lossy(buf);
        let taken: String = chunk.chars().take(room).collect();
        if taken.len() < chunk.len() {
            self.text.push_str(&taken);
            self.full = true;
            return Err(std::io::Error::other("limit reached"));
        }
        self.text.push_str(&chunk);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn got(v: &Value) -> String {
    let mut s = String::from(" (got ");
    quote_into(&mut s, v);
    s.push(')');
    s
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

// ---- validating -----------------------------------------------------------------------------------

/// Where the value under check is: a linked list on the stack, turned into a JSON Pointer only
/// when a violation is reported.
#[derive(Clone, Copy)]
struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
    depth: usize,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    const ROOT: Path<'static> = Path {
        parent: None,
        seg: Seg::Root,
        depth: 0,
    };

    fn key(&'a self, key: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Key(key),
            depth: self.depth + 1,
        }
    }

    fn index(&'a self, i: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Index(i),
            depth: self.depth + 1,
        }
    }

    /// "argument" for the keys of the arguments object itself, "property" below it.
    fn noun(&self) -> &'static str {
        if self.depth == 0 {
            "argument"
        } else {
            "property"
        }
    }

    /// RFC 6901: `~` is written `~0` and `/` is written `~1`.
    fn pointer(&self) -> String {
        let mut segs = Vec::with_capacity(self.depth);
        let mut at = Some(self);
        while let Some(p) = at {
            segs.push(p.seg);
            at = p.parent;
        }
        let mut out = String::new();
        for seg in segs.iter().rev() {
            match seg {
                Seg::Root => {}
                Seg::Index(i) => {
                    let _ = write!(out, "/{i}");
                }
                Seg::Key(k) => {
                    out.push('/');
                    for c in k.chars() {
                        match c {
                            '~' => out.push_str("~0"),
                            '/' => out.push_str("~1"),
                            c => out.push(c),
                        }
                    }
                }
            }
        }
        out
    }
}

/// A violation before it is rendered. Keeping the text out of the recursive functions keeps
/// their stack frames small, which is what lets [`MAX_DEPTH`] levels fit on a worker's stack.
enum Msg<'a> {
    Text(&'static str),
    Depth,
    Type(&'a str, &'a Value),
    /// A prefix such as `must be one of "a", "b"`, and the value received.
    Choices(&'a str, &'a Value),
    Bound(&'static str, &'a str, &'a Number),
    MultipleOf(&'a str, &'a Number),
    MinLength(u64, u64),
    MaxLength(u64, u64),
    Pattern(&'a str),
    MinItems(u64, u64),
    MaxItems(u64, u64),
    MinContains(u64, u64),
    MaxContains(u64, u64),
    Missing(&'static str, &'a str),
    Dependent(&'static str, &'a str, &'a str),
    Unknown(&'static str, &'a str, &'a str),
    MinProperties(u64, u64),
    MaxProperties(u64, u64),
    OneOf(usize),
}

#[cold]
#[inline(never)]
fn report(out: &mut Vec<Violation>, path: &Path<'_>, msg: Msg<'_>) {
    let message = match msg {
        Msg::Text(t) => t.to_owned(),
        Msg::Depth => format!("nesting deeper than {MAX_DEPTH} levels"),
        Msg::Type(expected, v) => match v {
            Value::Number(_) if expected.contains("integer") => format!("{expected}{}", got(v)),
            other => format!("{expected} (got {})", kind(other)),
        },
        Msg::Choices(prefix, v) => format!("{prefix}{}", got(v)),
        Msg::Bound(op, bound, n) => format!("must be {op} {bound} (got {n})"),
        Msg::MultipleOf(m, n) => format!("must be a multiple of {m} (got {n})"),
        Msg::MinLength(min, n) => format!(
            "must be at least {} (got {n})",
            plural(min, "character", "characters")
        ),
        Msg::MaxLength(max, n) => format!(
            "must be at most {} (got {n})",
            plural(max, "character", "characters")
        ),
        Msg::Pattern(p) => format!("must match the pattern {p}"),
        Msg::MinItems(min, n) => {
            format!(
                "must have at least {} (got {n})",
                plural(min, "item", "items")
            )
        }
        Msg::MaxItems(max, n) => {
            format!(
                "must have at most {} (got {n})",
                plural(max, "item", "items")
            )
        }
        Msg::MinContains(min, n) => format!(
            "must contain at least {} matching the required shape (got {n})",
            plural(min, "item", "items")
        ),
        Msg::MaxContains(max, n) => format!(
            "must contain at most {} matching the required shape (got {n})",
            plural(max, "item", "items")
        ),
        Msg::Missing(noun, name) => {
            let mut m = format!("missing required {noun} ");
            quote_str(&mut m, name);
            m
        }
        Msg::Dependent(noun, need, name) => {
            let mut m = format!("missing {noun} ");
            quote_str(&mut m, need);
            m.push_str(", required when ");
            quote_str(&mut m, name);
            m.push_str(" is present");
            m
        }
        Msg::Unknown(noun, name, allowed) => {
            let mut m = format!("unknown {noun} ");
            quote_str(&mut m, name);
            let _ = write!(m, " (allowed: {allowed})");
            m
        }
        Msg::MinProperties(min, n) => format!(
            "must have at least {} (got {n})",
            plural(min, "property", "properties")
        ),
        Msg::MaxProperties(max, n) => format!(
            "must have at most {} (got {n})",
            plural(max, "property", "properties")
        ),
        Msg::OneOf(0) => "must match exactly one of the allowed shapes (matched none)".into(),
        Msg::OneOf(_) => {
            "must match exactly one of the allowed shapes (matched more than one)".into()
        }
    };
    out.push(Violation {
        path: path.pointer(),
        message,
    });
}

/// Re-reports the violations of a property name as violations of its object.
#[cold]
#[inline(never)]
fn report_name(out: &mut Vec<Violation>, path: &Path<'_>, key: &str, inner: Vec<Violation>) {
    for v in inner {
        let mut m = format!("{} name ", path.noun());
        quote_str(&mut m, key);
        let _ = write!(m, ": {}", v.message);
        out.push(Violation {
            path: path.pointer(),
            message: m,
        });
    }
}

/// Where violations go: collected, or (when probing an `anyOf` branch) the first one ends the check.
type Out<'o> = Option<&'o mut Vec<Violation>>;

/// Records a violation, or returns `false` when only probing.
macro_rules! fail {
    ($out:expr, $ok:ident, $path:expr, $msg:expr) => {{
        $ok = false;
        match $out.as_deref_mut() {
            Some(out) => report(out, $path, $msg),
            None => return false,
        }
    }};
}

impl Validator {
    /// Checks `args` and returns every violation. Integral floats where an integer is expected are
    /// rewritten in place as integers (2020-12 counts 1042.0 as an integer).
    pub fn validate(&self, args: &mut Value) -> Vec<Violation> {
        let mut out = Vec::new();
        self.check(0, args, &Path::ROOT, Some(&mut out));
        out
    }

    /// True when `args` is valid; stops at the first violation. Rewrites integral floats too.
    pub fn is_valid(&self, args: &mut Value) -> bool {
        self.check(0, args, &Path::ROOT, None)
    }

    fn check(&self, id: NodeId, v: &mut Value, path: &Path<'_>, mut out: Out<'_>) -> bool {
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

        // -- applicators
        if let Some(target) = r.reference {
            ok &= self.check(target, v, path, out.as_deref_mut());
        }
        for &branch in &r.all_of {
            ok &= self.check(branch, v, path, out.as_deref_mut());
        }
        if !ok && out.is_none() {
            return false;
        }
        if let Some(alt) = &r.any_of
            && !alt.branches.iter().any(|&b| self.check(b, v, path, None))
        {
            ok = false;
            let Some(o) = out.as_deref_mut() else {
                return false;
            };
            match (alt.non_null, &alt.choices) {
                (Some(non_null), _) if !v.is_null() => {
                    self.check(non_null, v, path, Some(o));
                }
                (_, Some(choices)) => report(o, path, Msg::Choices(choices, v)),
                (_, None) => report(
                    o,
                    path,
                    Msg::Text("must match at least one of the allowed shapes"),
                ),
            }
        }
        if let Some(alt) = &r.one_of {
            let mut matched = 0;
            for &b in &alt.branches {
                if self.check(b, v, path, None) {
                    matched += 1;
                    if matched > 1 {
                        break;
                    }
                }
            }
            match (matched, &alt.choices) {
                (1, _) => {}
                (0, Some(choices)) => fail!(out, ok, path, Msg::Choices(choices, v)),
                (n, _) => fail!(out, ok, path, Msg::OneOf(n)),
            }
        }
        if let Some(not) = r.not
            && self.check(not, v, path, None)
        {
            fail!(
                out,
                ok,
                path,
                Msg::Text("must not match the disallowed shape")
            );
        }
        if let Some((cond, then, otherwise)) = r.if_then_else {
            let branch = if self.check(cond, v, path, None) {
                then
            } else {
                otherwise
            };
            if let Some(b) = branch {
                ok &= self.check(b, v, path, out);
            }
        }
        ok
    }

    fn check_array(
        &self,
        r: &Rules,
        items: &mut [Value],
        path: &Path<'_>,
        out: &mut Out<'_>,
    ) -> bool {
        let mut ok = true;
        let len = items.len() as u64;
        if let Some(min) = r.min_items
            && len < min
        {
            fail!(out, ok, path, Msg::MinItems(min, len));
        }
        if let Some(max) = r.max_items
            && len > max
        {
            fail!(out, ok, path, Msg::MaxItems(max, len));
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
                if self.check(contains, item, &path.index(i), None) {
                    found += 1;
                }
            }
            let min = r.min_contains.unwrap_or(1);
            if found < min {
                fail!(out, ok, path, Msg::MinContains(min, found));
            }
            if let Some(max) = r.max_contains
                && found > max
            {
                fail!(out, ok, path, Msg::MaxContains(max, found));
            }
        }
        ok
    }

    fn check_object(
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
        if let Some(min) = r.min_properties
            && len < min
        {
            fail!(out, ok, path, Msg::MinProperties(min, len));
        }
        if let Some(max) = r.max_properties
            && len > max
        {
            fail!(out, ok, path, Msg::MaxProperties(max, len));
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
        for (name, schema) in &r.dependent_schemas {
            if map.contains_key(&**name) {
                // The dependent schema applies to the object itself; re-wrap it to check it.
                let mut whole = Value::Object(std::mem::take(map));
                ok &= self.check(*schema, &mut whole, path, out.as_deref_mut());
                if let Value::Object(m) = whole {
                    *map = m;
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
                if p.regex.find(key).is_some() {
                    matched = true;
                    ok &= self.check(*schema, value, &here, out.as_deref_mut());
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
        if let Some(min) = r.min_length
            && chars < min
        {
            fail!(out, ok, path, Msg::MinLength(min, chars));
        }
        if let Some(max) = r.max_length
            && chars > max
        {
            fail!(out, ok, path, Msg::MaxLength(max, chars));
        }
    }
    if let Some(p) = &r.pattern
        && p.regex.find(s).is_none()
    {
        fail!(out, ok, path, Msg::Pattern(&p.source));
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Validates `args` against `schema` and renders the violations as `path: message`.
    fn run(schema: Value, mut args: Value) -> Vec<String> {
        let v = Validator::compile(&schema).expect("schema compiles");
        let strict = v.validate(&mut args);
        assert_eq!(
            v.is_valid(&mut args.clone()),
            strict.is_empty(),
            "is_valid and validate disagree"
        );
        strict
            .into_iter()
            .map(|v| {
                format!(
                    "{}: {}",
                    if v.path.is_empty() { "/" } else { &v.path },
                    v.message
                )
            })
            .collect()
    }

    /// One property `x` with the given schema, at the root of an object schema.
    fn prop(schema: Value) -> Value {
        json!({"type": "object", "properties": {"x": schema}, "additionalProperties": false})
    }

    #[test]
    fn every_keyword_and_message() {
        #[rustfmt::skip]
        let table: Vec<(Value, Value, &[&str])> = vec![
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
            (json!({"pattern": r"^T-\d+$"}), json!("T-12"), &[]),
            (json!({"pattern": r"^T-\d+$"}), json!("T-١"), &[r"/x: must match the pattern ^T-\d+$"]),
            (json!({"pattern": r"^T-\d+$"}), json!("T-1\n"), &[r"/x: must match the pattern ^T-\d+$"]),
            (json!({"pattern": "b"}), json!("abc"), &[]),
            (json!({"pattern": r"^\w+$"}), json!("é"), &[r"/x: must match the pattern ^\w+$"]),
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
            (json!({"patternProperties": {"^n_": {"type": "integer"}}, "additionalProperties": false}), json!({"n_a": "1", "m": 1}), &["/x/n_a: must be an integer (got string)", r#"/x: unknown property "m" (allowed: )"#]),
            (json!({"propertyNames": {"maxLength": 2}}), json!({"abc": 1}), &[r#"/x: property name "abc": must be at most 2 characters (got 3)"#]),
            (json!({"minProperties": 1}), json!({}), &["/x: must have at least 1 property (got 0)"]),
            (json!({"maxProperties": 1}), json!({"a": 1, "b": 2}), &["/x: must have at most 1 property (got 2)"]),
            (json!({"dependentRequired": {"a": ["b"]}}), json!({"a": 1}), &[r#"/x: missing property "b", required when "a" is present"#]),
            (json!({"dependentSchemas": {"a": {"required": ["b"]}}}), json!({"a": 1}), &[r#"/x: missing required property "b""#]),
            // applicators
            (json!({"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]}), json!("ab"), &["/x: must be at least 3 characters (got 2)"]),
            (json!({"anyOf": [{"type": "null"}, {"type": "integer"}]}), json!("5"), &["/x: must be an integer (got string)"]),
            (json!({"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]}), json!(null), &[]),
            (json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}), json!([]), &["/x: must match at least one of the allowed shapes"]),
            (json!({"anyOf": [{"const": "a"}, {"const": "b"}]}), json!("c"), &[r#"/x: must be one of "a", "b" (got "c")"#]),
            (json!({"oneOf": [{"const": "a", "description": "A"}, {"enum": ["b", "c"]}]}), json!("d"), &[r#"/x: must be one of "a", "b", "c" (got "d")"#]),
            (json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]}), json!(5), &["/x: must match exactly one of the allowed shapes (matched more than one)"]),
            (json!({"oneOf": [{"type": "integer"}, {"type": "string"}]}), json!(null), &["/x: must match exactly one of the allowed shapes (matched none)"]),
            (json!({"oneOf": [{"type": "integer"}, {"type": "string"}]}), json!(3), &[]),
            (json!({"allOf": [{"minimum": 1}, {"maximum": 0}]}), json!(0.5), &["/x: must be >= 1 (got 0.5)", "/x: must be <= 0 (got 0.5)"]),
            (json!({"not": {"type": "string"}}), json!("a"), &["/x: must not match the disallowed shape"]),
            (json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 5}}), json!("a"), &["/x: must be at least 2 characters (got 1)"]),
            (json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 5}}), json!(4), &["/x: must be >= 5 (got 4)"]),
            (json!({"then": {"minLength": 2}}), json!("a"), &[]),
            (json!(true), json!({"anything": [1]}), &[]),
            (json!(false), json!(1), &["/x: is not allowed here"]),
            // annotations are ignored
            (json!({"title": "T", "description": "D", "default": 1, "format": "email", "examples": [1], "$comment": "c"}), json!("not an email"), &[]),
        ];
        for (schema, value, expected) in table {
            let got = run(prop(schema.clone()), json!({"x": value}));
            assert_eq!(got, expected, "schema {schema} value {value}");
        }
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
    fn json_pointer_escaping() {
        let schema = json!({"additionalProperties": {"type": "integer"}});
        let got = run(schema, json!({"a/b": "x", "m~n": "y", "": "z", "é ü": "w"}));
        assert_eq!(
            got,
            [
                "/a~1b: must be an integer (got string)",
                "/m~0n: must be an integer (got string)",
                "/: must be an integer (got string)",
                "/é ü: must be an integer (got string)"
            ]
        );
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let long = "x".repeat(500);
        let got = run(prop(json!({"enum": ["a"]})), json!({"x": long}));
        let expected = format!(r#"/x: must be "a" (got "{}…")"#, "x".repeat(40));
        assert_eq!(got, [expected]);
        let got = run(prop(json!({"type": "string"})), json!({"x": 1}));
        assert_eq!(got, ["/x: must be a string (got number)"]);
        let big: Vec<u32> = (0..10_000).collect();
        let got = run(prop(json!({"const": 1})), json!({"x": big}));
        assert_eq!(
            got,
            [r#"/x: must be 1 (got [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1…)"#]
        );
        let mut key = "k".repeat(100);
        key.push('"');
        let got = run(json!({"additionalProperties": false}), json!({ key: 1 }));
        assert_eq!(
            got,
            [format!(
                r#"/: unknown argument "{}…" (allowed: )"#,
                "k".repeat(40)
            )]
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
        assert_eq!(
            violations,
            [Violation {
                path: "/e".into(),
                message: "must be <= 255 (got 1e+300)".into()
            }]
        );
        assert!(args["a"].is_i64() && args["a"] == 1042);
        assert!(args["b"].is_f64(), "a number stays as sent");
        assert!(args["c"].is_i64() && args["c"] == -3);
        assert!(args["d"].is_u64() && args["d"] == 10_000_000_000_000_000_000u64);
        assert!(
            args["f"].is_f64(),
            "no integer type holds 1e20; it stays a float"
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
        assert_eq!(
            serde_json::from_value::<u64>(args["d"].clone()).unwrap(),
            10_000_000_000_000_000_000
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

    #[test]
    fn refs_resolve_and_recurse() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Tree"}, "again": {"$ref": "#"}},
            "$defs": {
                "Tree": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
                    },
                    "required": ["name"]
                }
            }
        });
        let got = run(
            schema,
            json!({"tree": {"name": "a", "children": [{"name": 1}, {}]}, "again": {"again": {"tree": 5}}}),
        );
        assert_eq!(
            got,
            [
                "/tree/children/0/name: must be a string (got number)",
                r#"/tree/children/1: missing required property "name""#,
                "/again/again/tree: must be an object (got number)"
            ]
        );
    }

    #[test]
    fn compile_errors() {
        for (schema, needle) in [
            (json!({"pattern": "("}), "invalid pattern"),
            (json!({"pattern": "(?<x"}), "invalid pattern"),
            (json!({"$ref": "#/$defs/Missing"}), "does not resolve"),
            (json!({"$ref": "other.json"}), "does not point inside"),
            (json!({"$ref": "#anchor"}), "not a JSON Pointer"),
            (
                json!({"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}),
                "cycle",
            ),
            (json!({"allOf": [{"$ref": "#"}]}), "cycle"),
            (json!({"type": "text"}), "unknown type"),
            (json!({"minLength": -1}), "non-negative integer"),
            (json!({"maximum": "9"}), "must be a number"),
            (json!({"multipleOf": 0}), "greater than 0"),
            (json!({"items": [{}]}), "prefixItems"),
            (json!({"unevaluatedProperties": false}), "not supported"),
            (json!({"$dynamicRef": "#meta"}), "not supported"),
            (json!(5), "object or a boolean"),
        ] {
            let err = Validator::compile(&schema).expect_err(&schema.to_string());
            assert!(err.contains(needle), "{schema}: {err}");
        }
        // A `$ref` loop that descends into the value is fine.
        assert!(Validator::compile(&json!({"items": {"$ref": "#"}})).is_ok());
        // `%25` is `%` in a `$ref` fragment.
        let v = Validator::compile(
            &json!({"$ref": "#/$defs/a%25b", "$defs": {"a%b": {"type": "string"}}}),
        )
        .unwrap();
        assert_eq!(v.validate(&mut json!(1)).len(), 1);
    }

    #[test]
    fn format_joins_violations() {
        let vs = [
            Violation {
                path: "/title".into(),
                message: "must be at least 3 characters (got 2)".into(),
            },
            Violation {
                path: String::new(),
                message: r#"unknown argument "colour" (allowed: title)"#.into(),
            },
        ];
        assert_eq!(
            format_violations("add_task", &vs[..1]),
            "Invalid arguments for tool add_task: /title: must be at least 3 characters (got 2)"
        );
        assert_eq!(
            format_violations("add_task", &vs),
            "Invalid arguments for tool add_task: /title: must be at least 3 characters (got 2); \
             /: unknown argument \"colour\" (allowed: title)"
        );
    }

    #[test]
    fn exact_number_comparison() {
        use Ordering::*;
        for (a, b, o) in [
            (Num::U(1), Num::F(1.0), Equal),
            (Num::U(u64::MAX), Num::F(18446744073709551616.0), Less),
            (Num::I(i64::MIN), Num::F(-9223372036854775808.0), Equal),
            (Num::I(i64::MIN), Num::F(-1e19), Greater),
            (
                Num::U(9007199254740993),
                Num::F(9007199254740992.0),
                Greater,
            ),
            (Num::I(-1), Num::F(-0.5), Less),
            (Num::U(0), Num::F(-0.0), Equal),
            (Num::F(0.1), Num::F(0.2), Less),
            (Num::I(-5), Num::U(3), Less),
        ] {
            assert_eq!(a.cmp(b), o, "{a:?} vs {b:?}");
            assert_eq!(b.cmp(a), o.reverse(), "{b:?} vs {a:?}");
        }
    }

    #[test]
    fn duplicates_in_long_arrays() {
        let mut items: Vec<Value> = (0..1000).map(|i| json!({"i": i, "s": [i]})).collect();
        assert!(!has_duplicates(&items));
        items.push(json!({"s": [7.0], "i": 7}));
        assert!(has_duplicates(&items));
    }
}
