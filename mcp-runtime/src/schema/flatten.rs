//! `#[arg(flatten)]`: one struct's fields published as the tool's own top-level arguments, and
//! which property comes from where, so that two sources of one name are reported by
//! `ServerBuilder::build`, naming both.

use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::{InputSchema, strict};

/// What a flattened struct receives at call time: the properties it publishes, and whether it
/// also takes the keys nothing else declares (a `#[serde(flatten)]` catch-all map inside it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlatKeys {
    /// The published property names.
    pub names: Vec<String>,
    /// True when the struct's schema admits undeclared keys.
    pub catch_all: bool,
}

/// Keywords that may stand beside `properties` in a flattened struct's schema; any other one
/// (`oneOf` for a flattened enum, `patternProperties` for a map with integer keys, ...) would have
/// to move to the top level of the inputSchema, where clients expect plain properties.
const HOISTED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "title",
    "description",
    "examples",
];

/// The keys a flattened `T` receives; read from the same schema its arguments are published with.
pub fn flat_keys<T: JsonSchema>() -> FlatKeys {
    let schema = InputSchema::new().subschema_open::<T>();
    let names = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    FlatKeys {
        names,
        catch_all: is_catch_all(schema.get("additionalProperties")),
    }
}

/// An `additionalProperties` that admits undeclared keys (absent is not one: the struct's fields
/// are closed like any other object's).
fn is_catch_all(additional: Option<&Value>) -> bool {
    additional.is_some_and(|a| a != &Value::Bool(false))
}

impl InputSchema {
    /// Declares the fields of `T` as top-level arguments: its properties (their descriptions,
    /// defaults and constraints), its required list, and its catch-all map if it has one. `arg`
    /// is the parameter's name, for messages. A `T` whose schema is not a plain object (an enum,
    /// a flattened enum inside it, an `Option`) is reported by [`InputSchema::problems`].
    pub fn flatten<T: JsonSchema>(&mut self, arg: &'static str) {
        let source = format!(
            "the flattened argument `{arg}` (`{}`)",
            std::any::type_name::<T>()
        );
        let schema = self.subschema_open::<T>();
        self.flatten_schema(source, schema);
    }

    /// [`Self::flatten`] once `T`'s schema is generated: compiled once, not once per type.
    fn flatten_schema(&mut self, source: String, schema: Value) {
        // Its own top level becomes the tool's, which is closed in `finish`; its fields' schemas
        // are closed here like any argument's.
        let Value::Object(mut schema) = schema else {
            self.problems.push(format!("{source} is not a struct"));
            return;
        };
        // An enum (a `oneOf` of objects, or a string `enum`) has no fixed fields to publish.
        let union = ["oneOf", "anyOf", "enum", "const"]
            .iter()
            .any(|k| schema.contains_key(*k));
        if union && !schema.contains_key("properties") {
            self.problems.push(format!(
                "{source} is an enum: `#[arg(flatten)]` publishes a struct's fields as the tool's \
                 own arguments, and an enum has no fixed fields; take it as an ordinary argument \
                 (without `#[arg(flatten)]`), or flatten a struct that holds it as a field"
            ));
            return;
        }
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            self.problems.push(format!(
                "{source} must be a struct with named fields; its schema is not an object"
            ));
            return;
        }
        let extra: Vec<&String> = schema
            .keys()
            .filter(|k| !HOISTED.contains(&k.as_str()))
            .collect();
        if !extra.is_empty() {
            let list = extra
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.problems.push(format!(
                "{source} publishes {list} beside its properties (a `#[serde(flatten)]` enum \
                 inside it?), which would have to stand at the top level of the inputSchema, \
                 where clients expect plain properties; take it as an ordinary argument instead"
            ));
            return;
        }
        let properties = match schema.remove("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        // Names another source already publishes, grouped by that source: one problem each.
        let mut taken: Vec<(String, Vec<String>)> = Vec::new();
        for (name, mut property) in properties {
            strict::close_objects(&mut property);
            match self.sources.get(&name) {
                Some(first) => match taken.iter_mut().find(|(s, _)| s == first) {
                    Some((_, names)) => names.push(name),
                    None => taken.push((first.clone(), vec![name])),
                },
                None => {
                    self.sources.insert(name.clone(), source.clone());
                    self.properties.insert(name, property);
                }
            }
        }
        for (first, names) in taken {
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            self.problems
                .push(collision(&names.join(", "), &first, &source));
        }
        if let Some(Value::Array(required)) = schema.remove("required") {
            self.required.extend(required);
        }
        match schema.remove("additionalProperties") {
            Some(mut open) if is_catch_all(Some(&open)) => match &self.catch_all {
                Some(first) => self.problems.push(format!(
                    "{first} and {source} both take the arguments no one declares; keep one catch-all map"
                )),
                None => {
                    strict::close_objects(&mut open);
                    self.catch_all = Some(source);
                    self.additional = Some(open);
                }
            },
            _ => {}
        }
    }

    /// Records that `source` publishes property `name`; false (and a problem) when another source
    /// already does.
    pub(super) fn claim(&mut self, name: &str, source: &str) -> bool {
        match self.sources.get(name) {
            Some(first) => {
                let problem = collision(&format!("`{name}`"), first, source);
                self.problems.push(problem);
                false
            }
            None => {
                self.sources.insert(name.to_owned(), source.to_owned());
                true
            }
        }
    }

    /// What makes the declared arguments impossible to publish as one inputSchema: a name two
    /// sources publish, a flattened type that is not a plain struct, two catch-all maps.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

/// The problem of argument names published by two sources.
fn collision(names: &str, first: &str, second: &str) -> String {
    format!(
        "the argument name(s) {names} are published by both {first} and {second}; rename one \
         (`#[arg(rename = \"...\")]` on an argument, `#[serde(rename = \"...\")]` on a field)"
    )
}
