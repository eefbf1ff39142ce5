//! The schema profile: how argument and return types become the published inputSchema and
//! outputSchema (JSON Schema 2020-12, nested types inlined, pydantic-style optionals, objects
//! closed to keys they do not declare).
//!
//! | file | what it holds |
//! |---|---|
//! | this file | the generator's settings, the inputSchema built argument by argument, the outputSchema |
//! | `strict.rs` | objects closed to keys they do not declare, so a misspelt field is reported at its pointer |
//! | `flatten.rs` | `#[arg(flatten)]`: a struct's fields published as top-level arguments, and where each came from |
//! | `formats.rs` | the formats schemars publishes that JSON Schema does not define, rewritten into standard keywords |
//! | `decodes.rs` | what serde refuses that the schema accepts (`deny_unknown_fields` with `flatten`), found at build |

pub(crate) mod decodes;
mod flatten;
mod formats;
mod strict;

use std::collections::HashMap;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value, json};

pub use flatten::{FlatKeys, flat_keys};

/// The published output of a tool: its schema, and whether values are wrapped as `{"result": …}`.
#[derive(Debug, Clone)]
pub struct OutputSchema {
    /// The outputSchema as published (already wrapped when `wrapped`).
    pub schema: Value,
    /// True when the return type is not a JSON object, so values go out as `{"result": value}`.
    pub wrapped: bool,
}

/// A numeric bound as written in `#[arg(...)]`, published as the number it holds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Num {
    /// A signed integer literal.
    Int(i64),
    /// An unsigned integer literal above `i64::MAX`.
    UInt(u64),
    /// A float literal.
    Float(f64),
}

/// The constraints of one argument, as given in `#[arg(...)]`; serialized as the schema keywords
/// they publish, those not given left out.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Constraints {
    /// `pattern` (ECMA-262).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<&'static str>,
    /// `format`: one of JSON Schema's or one the server registers
    /// ([`crate::ServerBuilder::format`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// `minimum`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Num>,
    /// `maximum`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Num>,
    /// `exclusiveMinimum`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclusive_minimum: Option<Num>,
    /// `exclusiveMaximum`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclusive_maximum: Option<Num>,
    /// `minLength` (code points)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// `maxLength` (code points)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// `minItems`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// `maxItems`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// A fixed set of allowed values, published as `enum`.
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
}

/// One argument as `#[tool]` declares it.
#[derive(Debug, Clone, Default)]
pub struct ArgSpec {
    /// The published property name.
    pub name: &'static str,
    /// The property's description.
    pub description: Option<&'static str>,
    /// The default, serialized; an argument with a default is not required.
    pub default: Option<Value>,
    /// Constraints.
    pub constraints: Constraints,
}

/// The settings every schema of this crate is generated with.
pub fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
}

/// Builds a tool's inputSchema from its arguments.
pub struct InputSchema {
    generator: SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<Value>,
    /// Which argument publishes each property, for the message when two do.
    sources: HashMap<String, String>,
    /// The flattened struct whose catch-all map takes undeclared keys, and that map's schema.
    catch_all: Option<String>,
    additional: Option<Value>,
    /// What makes these arguments impossible to publish (see [`InputSchema::problems`]).
    problems: Vec<String>,
    /// How each argument decodes, checked against an instance when the tool is built.
    decoders: Vec<decodes::Decoder>,
}

impl Default for InputSchema {
    fn default() -> Self {
        Self::new()
    }
}

impl InputSchema {
    /// An empty object schema.
    pub fn new() -> Self {
        InputSchema {
            generator: generator(),
            properties: Map::new(),
            required: Vec::new(),
            sources: HashMap::new(),
            catch_all: None,
            additional: None,
            problems: Vec::new(),
            decoders: Vec::new(),
        }
    }

    /// Registers how the argument `arg` decodes: the build checks that serde takes what the
    /// published schema accepts ([`decodes`]).
    pub(crate) fn decodes_as<T: serde::de::DeserializeOwned>(&mut self, arg: &'static str) {
        self.decoders.push(decodes::Decoder {
            arg: Some(arg),
            source: format!("the argument `{arg}` (`{}`)", std::any::type_name::<T>()),
            decode: decodes::decode_as::<T>,
        });
    }

    /// Registers how a flattened struct decodes, from the arguments it publishes.
    pub(crate) fn decodes_flat_as<T: serde::de::DeserializeOwned + JsonSchema>(&mut self) {
        self.decoders.push(decodes::Decoder {
            arg: None,
            source: format!("the flattened argument `{}`", std::any::type_name::<T>()),
            decode: decodes::decode_flat_as::<T>,
        });
    }

    /// The decoders registered, leaving none.
    pub(crate) fn take_decoders(&mut self) -> Vec<decodes::Decoder> {
        std::mem::take(&mut self.decoders)
    }

    /// Declares an argument of type `T`.
    pub fn arg<T: JsonSchema>(&mut self, spec: ArgSpec) {
        let mut schema = self.subschema::<T>();
        apply_constraints(&mut schema, &spec.constraints);
        let required = spec.default.is_none();
        self.push(spec, schema, required);
    }

    /// Declares an `Option<U>` argument: optional, and null means absent.
    pub fn option_arg<U: JsonSchema>(&mut self, spec: ArgSpec) {
        let inner = self.subschema::<U>();
        self.push_option(spec, inner);
    }

    /// [`Self::option_arg`] once `U`'s schema is generated: compiled once, not once per type.
    fn push_option(&mut self, mut spec: ArgSpec, mut inner: Value) {
        apply_constraints(&mut inner, &spec.constraints);
        let schema = json!({"anyOf": [inner, {"type": "null"}]});
        if spec.default.is_none() {
            spec.default = Some(Value::Null);
        }
        self.push(spec, schema, false);
    }

    fn subschema<T: JsonSchema>(&mut self) -> Value {
        let mut v = self.subschema_open::<T>();
        strict::close_objects(&mut v);
        v
    }

    /// The schema of `T` with the profile applied, its objects not yet closed.
    fn subschema_open<T: JsonSchema>(&mut self) -> Value {
        let mut v = self.generator.subschema_for::<T>().to_value();
        normalize(&mut v);
        type_object_unions(&mut v);
        v
    }

    fn push(&mut self, spec: ArgSpec, mut schema: Value, required: bool) {
        if !schema.is_object() {
            // `true` (any JSON value) becomes `{}` so that keys can be added.
            schema = json!({});
        }
        let obj = schema.as_object_mut().expect("object schema");
        if let Some(d) = spec.description {
            obj.insert("description".into(), d.into());
        }
        if let Some(d) = spec.default {
            obj.insert("default".into(), d);
        }
        if !self.claim(spec.name, &format!("the argument `{}`", spec.name)) {
            return;
        }
        if required {
            self.required.push(spec.name.into());
        }
        self.properties.insert(spec.name.into(), schema);
    }

    /// The finished inputSchema.
    pub fn finish(mut self) -> Value {
        let mut root = Map::new();
        root.insert("type".into(), "object".into());
        root.insert(
            "properties".into(),
            Value::Object(std::mem::take(&mut self.properties)),
        );
        if !self.required.is_empty() {
            root.insert(
                "required".into(),
                Value::Array(std::mem::take(&mut self.required)),
            );
        }
        let additional = self.additional.take().unwrap_or(Value::Bool(false));
        root.insert("additionalProperties".into(), additional);
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            let mut defs = Value::Object(defs);
            normalize(&mut defs);
            type_object_unions(&mut defs);
            if let Value::Object(defs) = &mut defs {
                defs.values_mut().for_each(strict::close_objects);
            }
            root.insert("$defs".into(), defs);
        }
        Value::Object(root)
    }
}

fn apply_constraints(schema: &mut Value, c: &Constraints) {
    if !schema.is_object() {
        *schema = json!({});
    }
    let obj = schema.as_object_mut().expect("object schema");
    // A keyword the generated schema has already is replaced in its place (`Map::insert`).
    if let Value::Object(keywords) = json!(c) {
        obj.extend(keywords);
    }
}

/// Applies the profile to a generated schema: drops Rust-specific `format`s and gives every
/// integer type except `i64`/`isize` the bounds its deserializer enforces.
///
/// A bound is published only when a JavaScript client can hold it exactly (its magnitude at most
/// 2^53 - 1, `Number.MAX_SAFE_INTEGER`): `u64::MAX` read by JavaScript is 18446744073709552000,
/// a bound the type does not have. So `u64`, `usize` and `u128` publish `minimum: 0` alone, and
/// `i64`, `isize` and `i128` a plain `integer`, the way pydantic publishes `int`. The type's range
/// is enforced all the same: an integer literal beyond it fails deserialization and is reported
/// as invalid arguments, at its JSON Pointer, by the call path; a float at or beyond 2^53 (which
/// is what serde_json makes of a literal beyond 64 bits) is refused by the validator as not exact.
/// The 32-bit and smaller types publish both bounds.
///
/// Maps with integer keys get the key grammar serde_json parses: schemars publishes `^\d+$`,
/// but serde_json reads a key as a JSON number, so `007` is refused; the key's range is not
/// published (schemars does not pass it on), and an out-of-range key is refused the same way.
pub(crate) fn normalize(v: &mut Value) {
    /// The largest integer a JavaScript number holds exactly (2^53 - 1).
    const MAX_SAFE_INTEGER: u128 = (1 << 53) - 1;
    match v {
        Value::Object(obj) => {
            if let Some(Value::Object(patterns)) = obj.get_mut("patternProperties") {
                for (from, to) in [
                    (r"^\d+$", r"^(0|[1-9]\d*)$"),
                    (r"^-?\d+$", r"^-?(0|[1-9]\d*)$"),
                ] {
                    if let Some(schema) = patterns.remove(from) {
                        patterns.insert(to.into(), schema);
                    }
                }
            }
            formats::standard_format(obj);
            if let Some(Value::String(f)) = obj.get("format") {
                let bounds: Option<(Option<i128>, Option<i128>)> = match f.as_str() {
                    "int8" => Some((Some(i8::MIN as i128), Some(i8::MAX as i128))),
                    "int16" => Some((Some(i16::MIN as i128), Some(i16::MAX as i128))),
                    "int32" => Some((Some(i32::MIN as i128), Some(i32::MAX as i128))),
                    "uint8" => Some((Some(0), Some(u8::MAX as i128))),
                    "uint16" => Some((Some(0), Some(u16::MAX as i128))),
                    "uint32" => Some((Some(0), Some(u32::MAX as i128))),
                    "uint64" | "uint" | "uint128" => Some((Some(0), Some(u64::MAX as i128))),
                    "int128" => Some((Some(i64::MIN as i128), Some(u64::MAX as i128))),
                    "int64" | "int" | "float" | "double" => Some((None, None)),
                    _ => None,
                };
                if let Some((lo, hi)) = bounds {
                    obj.remove("format");
                    let exact = |b: &i128| b.unsigned_abs() <= MAX_SAFE_INTEGER;
                    if let Some(lo) = lo.filter(exact) {
                        obj.entry("minimum").or_insert_with(|| json!(lo as i64));
                    }
                    if let Some(hi) = hi.filter(exact) {
                        obj.entry("maximum").or_insert_with(|| json!(hi as i64));
                    }
                }
            }
            for (_, child) in obj.iter_mut() {
                normalize(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize),
        _ => {}
    }
}

/// An argument's enum whose variants are all objects (internally or adjacently tagged, or
/// externally with struct variants) says so beside its `oneOf`: a client that reads only `type`
/// (the Inspector) would otherwise send the argument as a string. Input schemas only: an output
/// enum keeps its `{"result": …}` wrapping, so that structured content stays as it was.
fn type_object_unions(v: &mut Value) {
    match v {
        Value::Object(obj) => {
            obj.values_mut().for_each(type_object_unions);
            let all_objects = |branches: &Vec<Value>| {
                !branches.is_empty()
                    && branches
                        .iter()
                        .all(|b| b.get("type") == Some(&json!("object")))
            };
            if !obj.contains_key("type")
                && matches!(obj.get("oneOf"), Some(Value::Array(b)) if all_objects(b))
            {
                obj.shift_insert(0, "type".into(), json!("object"));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(type_object_unions),
        _ => {}
    }
}

/// The outputSchema of `T`: its own schema when it is an object, else `{"result": T}`.
///
/// It describes what the value serializes to (schemars' `Serialize` contract, whatever the
/// contract of `generator`): a `skip_deserializing` field is sent and listed, `alias` says
/// nothing about output, `rename(serialize = …)` is the name sent.
pub fn output_schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> OutputSchema {
    let settings = generator.settings().clone().for_serialize();
    let schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    // The rest does not depend on `T`: compiled once, not once per return type.
    output_schema_of(schema)
}

/// [`output_schema`] once `T`'s schema is generated.
fn output_schema_of(mut schema: Value) -> OutputSchema {
    normalize(&mut schema);
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
    }
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object");
    if is_object {
        OutputSchema {
            schema,
            wrapped: false,
        }
    } else {
        let mut inner = schema;
        let mut defs = inner
            .as_object_mut()
            .and_then(|o| o.remove("$defs"))
            .unwrap_or_else(|| Value::Object(Map::new()));
        let title = inner
            .as_object_mut()
            .and_then(|o| o.remove("title"))
            .and_then(|t| t.as_str().map(str::to_owned));
        // A recursive root type refers to itself as `#`; under the wrapper that would name the
        // wrapper, so the type moves to `$defs` and its self-references follow it.
        if refers_to_root(&inner) {
            let defs = defs.as_object_mut().expect("`$defs` is an object");
            let base = title.unwrap_or_else(|| "Result".to_owned());
            let mut name = base.clone();
            let mut n = 1;
            while defs.contains_key(&name) {
                n += 1;
                name = format!("{base}{n}");
            }
            let target = format!("#/$defs/{}", name.replace('~', "~0").replace('/', "~1"));
            retarget_root_refs(&mut inner, &target);
            for def in defs.values_mut() {
                retarget_root_refs(def, &target);
            }
            defs.insert(name, inner.clone());
        }
        let mut root = json!({
            "type": "object",
            "properties": {"result": inner},
            "required": ["result"],
        });
        if defs.as_object().is_some_and(|d| !d.is_empty()) {
            root.as_object_mut()
                .expect("object")
                .insert("$defs".into(), defs);
        }
        OutputSchema {
            schema: root,
            wrapped: true,
        }
    }
}

/// Whether a schema holds a `$ref` to its own root (`#`).
fn refers_to_root(v: &Value) -> bool {
    match v {
        Value::Object(o) => {
            o.get("$ref").and_then(Value::as_str) == Some("#") || o.values().any(refers_to_root)
        }
        Value::Array(a) => a.iter().any(refers_to_root),
        _ => false,
    }
}

/// Points every `$ref: "#"` at `target`.
fn retarget_root_refs(v: &mut Value, target: &str) {
    match v {
        Value::Object(o) => {
            for (key, child) in o.iter_mut() {
                if key == "$ref" && child.as_str() == Some("#") {
                    *child = target.into();
                } else {
                    retarget_root_refs(child, target);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| retarget_root_refs(c, target)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

    use schemars::JsonSchema;
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use super::*;
    use crate::validate::Validator;

    fn arg_schema<T: JsonSchema>() -> Value {
        let mut b = InputSchema::new();
        b.arg::<T>(ArgSpec {
            name: "x",
            ..Default::default()
        });
        b.finish()["properties"]["x"].clone()
    }

    #[test]
    fn scalar_profile() {
        #[rustfmt::skip]
        let table: Vec<(Value, Value)> = vec![
            (arg_schema::<u8>(), json!({"type": "integer", "minimum": 0, "maximum": 255})),
            (arg_schema::<i8>(), json!({"type": "integer", "minimum": -128, "maximum": 127})),
            (arg_schema::<u16>(), json!({"type": "integer", "minimum": 0, "maximum": 65535})),
            (arg_schema::<i16>(), json!({"type": "integer", "minimum": -32768, "maximum": 32767})),
            (arg_schema::<u32>(), json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32})),
            (arg_schema::<i32>(), json!({"type": "integer", "minimum": -2147483648, "maximum": 2147483647})),
            (arg_schema::<u64>(), json!({"type": "integer", "minimum": 0})),
            (arg_schema::<usize>(), json!({"type": "integer", "minimum": 0})),
            (arg_schema::<i64>(), json!({"type": "integer"})),
            (arg_schema::<isize>(), json!({"type": "integer"})),
            (arg_schema::<u128>(), json!({"type": "integer", "minimum": 0})),
            (arg_schema::<i128>(), json!({"type": "integer"})),
            (arg_schema::<std::num::NonZeroU8>(), json!({"type": "integer", "minimum": 1, "maximum": 255})),
            (arg_schema::<f32>(), json!({"type": "number"})),
            (arg_schema::<f64>(), json!({"type": "number"})),
            (arg_schema::<bool>(), json!({"type": "boolean"})),
            (arg_schema::<String>(), json!({"type": "string"})),
            (arg_schema::<char>(), json!({"type": "string", "minLength": 1, "maxLength": 1})),
            (arg_schema::<Value>(), json!({})),
            (arg_schema::<Vec<String>>(), json!({"type": "array", "items": {"type": "string"}})),
            (arg_schema::<HashSet<String>>(), json!({"type": "array", "uniqueItems": true, "items": {"type": "string"}})),
            (arg_schema::<BTreeSet<u8>>(), json!({"type": "array", "uniqueItems": true, "items": {"type": "integer", "minimum": 0, "maximum": 255}})),
            (arg_schema::<HashMap<String, bool>>(), json!({"type": "object", "additionalProperties": {"type": "boolean"}})),
            (arg_schema::<BTreeMap<String, i64>>(), json!({"type": "object", "additionalProperties": {"type": "integer"}})),
            (arg_schema::<HashMap<u32, bool>>(), json!({"type": "object", "additionalProperties": false, "patternProperties": {r"^(0|[1-9]\d*)$": {"type": "boolean"}}})),
            (arg_schema::<BTreeMap<i8, bool>>(), json!({"type": "object", "additionalProperties": false, "patternProperties": {r"^-?(0|[1-9]\d*)$": {"type": "boolean"}}})),
            (arg_schema::<(u8, String)>(), json!({"type": "array", "prefixItems": [{"type": "integer", "minimum": 0, "maximum": 255}, {"type": "string"}], "minItems": 2, "maxItems": 2})),
        ];
        for (got, expected) in table {
            // Key order aside: compare as JSON values.
            assert_eq!(got, expected);
        }
    }

    /// The advertised integer bounds are exactly what serde accepts: both bounds deserialize and
    /// the integers just outside do not.
    #[test]
    fn integer_bounds_match_serde() {
        fn check<T: JsonSchema + DeserializeOwned>() {
            let s = arg_schema::<T>();
            let name = std::any::type_name::<T>();
            // An unpublished bound (beyond 2^53) is the type's own: `unpublished_bounds_hold`.
            let lo = s.get("minimum").cloned();
            let hi = s.get("maximum").cloned();
            for edge in [&lo, &hi].into_iter().flatten() {
                assert!(
                    serde_json::from_value::<T>(edge.clone()).is_ok(),
                    "{name} {edge}"
                );
            }
            let below = lo
                .as_ref()
                .and_then(Value::as_i64)
                .and_then(|i| i.checked_sub(1));
            let below = below.map(Value::from);
            let above = hi.as_ref().and_then(|hi| {
                hi.as_u64()
                    .and_then(|u| u.checked_add(1))
                    .map(Value::from)
                    .or_else(|| hi.as_i64().and_then(|i| i.checked_add(1)).map(Value::from))
            });
            for outside in [below, above].into_iter().flatten() {
                assert!(
                    serde_json::from_value::<T>(outside.clone()).is_err(),
                    "{name} {outside}"
                );
            }
            // Beyond what `Value` holds as an integer: a float, which every bound rejects.
            assert!(serde_json::from_value::<T>(json!(1e20)).is_err());
            let v = Validator::compile(&json!({"properties": {"x": s}})).unwrap();
            // Every integer type refuses it, `i64` (no published bound) included: a float that
            // large is not an exact integer.
            assert!(!v.validate(&mut json!({"x": 1e20})).is_empty(), "{name}");
        }
        let types: [fn(); 12] = [
            check::<u8>,
            check::<i8>,
            check::<u16>,
            check::<i16>,
            check::<u32>,
            check::<i32>,
            check::<u64>,
            check::<usize>,
            check::<i64>,
            check::<isize>,
            check::<u128>,
            check::<i128>,
        ];
        types.iter().for_each(|check| check());
    }

    use test_support::shapes::{Address, Tree};

    #[test]
    fn nested_types() {
        assert_eq!(
            arg_schema::<Address>(),
            json!({
                "type": "object",
                "properties": {
                    "streetName": {"type": "string"},
                    "zip": {"type": ["integer", "null"], "minimum": 0, "maximum": 4294967295u32},
                    "tags": {"type": "array", "items": {"type": "string"}, "default": []},
                    "x/y~z": {"type": ["boolean", "null"], "default": null}
                },
                "required": ["streetName"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn recursive_types_keep_defs_at_the_root() {
        let mut b = InputSchema::new();
        b.arg::<Tree>(ArgSpec {
            name: "tree",
            ..Default::default()
        });
        b.option_arg::<Tree>(ArgSpec {
            name: "spare",
            ..Default::default()
        });
        let schema = b.finish();
        assert_eq!(
            schema["properties"]["tree"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Tree"})
        );
        assert_eq!(
            schema["$defs"]["Tree"]["required"],
            json!(["name", "children"])
        );
        let v = Validator::compile(&schema).expect("every $ref resolves");
        let mut ok = json!({"tree": {"name": "a", "children": [{"name": "b", "children": []}]}});
        assert!(v.validate(&mut ok).is_empty());
        let mut bad = json!({"tree": {"name": "a", "children": [{"name": 1, "children": []}]}});
        assert_eq!(v.validate(&mut bad)[0].path, "/tree/children/0/name");
    }

    #[derive(Serialize, JsonSchema)]
    /// One task.
    struct Task {
        id: String,
    }

    #[derive(Serialize, JsonSchema)]
    struct Node {
        kids: Vec<Node>,
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    enum Expr {
        Num(f64),
        Add(Box<Expr>, Box<Expr>),
    }

    fn output<T: JsonSchema>() -> OutputSchema {
        output_schema::<T>(&mut generator())
    }

    #[test]
    fn output_schemas() {
        let task = output::<Task>();
        assert!(!task.wrapped);
        assert_eq!(
            task.schema,
            json!({
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
                "description": "One task.",
                "title": "Task"
            })
        );
        let text = output::<String>();
        assert!(text.wrapped);
        assert_eq!(
            text.schema,
            json!({"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]})
        );
        let byte = output::<u8>();
        assert_eq!(
            byte.schema["properties"]["result"],
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert!(output::<Option<Task>>().wrapped);
        assert!(output::<Vec<Task>>().wrapped);

        // Recursive types: every $ref resolves where the schema is published.
        let node = output::<Node>();
        assert!(!node.wrapped);
        let nodes = output::<Vec<Node>>();
        let expr = output::<Expr>();
        assert!(expr.wrapped);
        assert!(
            !expr.schema.to_string().contains(r##""$ref":"#""##),
            "{}",
            expr.schema
        );
        for (o, value) in [
            (&node, json!({"kids": [{"kids": []}]})),
            (&nodes, json!({"result": [{"kids": [{"kids": []}]}]})),
            (
                &expr,
                json!({"result": {"Add": [{"Num": 1.0}, {"Add": [{"Num": 2}, {"Num": 3}]}]}}),
            ),
        ] {
            let v = Validator::compile(&o.schema).unwrap_or_else(|e| panic!("{e}: {}", o.schema));
            assert_eq!(v.validate(&mut value.clone()), [], "{}", o.schema);
        }
        let v = Validator::compile(&expr.schema).unwrap();
        let bad = v.validate(&mut json!({"result": {"Add": [{"Num": 1}, {"Sub": 2}]}}));
        assert!(!bad.is_empty());
    }

    /// Deserialize-only attributes do not shape the outputSchema: it is what the value
    /// serializes to.
    #[test]
    fn output_schemas_follow_the_serialize_contract() {
        #[derive(Serialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        struct Cached {
            key: String,
            #[serde(skip_deserializing)]
            derived: bool,
            #[serde(rename(serialize = "sent", deserialize = "received"))]
            renamed: u8,
        }
        let cached = output::<Cached>().schema;
        assert_eq!(
            cached["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["key", "derived", "sent"],
            "{cached}"
        );
        assert_eq!(
            cached["required"],
            json!(["key", "derived", "sent"]),
            "{cached}"
        );
        let v = Validator::compile(&cached).unwrap();
        let sent = serde_json::to_value(Cached {
            key: "k".into(),
            derived: true,
            renamed: 1,
        })
        .unwrap();
        assert_eq!(v.validate(&mut sent.clone()), [], "{sent} against {cached}");
    }

    #[test]
    fn an_enum_of_objects_says_it_is_an_object() {
        #[derive(serde::Deserialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "lowercase")]
        #[allow(dead_code)]
        enum Shape {
            Circle { radius: f64 },
            Square { side: f64 },
        }
        #[derive(serde::Deserialize, JsonSchema)]
        #[allow(dead_code)]
        enum Mixed {
            Named { id: u32 },
            Bare,
        }
        let shape = arg_schema::<Shape>();
        assert_eq!(shape["type"], "object", "{shape}");
        assert_eq!(shape.as_object().unwrap().keys().next().unwrap(), "type");
        // A unit variant is a string: the enum is not all objects, and says nothing.
        let mixed = arg_schema::<Mixed>();
        assert!(mixed.get("type").is_none(), "{mixed}");
    }

    /// Bounds beyond what a JavaScript number holds are not published, and hold all the same:
    /// serde refuses what is outside the type, the validator a float too large to be exact.
    #[test]
    fn unpublished_bounds_hold() {
        for s in [
            arg_schema::<u64>(),
            arg_schema::<u128>(),
            arg_schema::<i64>(),
            arg_schema::<i128>(),
        ] {
            for bound in ["minimum", "maximum"] {
                if let Some(b) = s.get(bound) {
                    let b = b.as_f64().unwrap().abs();
                    assert!(b <= 9_007_199_254_740_991.0, "{s}");
                }
            }
        }
        assert!(serde_json::from_value::<u64>(json!(u64::MAX)).is_ok());
        assert!(serde_json::from_value::<u64>(json!(-1)).is_err());
        assert!(serde_json::from_value::<i64>(json!(u64::MAX)).is_err());
        assert!(serde_json::from_value::<i64>(json!(i64::MIN)).is_ok());
        let v = Validator::compile(&json!({"properties": {"x": arg_schema::<u64>()}})).unwrap();
        assert!(v.validate(&mut json!({"x": u64::MAX})).is_empty());
        assert!(!v.validate(&mut json!({"x": -1})).is_empty());
        assert!(
            !v.validate(&mut json!({"x": 1.8446744073709552e19}))
                .is_empty()
        );
    }
}
