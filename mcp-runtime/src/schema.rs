//! The schema profile: how argument and return types become the published inputSchema and
//! outputSchema (JSON Schema 2020-12, nested types inlined, pydantic-style optionals).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::output::OutputSchema;

/// A numeric bound as written in `#[arg(...)]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// A signed integer literal.
    Int(i64),
    /// An unsigned integer literal above `i64::MAX`.
    UInt(u64),
    /// A float literal.
    Float(f64),
}

impl Num {
    fn to_json(self) -> Value {
        match self {
            Num::Int(i) => json!(i),
            Num::UInt(u) => json!(u),
            Num::Float(f) => json!(f),
        }
    }
}

/// The constraints of one argument, as given in `#[arg(...)]`.
#[derive(Debug, Clone, Default)]
pub struct Constraints {
    /// `pattern` (ECMA-262).
    pub pattern: Option<&'static str>,
    /// `minimum`
    pub minimum: Option<Num>,
    /// `maximum`
    pub maximum: Option<Num>,
    /// `exclusiveMinimum`
    pub exclusive_minimum: Option<Num>,
    /// `exclusiveMaximum`
    pub exclusive_maximum: Option<Num>,
    /// `minLength` (code points)
    pub min_length: Option<u64>,
    /// `maxLength` (code points)
    pub max_length: Option<u64>,
    /// `minItems`
    pub min_items: Option<u64>,
    /// `maxItems`
    pub max_items: Option<u64>,
    /// A fixed set of allowed values, published as `enum`.
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
        }
    }

    /// Declares an argument of type `T`.
    pub fn arg<T: JsonSchema>(&mut self, spec: ArgSpec) {
        let mut schema = self.subschema::<T>();
        apply_constraints(&mut schema, &spec.constraints);
        let required = spec.default.is_none();
        self.push(spec, schema, required);
    }

    /// Declares an `Option<U>` argument: optional, and null means absent.
    pub fn option_arg<U: JsonSchema>(&mut self, mut spec: ArgSpec) {
        let mut inner = self.subschema::<U>();
        apply_constraints(&mut inner, &spec.constraints);
        let schema = json!({"anyOf": [inner, {"type": "null"}]});
        if spec.default.is_none() {
            spec.default = Some(Value::Null);
        }
        self.push(spec, schema, false);
    }

    fn subschema<T: JsonSchema>(&mut self) -> Value {
        let mut v = self.generator.subschema_for::<T>().to_value();
        normalize(&mut v);
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
        root.insert("additionalProperties".into(), false.into());
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            let mut defs = Value::Object(defs);
            normalize(&mut defs);
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
    let mut set = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            obj.insert(k.into(), v);
        }
    };
    set("pattern", c.pattern.map(Value::from));
    set("minimum", c.minimum.map(Num::to_json));
    set("maximum", c.maximum.map(Num::to_json));
    set("exclusiveMinimum", c.exclusive_minimum.map(Num::to_json));
    set("exclusiveMaximum", c.exclusive_maximum.map(Num::to_json));
    set("minLength", c.min_length.map(Value::from));
    set("maxLength", c.max_length.map(Value::from));
    set("minItems", c.min_items.map(Value::from));
    set("maxItems", c.max_items.map(Value::from));
    set("enum", c.one_of.clone().map(Value::Array));
}

/// Applies the profile to a generated schema: drops Rust-specific `format`s and gives every
/// integer type except `i64` the bounds its deserializer enforces.
pub(crate) fn normalize(v: &mut Value) {
    match v {
        Value::Object(obj) => {
            if let Some(Value::String(f)) = obj.get("format") {
                let bounds: Option<(Option<i128>, Option<i128>)> = match f.as_str() {
                    "int8" => Some((Some(i8::MIN as i128), Some(i8::MAX as i128))),
                    "int16" => Some((Some(i16::MIN as i128), Some(i16::MAX as i128))),
                    "int32" => Some((Some(i32::MIN as i128), Some(i32::MAX as i128))),
                    "uint8" => Some((Some(0), Some(u8::MAX as i128))),
                    "uint16" => Some((Some(0), Some(u16::MAX as i128))),
                    "uint32" => Some((Some(0), Some(u32::MAX as i128))),
                    "uint64" | "uint" => Some((Some(0), Some(u64::MAX as i128))),
                    "int64" | "int" | "float" | "double" => Some((None, None)),
                    _ => None,
                };
                if let Some((lo, hi)) = bounds {
                    obj.remove("format");
                    if let Some(lo) = lo {
                        obj.entry("minimum").or_insert_with(|| json!(lo as i64));
                    }
                    if let Some(hi) = hi {
                        obj.entry("maximum").or_insert_with(|| {
                            if hi > i64::MAX as i128 {
                                json!(hi as u64)
                            } else {
                                json!(hi as i64)
                            }
                        });
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

/// The outputSchema of `T`: its own schema when it is an object, else `{"result": T}`.
pub fn output_schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> OutputSchema {
    let mut schema = generator.root_schema_for::<T>().to_value();
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
        let title = schema.get("title").cloned();
        let mut inner = schema;
        let defs = inner.as_object_mut().and_then(|o| o.remove("$defs"));
        if let Some(o) = inner.as_object_mut() {
            o.remove("title");
        }
        let mut root = json!({
            "type": "object",
            "properties": {"result": inner},
            "required": ["result"],
        });
        let _ = title;
        if let Some(defs) = defs {
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
