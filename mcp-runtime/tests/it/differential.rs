//! Differential test of the validator: for many published inputSchemas, thousands of generated
//! argument objects each, our verdict must equal the `jsonschema` crate's (Draft 2020-12) on the
//! same schema, and every accepted argument must deserialize into its Rust type.
//!
//! The generator reads the schema itself: mostly plausible values, bounds and their neighbours,
//! wrong types, numeric strings, non-ASCII digits, missing and unknown keys, nulls, integral floats
//! and numbers beyond every integer type. A fixed-seed xorshift keeps runs reproducible.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::num::NonZeroU32;
use std::sync::Arc;

use mcp_runtime::__private::{ArgSpec, Constraints, InputSchema, Num};
use mcp_runtime::prelude::*;
use mcp_runtime::schema::{FlatKeys, flat_keys};
use mcp_runtime::validate::Validator;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use test_support::call_detached;
use test_support::rng::Rng;
use test_support::shapes::{Address, Tree};
use test_support::tasks::Priority;

use crate::inexact;
use inexact::holds_inexact_float;

/// Inputs generated per schema.
const INPUTS: usize = 10_000;

// ---- the argument types --------------------------------------------------------------------------

/// A `deny_unknown_fields` struct flattening a tagged enum: schemars publishes its enum's `oneOf`
/// beside `unevaluatedProperties: false`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Draw {
    label: String,
    #[serde(flatten)]
    shape: Shape,
}

/// `Draw` as schemars publishes it: the tagged enum's `oneOf` beside `unevaluatedProperties`.
fn draw_schema() -> Value {
    let schema = schemars_output::<Draw>();
    assert!(schema["oneOf"].is_array(), "{schema}");
    assert_eq!(schema["unevaluatedProperties"], false, "{schema}");
    schema
}

/// What schemars emits for `T`, as written (no `$schema`, no `title`).
fn schemars_output<T: JsonSchema>() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap();
    let object = schema.as_object_mut().unwrap();
    object.remove("$schema");
    object.remove("title");
    schema
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Shape {
    Circle { radius: f64 },
    Square { side: u16 },
    Empty,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Id {
    Num(u32),
    Text(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum External {
    Unit,
    Byte(u8),
    Point { x: i16, y: i16 },
}

/// Documented variants are published as `oneOf` of `const`s.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Colour {
    /// Red.
    Red,
    /// Green.
    Green,
}

/// Flattened into a tool's arguments: renames, a default, an optional field, a nested struct.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Search {
    #[schemars(length(min = 1, max = 5))]
    query: String,
    #[serde(default = "three")]
    #[schemars(range(min = 1, max = 9))]
    max_results: u8,
    tag: Option<String>,
    #[serde(default)]
    style: Style,
}

fn three() -> u8 {
    3
}

/// A nested struct without `deny_unknown_fields`: closed all the same.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Style {
    #[serde(default)]
    color_hex: Option<String>,
    #[serde(default)]
    large: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Paging {
    #[serde(default)]
    offset: u16,
}

/// A catch-all map: the undeclared arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Extras {
    owner: String,
    #[serde(flatten)]
    rest: BTreeMap<String, u8>,
}

/// A flattened enum: `oneOf` beside the properties, closed with `unevaluatedProperties`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Labeled {
    label: String,
    #[serde(flatten)]
    shape: Shape,
}

/// A flattened struct: its properties merged into the parent's.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Merged {
    id: u32,
    #[serde(flatten)]
    style: Style,
}

/// Opts in to extra keys.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
#[allow(dead_code)]
struct Loose {
    name: String,
}

// ---- cases built with InputSchema ----------------------------------------------------------------

type Check = Box<dyn Fn(&Value) -> Result<(), String>>;

/// One argument: its name, its deserializer, and the documented gap (values the schema admits
/// and serde refuses), if the argument's type has one.
struct Arg {
    name: &'static str,
    check: Check,
    gap: Option<fn(&Value) -> bool>,
    /// For a flattened argument: the keys its struct takes from the top level.
    flat: Option<FlatKeys>,
}

/// One schema under test, with the deserializer of every argument it declares.
struct Case {
    name: String,
    schema: Value,
    args: Vec<Arg>,
}

struct CaseBuilder {
    name: &'static str,
    input: InputSchema,
    args: Vec<Arg>,
}

fn check_of<T: DeserializeOwned>() -> Check {
    Box::new(|v| {
        serde_json::from_value::<T>(v.clone())
            .map(drop)
            .map_err(|e| e.to_string())
    })
}

impl CaseBuilder {
    fn new(name: &'static str) -> Self {
        CaseBuilder {
            name,
            input: InputSchema::new(),
            args: Vec::new(),
        }
    }

    fn arg<T: JsonSchema + DeserializeOwned>(self, name: &'static str, c: Constraints) -> Self {
        self.declare::<T>(name, None, c)
    }

    fn defaulted<T: JsonSchema + DeserializeOwned>(
        self,
        name: &'static str,
        default: Value,
        c: Constraints,
    ) -> Self {
        self.declare::<T>(name, Some(default), c)
    }

    fn declare<T: JsonSchema + DeserializeOwned>(
        mut self,
        name: &'static str,
        default: Option<Value>,
        c: Constraints,
    ) -> Self {
        self.input.arg::<T>(ArgSpec {
            name,
            default,
            constraints: c,
            ..Default::default()
        });
        self.record(name, check_of::<T>())
    }

    fn opt<U: JsonSchema + DeserializeOwned>(mut self, name: &'static str, c: Constraints) -> Self {
        self.input.option_arg::<U>(ArgSpec {
            name,
            constraints: c,
            ..Default::default()
        });
        self.record(name, check_of::<Option<U>>())
    }

    /// Records the argument declared last and how its values deserialize.
    fn record(mut self, name: &'static str, check: Check) -> Self {
        self.args.push(Arg {
            name,
            check,
            gap: None,
            flat: None,
        });
        self
    }

    /// Declares a flattened argument (`#[arg(flatten)]`).
    fn flat<T: JsonSchema + DeserializeOwned>(mut self, name: &'static str) -> Self {
        self.input.flatten::<T>(name);
        self = self.record(name, check_of::<T>());
        self.args.last_mut().expect("an argument").flat = Some(flat_keys::<T>());
        self
    }

    /// Declares the documented gap of the argument declared last.
    fn gap(mut self, gap: fn(&Value) -> bool) -> Self {
        self.args.last_mut().expect("an argument").gap = Some(gap);
        self
    }

    fn build(self) -> Case {
        assert_eq!(self.input.problems(), [] as [String; 0], "{}", self.name);
        Case {
            name: self.name.to_owned(),
            schema: self.input.finish(),
            args: self.args,
        }
    }
}

fn none() -> Constraints {
    Constraints::default()
}

/// `Constraints` with the named fields set (each value wrapped in `Some`), the rest unset.
macro_rules! constraints {
    ($($field:ident: $value:expr),+ $(,)?) => {
        Constraints {
            $($field: Some($value),)+
            ..none()
        }
    };
}

fn cases() -> Vec<Case> {
    vec![
        CaseBuilder::new("add_task")
            .arg::<String>("title", constraints!(min_length: 3, max_length: 80))
            .defaulted::<Priority>("priority", json!("normal"), none())
            .opt::<String>("note", none())
            .build(),
        CaseBuilder::new("identifiers")
            .arg::<String>("task_id", constraints!(pattern: r"^T-\d+$"))
            .arg::<u32>("order_id", none())
            .arg::<bool>("flag", none())
            .opt::<String>(
                "slug",
                constraints!(pattern: r"^[a-z]+(-[a-z]+)*$", max_length: 12),
            )
            .arg::<char>("initial", none())
            .build(),
        CaseBuilder::new("integers")
            .arg::<u8>("u8", none())
            .arg::<i8>("i8", none())
            .arg::<u16>("u16", none())
            .arg::<i16>("i16", none())
            .arg::<i32>("i32", none())
            .arg::<u64>("u64", none())
            .opt::<u128>("u128", none())
            .opt::<i128>("i128", none())
            .opt::<usize>("usize", none())
            .arg::<NonZeroU32>("nonzero", none())
            .build(),
        CaseBuilder::new("i64")
            .arg::<i64>("count", none())
            .gap(beyond_i64)
            .opt::<isize>("offset", none())
            .gap(beyond_i64)
            .build(),
        CaseBuilder::new("bounded numbers")
            .arg::<i32>(
                "quantity",
                constraints!(minimum: Num::Int(0), maximum: Num::Int(9999)),
            )
            .arg::<f64>(
                "ratio",
                constraints!(exclusive_minimum: Num::Int(0), exclusive_maximum: Num::Int(1)),
            )
            .opt::<f32>("temperature", constraints!(minimum: Num::Float(-273.15)))
            .opt::<u8>("percent", constraints!(maximum: Num::Int(100)))
            .defaulted::<i16>(
                "delta",
                json!(0),
                constraints!(minimum: Num::Int(-5), maximum: Num::Int(5)),
            )
            .build(),
        CaseBuilder::new("collections")
            .arg::<Vec<String>>("tags", constraints!(min_items: 1, max_items: 3))
            .arg::<HashSet<u8>>("bytes", none())
            .opt::<BTreeSet<String>>("labels", none())
            .arg::<BTreeMap<String, i32>>("scores", none())
            .opt::<HashMap<u32, String>>("by_id", none())
            .gap(key_beyond_u32)
            .opt::<(u8, String)>("pair", none())
            .opt::<[u16; 3]>("triple", none())
            .build(),
        CaseBuilder::new("nested")
            .arg::<Address>("address", none())
            .opt::<Address>("billing", none())
            .arg::<Value>("extra", none())
            .opt::<Vec<Address>>("others", none())
            .build(),
        CaseBuilder::new("enums")
            .arg::<Shape>("shape", none())
            .arg::<Id>("id", none())
            .opt::<External>("external", none())
            .opt::<Colour>("colour", none())
            .arg::<String>(
                "mode",
                constraints!(one_of: vec![json!("fast"), json!("safe")]),
            )
            .build(),
        CaseBuilder::new("recursive")
            .arg::<Tree>("tree", none())
            .opt::<Tree>("spare", none())
            .build(),
    ]
}

/// `#[arg(flatten)]` structs beside ordinary arguments, a catch-all map, and strict objects: nested
/// structs closed with `additionalProperties`, or beside a flattened enum's `oneOf` with
/// `unevaluatedProperties`, and a type that opts in to extra keys.
fn flatten_cases() -> Vec<Case> {
    let shop = constraints!(min_length: 1);
    let flattened = CaseBuilder::new("flattened").arg::<String>("shop", shop);
    let flattened = flattened.flat::<Search>("params").flat::<Paging>("page");
    let catch_all = CaseBuilder::new("flattened catch-all").flat::<Extras>("extras");
    let catch_all = catch_all.defaulted::<bool>("dry_run", json!(false), none());
    let strict = CaseBuilder::new("strict objects").arg::<Style>("style", none());
    let strict = strict
        .opt::<Merged>("merged", none())
        .opt::<Loose>("loose", none());
    let strict = strict.opt::<Vec<Style>>("styles", none());
    // Optional: a present `Labeled` is accepted about one time in twenty (the generator draws
    // its keys from every branch at once), so an absent one keeps the accepted share up.
    let one_of = CaseBuilder::new("strict beside a oneOf").opt::<Labeled>("labeled", none());
    [flattened, catch_all, strict, one_of]
        .into_iter()
        .map(CaseBuilder::build)
        .collect()
}

/// A closed object schema whose properties are each `{"type": ty, "format": ...}`, in order, then
/// `last` when given.
fn formats(ty: &str, properties: &[(&str, &str)], last: Option<(&str, Value)>) -> Value {
    let mut map: Map<String, Value> = properties
        .iter()
        .map(|(name, format)| ((*name).to_owned(), json!({"type": ty, "format": format})))
        .collect();
    map.extend(last.map(|(name, schema)| (name.to_owned(), schema)));
    json!({"type": "object", "properties": map, "additionalProperties": false})
}

/// Schemas written by hand for the keywords the argument types do not produce.
fn raw_cases() -> Vec<Case> {
    let raw = |name: &str, schema: Value| Case {
        name: name.to_owned(),
        schema,
        args: Vec::new(),
    };
    vec![
        raw(
            "keywords: numbers",
            json!({
                "type": "object",
                "properties": {
                    "five": {"type": "integer", "multipleOf": 5, "minimum": -20, "maximum": 20},
                    "half": {"type": "number", "multipleOf": 0.5, "exclusiveMaximum": 3},
                    "answer": {"const": 42},
                    "either": {"type": ["integer", "string"], "minimum": 3, "maxLength": 2},
                },
                "required": ["five"],
                "additionalProperties": false
            }),
        ),
        raw(
            "keywords: applicators",
            json!({
                "type": "object",
                "properties": {
                    "one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 2}]},
                    "all": {"allOf": [{"type": "string"}, {"minLength": 2}, {"maxLength": 4}]},
                    "not": {"not": {"type": "string"}},
                    "cond": {
                        "if": {"type": "string"},
                        "then": {"pattern": r"^\d+$"},
                        "else": {"type": "integer", "maximum": 3}
                    },
                    "any": {"anyOf": [{"type": "string", "minLength": 3}, {"type": "integer"}]},
                    "never": false,
                    "always": true
                },
                "minProperties": 1,
                "maxProperties": 4
            }),
        ),
        raw(
            "keywords: arrays and objects",
            json!({
                "type": "object",
                "properties": {
                    "unique": {"type": "array", "uniqueItems": true, "items": {"enum": [1, "1", {"a": 1}, [1], null]}},
                    "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
                    "has": {"type": "array", "contains": {"type": "string"}, "maxContains": 2},
                    "dict": {
                        "type": "object",
                        "patternProperties": {r"^\d+$": {"type": "integer"}},
                        "propertyNames": {"maxLength": 3},
                        "additionalProperties": {"type": "string"}
                    },
                    "deps": {"type": "object", "dependentRequired": {"a": ["b"]}}
                },
                "required": ["unique"]
            }),
        ),
        raw(
            "keywords: formats",
            formats(
                "string",
                &[
                    ("v4", "ipv4"),
                    ("v6", "ipv6"),
                    ("ip", "ip"),
                    ("id", "uuid"),
                    ("day", "date"),
                    ("at", "time"),
                    ("when", "date-time"),
                    ("span", "duration"),
                    ("link", "uri"),
                    ("other", "partial-date-time"),
                ],
                Some(("anything", json!({"format": "ipv4"}))),
            ),
        ),
        raw(
            "keywords: integer formats",
            formats(
                "integer",
                &[
                    ("i8", "int8"),
                    ("i32", "int32"),
                    ("i64", "int64"),
                    ("u8", "uint8"),
                    ("u64", "uint64"),
                ],
                None,
            ),
        ),
        raw(
            "keywords: unevaluated",
            json!({
                "type": "object",
                "$defs": {
                    "Named": {"properties": {"name": {"type": "string"}}},
                    "Tree": {
                        "type": "object",
                        "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
                        "unevaluatedProperties": false
                    }
                },
                "properties": {
                    "flat": draw_schema(),
                    "mixed": {
                        "$ref": "#/$defs/Named",
                        "allOf": [{"properties": {"a": true}}],
                        "anyOf": [{"properties": {"b": {"type": "integer"}}}, {"properties": {"c": {"type": "string"}}}],
                        "if": {"properties": {"mode": {"const": "x"}}, "required": ["mode"]},
                        "then": {"properties": {"x": {"type": "integer"}}},
                        "else": {"properties": {"y": {"type": "boolean"}}},
                        "dependentSchemas": {"d": {"properties": {"e": true}}},
                        "not": {"properties": {"n": true}, "required": ["n", "never"]},
                        "patternProperties": {"^[0-9]+$": true},
                        "unevaluatedProperties": {"type": "integer"}
                    },
                    "nested": {
                        "allOf": [{"properties": {"a": true}, "unevaluatedProperties": {"type": "string"}}],
                        "unevaluatedProperties": false
                    },
                    "tree": {"$ref": "#/$defs/Tree"},
                    "items": {
                        "type": "array",
                        "prefixItems": [{"type": "string"}],
                        "anyOf": [{"prefixItems": [true, {"type": "integer"}]}, {"contains": {"const": "c"}}],
                        "unevaluatedItems": false
                    },
                    "open_items": {
                        "allOf": [{"unevaluatedItems": {"type": "integer"}}],
                        "unevaluatedItems": false
                    }
                },
                "unevaluatedProperties": false
            }),
        ),
    ]
}

// ---- the generator -------------------------------------------------------------------------------

const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "abc",
    "T-1",
    "T-12",
    "T-007",
    "T-١",
    "T-١٢",
    "T-",
    "t-1",
    "T-1\n",
    "\nT-1",
    "xT-1",
    "T-1a",
    "T-٣3",
    "low",
    "normal",
    "high",
    "High",
    "urgent",
    "fast",
    "safe",
    "circle",
    "square",
    "empty",
    "Unit",
    "Byte",
    "Red",
    "Green",
    "abc-def",
    "abc--def",
    "-abc",
    "é",
    "😀",
    "😀😀😀",
    "ab😀",
    "x/y~z",
    "5",
    "0",
    "-1",
    "1.5",
    "true",
    "null",
    "١٢٣",
    "42",
    "٣",
    " ",
    "a b",
];

/// Strings for the `format` cases: valid and nearly valid forms of each asserted format. `uri`
/// samples keep to what both definitions judge alike: jsonschema parses URIs fully (hosts, ports,
/// IPv6 literals), we check the characters of RFC 3986 only, so no samples with an authority
/// whose host or port is malformed.
const FORMATTED: &[&str] = &[
    "127.0.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "256.1.1.1",
    "1.2.3",
    "01.2.3.4",
    "1.2.3.4 ",
    "::1",
    "::",
    "fe80::1",
    "2001:db8::8a2e:370:7334",
    "::ffff:1.2.3.4",
    ":::",
    "1::2::3",
    "g::1",
    "123e4567-e89b-12d3-a456-426614174000",
    "123E4567-E89B-12D3-A456-426614174000",
    "123e4567e89b12d3a456426614174000",
    "123e4567-e89b-12d3-a456-42661417400",
    "{123e4567-e89b-12d3-a456-426614174000}",
    "2024-02-29",
    "2023-02-29",
    "2024-13-01",
    "2024-1-01",
    "2024-04-31",
    "2000-02-29",
    "1900-02-29",
    "23:59:60Z",
    "12:00:00Z",
    "12:00:00.5+01:00",
    "12:00:00",
    "24:00:00Z",
    "12:00:60Z",
    "23:59:60+00:00",
    "15:59:60-08:00",
    "12:00:00+1:00",
    "12:00:00.Z",
    "12:00:00z",
    "2024-02-29T12:00:00Z",
    "2024-02-29t12:00:00z",
    "2024-02-29 12:00:00Z",
    "2024-02-30T12:00:00Z",
    "2024-02-29T12:00:00",
    "P1D",
    "PT1H",
    "P1Y2M3DT4H5M6S",
    "P1W",
    "P1W2D",
    "P",
    "PT",
    "P1YT",
    "P1Y3D",
    "PT1H3S",
    "P1D1Y",
    "P1.5D",
    "-P1D",
    "https://example.com/a?b=c#d",
    "mailto:a@b.c",
    "urn:isbn:0451450523",
    "a:b",
    "http://ex.com/%41",
    "http://ex.com/%4",
    "http://ex.com/a b",
    "//example.com",
    "/relative",
    "1a:b",
    "http://ex.com/#a#b",
    "x+y.z-w:p",
    "é:x",
    "http://ex.com/é",
    "",
    "abc",
];

const KEYS: &[&str] = &[
    "a",
    "b",
    "10",
    "007",
    "-1",
    "٣",
    "1234",
    "4294967296",
    "ключ",
    "x/y~z",
    "",
    "colour",
];

const CHARS: &[char] = &['a', 'Z', '0', '9', 'é', '😀', '١', ' ', '-', 'T', '~', '/'];

struct Gen<'s> {
    rng: Rng,
    root: &'s Value,
    /// For this input, stay close to what the schema allows (no wild values, bounds respected),
    /// so that inputs with many arguments are still accepted often enough to test acceptance.
    clean: bool,
    /// `pattern` → a checker, for picking clean strings.
    patterns: HashMap<String, jsonschema::Validator>,
}

/// An integer as JSON: an integer Number when it fits, else the nearest float.
fn int_value(i: i128) -> Value {
    if let Ok(i) = i64::try_from(i) {
        json!(i)
    } else if let Ok(u) = u64::try_from(i) {
        json!(u)
    } else {
        json!(i as f64)
    }
}

fn bound(o: &Map<String, Value>, key: &str) -> Option<f64> {
    o.get(key).and_then(Value::as_f64)
}

impl<'s> Gen<'s> {
    fn deref(&self, mut s: &'s Value) -> &'s Value {
        while let Some(r) = s.get("$ref").and_then(Value::as_str) {
            s = self
                .root
                .pointer(r.trim_start_matches('#'))
                .expect("the generator follows only resolvable refs");
        }
        s
    }

    /// A value of any kind, unrelated to the schema.
    fn wild(&mut self) -> Value {
        match self.rng.below(16) {
            0 => Value::Null,
            1 => json!(true),
            2 => json!(false),
            3 => json!(0),
            4 => json!(-1),
            5 => json!(1.5),
            6 => json!(1e20),
            7 => json!(*self.rng.pick(&["5", "true", "null", "1.0", "", "T-١"])),
            8 => json!([]),
            9 => json!([1, "a"]),
            10 => json!({}),
            11 => json!({"a": 1}),
            12 => json!(18446744073709551615u64),
            13 => json!(-9223372036854775808i64),
            14 => json!(3.0),
            _ => {
                let n = self.rng.below(6);
                Value::String(self.string_of_len(n))
            }
        }
    }

    fn string_of_len(&mut self, n: usize) -> String {
        (0..n).map(|_| *self.rng.pick(CHARS)).collect()
    }

    /// True with probability `percent`%, never for a clean input.
    fn noise(&mut self, percent: u64) -> bool {
        !self.clean && self.rng.chance(percent)
    }

    fn value(&mut self, schema: &'s Value, depth: u32) -> Value {
        if self.noise(8) {
            return self.wild();
        }
        let schema = self.deref(schema);
        let Value::Object(o) = schema else {
            return self.wild();
        };
        if let Some(c) = o.get("const") {
            return if !self.noise(30) {
                c.clone()
            } else {
                self.wild()
            };
        }
        if let Some(Value::Array(e)) = o.get("enum") {
            return if !self.noise(30) {
                self.rng.pick(e).clone()
            } else {
                Value::String(self.rng.pick(STRINGS).to_string())
            };
        }
        if o.contains_key("unevaluatedProperties") && !self.noise(20) {
            return self.unevaluated_object(schema, depth);
        }
        if o.contains_key("unevaluatedItems") && !self.noise(20) {
            return self.unevaluated_array(schema, depth);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = o.get(key) {
                let branch = self.rng.pick(branches);
                return self.value(branch, depth);
            }
        }
        if o.contains_key("if") {
            let branch = if self.rng.chance(50) { "then" } else { "else" };
            if let Some(b) = o.get(branch) {
                return self.value(b, depth);
            }
        }
        let ty = match o.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(ts)) => self.rng.pick(ts).as_str().unwrap_or("null"),
            _ if o.contains_key("properties") => "object",
            _ if o.contains_key("items") || o.contains_key("prefixItems") => "array",
            _ => return self.wild(),
        };
        match ty {
            "integer" => self.integer(o),
            "number" => self.number(o),
            "string" => self.string(o),
            "boolean" => json!(self.rng.chance(50)),
            "null" => Value::Null,
            "array" => self.array(o, depth),
            "object" => self.object(o, depth),
            _ => self.wild(),
        }
    }

    fn integer(&mut self, o: &Map<String, Value>) -> Value {
        let mut edges: Vec<i128> = vec![0, 1, -1, 7, 42, 1 << 53, (1 << 53) + 1];
        edges.extend([i64::MAX as i128, i64::MAX as i128 + 1, i64::MIN as i128]);
        edges.extend([i64::MIN as i128 - 1, u64::MAX as i128, u64::MAX as i128 + 1]);
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if let Some(b) = o.get(key) {
                let b = b
                    .as_i64()
                    .map(i128::from)
                    .or(b.as_u64().map(i128::from))
                    .unwrap_or_else(|| b.as_f64().unwrap_or(0.0).round() as i128);
                edges.extend([b - 1, b, b + 1]);
            }
        }
        if self.clean {
            let lo = bound(o, "minimum").unwrap_or(f64::MIN);
            let hi = bound(o, "maximum").unwrap_or(f64::MAX);
            let lo_x = bound(o, "exclusiveMinimum").unwrap_or(f64::MIN);
            let hi_x = bound(o, "exclusiveMaximum").unwrap_or(f64::MAX);
            edges.retain(|&i| {
                let f = i as f64;
                f >= lo && f <= hi && f > lo_x && f < hi_x
            });
            if edges.is_empty() {
                edges.push(lo.max(0.0) as i128);
            }
        }
        let i = *self.rng.pick(&edges);
        if self.clean {
            return if self.rng.chance(80) {
                int_value(i)
            } else {
                json!(i as f64)
            };
        }
        match self.rng.below(10) {
            // The same integer written as a float: `5.0`.
            0 | 1 => json!(i as f64),
            2 => json!(i as f64 + 0.5),
            3 => json!(i.to_string()),
            _ => int_value(i),
        }
    }

    fn number(&mut self, o: &Map<String, Value>) -> Value {
        let mut edges = vec![
            0.0, -0.0, 0.5, 1.0, -1.0, 0.1, 1e-9, 1e300, -1e300, 3.0, 2.5, 2.75,
        ];
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if let Some(b) = bound(o, key) {
                edges.extend([b - 1.0, b - 1e-9, b, b + 1e-9, b + 1.0]);
            }
        }
        if self.clean {
            let lo = bound(o, "minimum").unwrap_or(f64::MIN);
            let hi = bound(o, "maximum").unwrap_or(f64::MAX);
            let lo_x = bound(o, "exclusiveMinimum").unwrap_or(f64::MIN);
            let hi_x = bound(o, "exclusiveMaximum").unwrap_or(f64::MAX);
            edges.retain(|&f| f >= lo && f <= hi && f > lo_x && f < hi_x);
        }
        let Some(&f) = (!edges.is_empty()).then(|| self.rng.pick(&edges)) else {
            return json!(0.5);
        };
        if self.clean {
            return json!(f);
        }
        match self.rng.below(10) {
            0 => json!(f.to_string()),
            1 => json!(f as i64),
            _ => json!(f),
        }
    }

    fn string(&mut self, o: &Map<String, Value>) -> Value {
        if let Some(f) = o.get("format").and_then(Value::as_str)
            && self.rng.chance(80)
        {
            if self.clean {
                // Clean inputs keep to the samples the reference finds in the format.
                let check = self
                    .patterns
                    .entry(format!("format:{f}"))
                    .or_insert_with(|| reference(&json!({"format": f})).unwrap());
                let fits: Vec<&str> = FORMATTED
                    .iter()
                    .copied()
                    .filter(|s| check.is_valid(&json!(s)))
                    .collect();
                return json!(*self.rng.pick(&fits));
            }
            return json!(*self.rng.pick(FORMATTED));
        }
        if self.clean {
            let min = o.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let max = o
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX) as usize;
            let pattern = o.get("pattern").and_then(Value::as_str).map(|p| {
                self.patterns.entry(p.to_owned()).or_insert_with(|| {
                    jsonschema::draft202012::new(&json!({"pattern": p})).unwrap()
                })
            });
            let fits: Vec<&str> = STRINGS
                .iter()
                .copied()
                .filter(|s| (min..=max).contains(&s.chars().count()))
                .filter(|s| pattern.as_ref().is_none_or(|p| p.is_valid(&json!(s))))
                .collect();
            if !fits.is_empty() {
                return json!(*self.rng.pick(&fits));
            }
        }
        if self.rng.chance(50) {
            return json!(*self.rng.pick(STRINGS));
        }
        let mut lens = vec![0, 1, 2, 3, 5];
        for key in ["minLength", "maxLength"] {
            if let Some(n) = o.get(key).and_then(Value::as_u64) {
                let n = n as usize;
                lens.extend([n.saturating_sub(1), n, n + 1]);
            }
        }
        let n = *self.rng.pick(&lens);
        if self.rng.chance(30) {
            // Digits for the patterns: ASCII and Arabic-Indic.
            let prefix = if self.rng.chance(50) { "T-" } else { "" };
            let digit = if self.rng.chance(70) { '4' } else { '٤' };
            let body: String = std::iter::repeat_n(digit, n.max(1)).collect();
            return json!(format!("{prefix}{body}"));
        }
        Value::String(self.string_of_len(n))
    }

    fn array(&mut self, o: &'s Map<String, Value>, depth: u32) -> Value {
        let mut lens = vec![0, 1, 2, 3];
        for key in ["minItems", "maxItems"] {
            if let Some(n) = o.get(key).and_then(Value::as_u64) {
                let n = n as usize;
                lens.extend([n.saturating_sub(1), n, n + 1]);
            }
        }
        let n = if depth > 4 { 0 } else { *self.rng.pick(&lens) };
        let prefix = o.get("prefixItems").and_then(Value::as_array);
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            let schema = prefix
                .and_then(|p| p.get(i))
                .or(o.get("items"))
                .or(o.get("contains"));
            items.push(match schema {
                Some(s) => self.value(s, depth + 1),
                None => self.wild(),
            });
        }
        if !items.is_empty() && self.rng.chance(20) {
            let dup = self.rng.pick(&items).clone();
            items.push(dup);
        }
        Value::Array(items)
    }

    fn object(&mut self, o: &'s Map<String, Value>, depth: u32) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(props)) = o.get("properties") {
            for (name, schema) in props {
                let is_required = required.contains(&name.as_str());
                let keep = if depth > 4 {
                    is_required
                } else if is_required {
                    !self.noise(4)
                } else {
                    self.rng.chance(50)
                };
                if keep {
                    let v = self.value(schema, depth + 1);
                    out.insert(name.clone(), v);
                }
            }
        }
        let patterns = o.get("patternProperties").and_then(Value::as_object);
        let additional = o.get("additionalProperties");
        let open = patterns.is_some() || additional.is_some_and(Value::is_object);
        let extra = if open && depth <= 4 {
            self.rng.below(4)
        } else {
            usize::from(self.noise(8))
        };
        for _ in 0..extra {
            let key = self.rng.pick(KEYS).to_string();
            let schema = patterns
                .and_then(|p| p.values().next())
                .filter(|_| self.rng.chance(50))
                .or(additional.filter(|a| a.is_object()));
            let v = match schema {
                Some(s) => self.value(s, depth + 1),
                None => self.wild(),
            };
            out.insert(key, v);
        }
        Value::Object(out)
    }

    /// Every subschema `s` applies in place (itself included), `$ref`s followed.
    fn in_place(&self, s: &'s Value, found: &mut Vec<&'s Value>) {
        let s = self.deref(s);
        if found.iter().any(|f| std::ptr::eq(*f, s)) {
            return;
        }
        found.push(s);
        let Value::Object(o) = s else { return };
        for key in ["allOf", "anyOf", "oneOf"] {
            for b in o.get(key).and_then(Value::as_array).into_iter().flatten() {
                self.in_place(b, found);
            }
        }
        for key in ["if", "then", "else", "not"] {
            if let Some(b) = o.get(key) {
                self.in_place(b, found);
            }
        }
        for b in o
            .get("dependentSchemas")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.values())
        {
            self.in_place(b, found);
        }
    }

    /// For `unevaluatedProperties`: an object mixing the keys every in-place subschema names,
    /// the keys `dependentSchemas` depend on, and a stray key now and then.
    fn unevaluated_object(&mut self, schema: &'s Value, depth: u32) -> Value {
        let mut found = Vec::new();
        self.in_place(schema, &mut found);
        let mut named: Vec<(&'s String, &'s Value)> = Vec::new();
        for s in &found {
            for key in ["properties", "dependentSchemas"] {
                if let Some(Value::Object(props)) = s.get(key) {
                    named.extend(props.iter());
                }
            }
        }
        let mut out = Map::new();
        for (name, s) in named {
            if self.rng.chance(50) && !out.contains_key(name) {
                let v = if depth > 4 || !s.is_object() || s.get("type").is_none() {
                    self.rng
                        .pick(&[json!(1), json!("x"), json!("circle"), json!(true)])
                        .clone()
                } else {
                    self.value(s, depth + 1)
                };
                out.insert(name.clone(), v);
            }
        }
        if self.rng.chance(20) {
            out.insert(self.rng.pick(KEYS).to_string(), self.wild());
        }
        Value::Object(out)
    }

    /// For `unevaluatedItems`: a short array of the kinds of items the subschemas name.
    fn unevaluated_array(&mut self, schema: &'s Value, depth: u32) -> Value {
        let mut found = Vec::new();
        self.in_place(schema, &mut found);
        let mut kinds: Vec<&'s Value> = Vec::new();
        for s in &found {
            kinds.extend(
                s.get("prefixItems")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            );
            kinds.extend(["items", "contains"].iter().filter_map(|k| s.get(*k)));
        }
        let n = self.rng.below(5);
        (0..n)
            .map(|_| match kinds.is_empty() || self.rng.chance(20) {
                true => self.wild(),
                false => {
                    let k = *self.rng.pick(&kinds);
                    self.value(k, depth + 1)
                }
            })
            .collect()
    }

    /// The whole arguments object.
    fn arguments(&mut self) -> Value {
        self.clean = self.rng.chance(40);
        if self.noise(1) {
            return self.wild();
        }
        self.value(self.root, 0)
    }
}

// ---- the comparison ------------------------------------------------------------------------------

/// The reference: jsonschema, Draft 2020-12, with format assertion on. `ip` is not a standard
/// format; schemars publishes it for `IpAddr`, meaning either address family.
fn reference(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_format("ip", |s: &str| s.parse::<std::net::IpAddr>().is_ok())
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The integer formats (`int64`, `uint8`, …) are not standard, so jsonschema ignores them. The
/// reference gets the range each one means as `minimum`/`maximum` instead.
fn int_formats_as_bounds(schema: &Value) -> Value {
    let mut s = schema.clone();
    fn walk(v: &mut Value) {
        match v {
            Value::Object(o) => {
                let range = match o.get("format").and_then(Value::as_str) {
                    Some("int8") => Some((json!(i8::MIN), json!(i8::MAX))),
                    Some("int32") => Some((json!(i32::MIN), json!(i32::MAX))),
                    Some("int64") => Some((json!(i64::MIN), json!(i64::MAX))),
                    Some("uint8") => Some((json!(0), json!(u8::MAX))),
                    Some("uint64") => Some((json!(0), json!(u64::MAX))),
                    _ => None,
                };
                if let Some((lo, hi)) = range {
                    o.insert("minimum".into(), lo);
                    o.insert("maximum".into(), hi);
                }
                o.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut s);
    s
}

/// An integer-valued number outside `i64`: our schema says `integer`, serde's `i64` says no.
fn beyond_i64(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.as_i64().is_none() && (n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0))
        }
        _ => false,
    }
}

/// A map key that `^\d+$` admits and `u32` does not hold: schemars publishes integer map keys
/// without their range.
fn key_beyond_u32(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.keys()
            .any(|k| k.parse::<u128>().is_ok_and(|n| n > u32::MAX as u128))
    })
}

#[derive(Default, Debug)]
struct Counts {
    inputs: usize,
    accepted: usize,
    rejected: usize,
    disagreements: usize,
    /// Accepted inputs that serde refused within a documented gap.
    gaps: usize,
    /// Verdicts that differ on an integral float at or beyond 2^53 (see `holds_inexact_float`).
    inexact: usize,
}

fn run_case(case: &Case, seed: u64) -> Counts {
    let ours = Validator::compile(&case.schema)
        .unwrap_or_else(|e| panic!("{}: our validator refuses the schema: {e}", case.name));
    let reference = reference(&int_formats_as_bounds(&case.schema))
        .unwrap_or_else(|e| panic!("{}: jsonschema refuses the schema: {e}", case.name));
    let mut generator = Gen {
        rng: Rng(seed),
        root: &case.schema,
        clean: false,
        patterns: HashMap::new(),
    };
    let mut counts = Counts::default();
    let mut examples = Vec::new();
    for _ in 0..INPUTS {
        let input = generator.arguments();
        let expected = reference.is_valid(&input);
        let inexact = holds_inexact_float(&input);

        let mut probed = input.clone();
        let quick = ours.is_valid(&mut probed);
        let mut args = input.clone();
        let violations = ours.validate(&mut args);
        let accepted = violations.is_empty();
        assert_eq!(
            quick, accepted,
            "{}: is_valid vs validate on {input}",
            case.name
        );
        if accepted {
            assert_eq!(probed, args, "{}: both modes rewrite alike", case.name);
        }
        // Rewriting integral floats never changes the verdict.
        assert_eq!(
            reference.is_valid(&args),
            expected,
            "{}: rewrite of {input}",
            case.name
        );
        for v in &violations {
            assert!(!v.message.is_empty());
            assert!(
                v.message.chars().count() < 300,
                "{}: long message {}",
                case.name,
                v.message
            );
        }

        counts.inputs += 1;
        if accepted {
            counts.accepted += 1;
        } else {
            counts.rejected += 1;
        }
        if accepted != expected && inexact {
            counts.inexact += 1;
            continue;
        }
        if accepted != expected {
            counts.disagreements += 1;
            if examples.len() < 5 {
                examples.push(format!(
                    "  {input}\n    ours: {violations:?}\n    jsonschema: {expected}"
                ));
            }
            continue;
        }
        if !accepted {
            continue;
        }
        // Accepted: every argument deserializes into its Rust type, as the handler will.
        let Value::Object(map) = &args else {
            panic!("{}: accepted a non-object {args}", case.name)
        };
        for arg in &case.args {
            let flattened;
            let v = match &arg.flat {
                Some(keys) => {
                    flattened = flat_value(map, keys, &case.args);
                    &flattened
                }
                None => match map.get(arg.name) {
                    Some(v) => v,
                    None => continue,
                },
            };
            match (arg.check)(v) {
                Ok(()) => {}
                // A documented gap: the call path reports it as invalid arguments.
                Err(_) if arg.gap.is_some_and(|gap| gap(v)) => counts.gaps += 1,
                Err(e) => panic!(
                    "{}: /{} = {v} passed validation but does not deserialize: {e}",
                    case.name, arg.name
                ),
            }
        }
    }
    println!(
        "{:<28} inputs {:>6}  accepted {:>6}  rejected {:>6}  disagreements {}{}",
        case.name,
        counts.inputs,
        counts.accepted,
        counts.rejected,
        counts.disagreements,
        if counts.gaps > 0 {
            format!(
                "  (documented gap: {} accepted, refused by serde)",
                counts.gaps
            )
        } else {
            String::new()
        } + &if counts.inexact > 0 {
            format!(
                "  (differ on integral floats beyond 2^53: {})",
                counts.inexact
            )
        } else {
            String::new()
        }
    );
    assert!(
        counts.disagreements == 0,
        "{}: {} disagreements with jsonschema, e.g.\n{}",
        case.name,
        counts.disagreements,
        examples.join("\n")
    );
    // A generator that only produced one verdict would prove little.
    assert!(
        counts.accepted >= INPUTS / 20,
        "{}: too few accepted: {counts:?}",
        case.name
    );
    assert!(
        counts.rejected >= INPUTS / 20,
        "{}: too few rejected: {counts:?}",
        case.name
    );
    counts
}

/// What a flattened argument receives from the accepted arguments: the keys its struct publishes,
/// and with a catch-all map every key no other argument declares.
fn flat_value(args: &Map<String, Value>, keys: &FlatKeys, all: &[Arg]) -> Value {
    let declared = |k: &String| {
        all.iter().any(|a| match &a.flat {
            Some(f) => f.names.contains(k),
            None => a.name == k,
        })
    };
    let taken = args
        .iter()
        .filter(|(k, _)| keys.names.contains(k) || (keys.catch_all && !declared(k)));
    Value::Object(taken.map(|(k, v)| (k.clone(), v.clone())).collect())
}

#[test]
fn agrees_with_jsonschema_on_input_schemas() {
    let mut total = Counts::default();
    let all = [cases(), raw_cases(), flatten_cases()]
        .into_iter()
        .flatten();
    for (i, case) in all.enumerate() {
        let c = run_case(&case, 0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1));
        total.inputs += c.inputs;
        total.disagreements += c.disagreements;
        total.gaps += c.gaps;
    }
    println!(
        "total: {} inputs, {} disagreements",
        total.inputs, total.disagreements
    );
    // The gaps are real and exercised: generated values do reach them.
    assert!(total.gaps > 0);
}

// ---- tools defined with #[tool], called through the table -------------------------------------

/// Add an open task.
#[tool]
async fn add_task(
    /// The task's title.
    #[arg(min_length = 3, max_length = 80)]
    title: String,
    #[arg(default = Priority::Normal)] priority: Priority,
    note: Option<String>,
) -> Result<String, ToolError> {
    let _ = (note, priority);
    Ok(title)
}

/// Look an order up.
#[tool(read_only)]
async fn lookup(
    #[arg(pattern = r"^T-\d+$")] task_id: String,
    order_id: u32,
    #[arg(minimum = 1, maximum = 100)] limit: Option<u8>,
    address: Option<Address>,
    shape: Shape,
) -> String {
    let _ = (order_id, limit, address, shape);
    task_id
}

/// Search a shop: three flattened structs, one with a catch-all map, beside an argument.
#[tool]
fn search_shop(
    #[arg(min_length = 1)] shop: String,
    #[arg(flatten)] params: Search,
    #[arg(flatten)] page: Paging,
    #[arg(flatten)] extras: Extras,
) -> String {
    let _ = (params, page, extras);
    shop
}

#[tokio::test]
async fn agrees_with_jsonschema_through_the_tool_table() {
    let table = tools![add_task, lookup, search_shop];
    let state = Arc::new(StateMap::new());
    for (i, tool) in table.iter().enumerate() {
        let schema = tool.input_schema().clone();
        let reference = jsonschema::draft202012::new(&schema).expect("jsonschema compiles it");
        let mut generator = Gen {
            rng: Rng(0xD1B5_4A32_D192_ED03 ^ i as u64),
            root: &schema,
            clean: false,
            patterns: HashMap::new(),
        };
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..INPUTS {
            let mut input = generator.arguments();
            if !input.is_object() {
                input = json!({});
            }
            let expected = reference.is_valid(&input);
            let result = call_detached(&table, &state, tool.name(), input.clone()).await;
            let text = result.first_text().unwrap_or_default();
            let invalid = result.is_error && text.starts_with("Invalid arguments for tool ");
            assert_eq!(
                !invalid,
                expected,
                "{}: {input} -> {text} (jsonschema: {expected})",
                tool.name()
            );
            assert_eq!(
                result.is_error,
                invalid,
                "{}: {input} -> {text}",
                tool.name()
            );
            if expected {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
        println!(
            "{:<28} inputs {:>6}  accepted {:>6}  rejected {:>6}  disagreements 0",
            format!("#[tool] {}", tool.name()),
            INPUTS,
            accepted,
            rejected
        );
        assert!(accepted >= INPUTS / 20 && rejected >= INPUTS / 20);
    }
}

/// Takes a count.
#[tool]
async fn count(n: i64) -> i64 {
    n
}

/// The one gap of the `i64` profile, end to end: an integer beyond `i64` passes the published
/// schema and is refused by deserialization, as invalid arguments rather than a failure.
#[tokio::test]
async fn i64_gap_is_reported_as_invalid_arguments() {
    let table = tools![count];
    let state = Arc::new(StateMap::new());
    for (n, ok) in [
        (json!(9223372036854775807i64), true),
        (json!(9223372036854775808u64), false),
    ] {
        let result = call_detached(&table, &state, "count", json!({ "n": n })).await;
        let text = result.first_text().unwrap_or_default().to_owned();
        assert_eq!(result.is_error, !ok, "{text}");
        if !ok {
            assert!(
                text.starts_with("Invalid arguments for tool count: /n: "),
                "{text}"
            );
        }
    }
}

// ---- tagged unions: every serde representation, and three levels deep ---------------------------
//
// Their messages are explained per branch (the discriminator, the selected variant's own
// violations); the verdict must not move, and no refusal falls back to the generic message.

/// Adjacently tagged: newtype, struct, tuple and unit variants.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c", rename_all = "snake_case")]
#[allow(dead_code)]
enum Payload {
    Count(u16),
    Span { from: i8, to: i8 },
    Pair(bool, String),
    Blank,
}

/// Internally tagged, a variant holding a struct.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "action")]
#[allow(dead_code)]
enum Action {
    #[serde(rename = "circle")]
    Draw(Tree),
    #[serde(rename = "square")]
    Resize { side: u8, keep_ratio: Option<bool> },
    #[serde(rename = "empty")]
    Clear,
}

/// Untagged, object shapes that overlap and a scalar.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Place {
    Point { a: i32, b: i32 },
    Named { a: String, floor: Option<u8> },
    Code(u32),
}

/// Level one: internally tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Level1 {
    Circle { level2: Level2 },
    Empty,
}

/// Level two: adjacently tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
#[allow(dead_code)]
enum Level2 {
    Unit(Level3),
    Byte,
}

/// Level three: externally tagged, then untagged inside.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Level3 {
    Red,
    Green { id: Id, tags: Vec<String> },
    Byte(u8),
}

fn union_cases() -> Vec<Case> {
    // Adjacently and internally tagged; externally tagged and untagged, alone and in arrays.
    let tagged = CaseBuilder::new("unions: adjacent, internal")
        .arg::<Payload>("payload", none())
        .opt::<Action>("action", none());
    let untagged = CaseBuilder::new("unions: external, untagged")
        .arg::<External>("external", none())
        .arg::<Place>("place", none())
        .opt::<Vec<Place>>("places", none());
    let deep = CaseBuilder::new("unions: three levels")
        .arg::<Level1>("outer", none())
        .opt::<Vec<Level1>>("more", none());
    [tagged, untagged, deep].map(CaseBuilder::build).into()
}

#[test]
fn agrees_with_jsonschema_on_tagged_unions() {
    for (i, case) in union_cases().iter().enumerate() {
        let seed = 0xA076_1D64_78BD_642F ^ (i as u64 + 1);
        run_case(case, seed);
        // The same inputs again, for the messages: specific, never the generic fallback.
        let ours = Validator::compile(&case.schema).expect("compiles");
        let mut generator = Gen {
            rng: Rng(seed),
            root: &case.schema,
            clean: false,
            patterns: HashMap::new(),
        };
        let mut explained = 0;
        for _ in 0..INPUTS {
            let mut input = generator.arguments();
            let violations = ours.validate(&mut input);
            for v in &violations {
                assert!(
                    !v.message.contains("allowed shapes"),
                    "{}: {input}: {}: {}",
                    case.name,
                    v.path,
                    v.message
                );
            }
            explained += usize::from(violations.iter().any(|v| v.path.matches('/').count() > 1));
        }
        // Refusals deep inside the unions are reported where they are, not at the union.
        assert!(explained > INPUTS / 20, "{}: {explained}", case.name);
    }
}
