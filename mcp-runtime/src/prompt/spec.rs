//! What one generated prompt is: its static spec (from `#[prompt]`), the built prompt a server
//! serves (its argument list, its validator), and the set `prompts![…]` lists.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::prompt::complete::CompleteFn;
use crate::prompt::message::GetPromptResult;
use crate::schema::InputSchema;
use crate::tool::handler::CallParts;
use crate::tool::panic::catch_sync;
use crate::tool::state::StateReq;
use crate::validate::{Formats, Validator};

/// The handler generated for a prompt: validated arguments, context and state in; the messages out.
pub type PromptHandler = fn(CallParts) -> BoxFuture<'static, Result<GetPromptResult, ToolError>>;

/// The static description `#[prompt]` generates for one function: what `prompts/list` publishes
/// (`name`, `title`, `description`, the arguments `input` declares) and what `prompts/get` runs.
#[derive(Clone, Copy)]
pub struct PromptSpec {
    #[allow(missing_docs)]
    pub name: &'static str,
    #[allow(missing_docs)]
    pub title: Option<&'static str>,
    /// The doc comment, or `description = "…"`.
    pub description: &'static str,
    /// Declares the arguments into a schema builder, as for a tool: the validator's schema.
    pub input: fn(&mut InputSchema),
    /// The handler.
    pub handler: PromptHandler,
    /// The state types the prompt borrows.
    pub state: fn() -> Vec<StateReq>,
    /// The `complete = fn` of each argument, by published name.
    pub completers: fn() -> Vec<(&'static str, CompleteFn)>,
    /// The OAuth scopes a `prompts/get` needs behind authorization (`#[prompt(scopes = [...])]`).
    pub scopes: &'static [&'static str],
}

/// What `prompts![…]` lists: the struct of one `#[prompt]` function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[prompt]` function",
    label = "`prompts![...]` lists `#[prompt]` functions",
    note = "add `#[prompt]` to the function"
)]
pub trait PromptSet {
    /// The prompts' static specs.
    fn specs() -> Vec<PromptSpec>;
    /// The published names; `prompts![…]` compares them at compile time.
    const NAMES: &'static [&'static str];
}

/// Implemented by the struct `#[prompt]` emits beside each function: its one spec.
pub trait PromptDef {
    /// The prompt's static spec.
    fn spec() -> PromptSpec;
}

/// One argument as `prompts/list` publishes it (its `Serialize`), and how its string value is
/// read.
#[derive(Debug, Clone, Serialize)]
pub struct PromptArgument {
    /// The published name.
    pub name: String,
    /// Its description, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must give it.
    pub required: bool,
    /// True when the parameter's type takes a string as is; otherwise the string is read as
    /// JSON (`"3"` → `3`, `"true"` → `true`, `"[1,2]"` → `[1, 2]`).
    #[serde(skip)]
    pub(crate) string_like: bool,
    /// The values a fixed string `enum` allows (completed from automatically).
    #[serde(skip)]
    pub(crate) choices: Vec<String>,
}

/// A prompt ready to serve: its argument list and validator built once.
#[derive(Clone)]
pub struct Prompt {
    pub(crate) spec: PromptSpec,
    pub(crate) arguments: Arc<[PromptArgument]>,
    pub(crate) validator: Arc<Validator>,
    pub(crate) completers: Arc<[(&'static str, CompleteFn)]>,
    pub(crate) listing: Arc<Value>,
}

impl Prompt {
    /// Builds the argument list and the validator, or says why the prompt cannot be served.
    /// A format of the arguments that nobody checks is an annotation here; a server refuses it
    /// ([`crate::ServerBuilder::format`]).
    pub fn try_build(spec: PromptSpec) -> Result<Self, String> {
        Prompt::try_build_with(spec, &Formats::new().allow_unchecked())
    }

    /// [`Prompt::try_build`] with a server's own string formats; a format nobody checks is a
    /// problem unless `formats` allows it.
    pub(crate) fn try_build_with(spec: PromptSpec, formats: &Formats) -> Result<Self, String> {
        let (schema, problems) = catch_sync(|| {
            let mut input = InputSchema::new();
            (spec.input)(&mut input);
            let problems = input.problems().join("; ");
            (input.finish(), problems)
        })
        .map_err(|p| {
            format!(
                "generating its arguments panicked at {}: {}",
                p.location, p.message
            )
        })?;
        if !problems.is_empty() {
            return Err(problems);
        }
        let validator = Validator::compile_with(&schema, formats)
            .map_err(|e| format!("its arguments cannot be validated: {e}"))?;
        if !formats.unchecked_allowed()
            && let Some(u) = validator.unchecked_formats().first()
        {
            return Err(format!(
                "its arguments name the format \"{name}\" at {at}, which nothing checks: register \
                 a check with ServerBuilder::format(\"{name}\", …), or allow formats nobody checks \
                 with ServerBuilder::allow_unchecked_formats()",
                name = u.name,
                at = u.at
            ));
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut arguments = Vec::new();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                arguments.push(PromptArgument {
                    name: name.clone(),
                    description: prop
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    required: required.contains(&name.as_str()),
                    string_like: admits_string(prop, &schema, 0),
                    choices: string_choices(prop, &schema, 0),
                });
            }
        }
        let completers: Arc<[_]> = (spec.completers)().into();
        for (name, _) in completers.iter() {
            if !arguments.iter().any(|a| a.name == *name) {
                return Err(format!("`complete` names no argument `{name}`"));
            }
        }
        let listing = listing(&spec, &arguments);
        Ok(Prompt {
            spec,
            arguments: arguments.into(),
            validator: Arc::new(validator),
            completers,
            listing: Arc::new(listing),
        })
    }

    /// The published name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }
    /// The spec it was built from: name, title, description.
    pub fn spec(&self) -> &PromptSpec {
        &self.spec
    }
    /// The arguments, in signature order.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.arguments
    }
    /// The `prompts/list` entry for this prompt, made once when the prompt was built (a
    /// reference, not a serializer: the table encodes it once for every page, BENCHMARKS.md
    /// "list entries encoded once").
    pub fn to_json(&self) -> &Value {
        &self.listing
    }
    /// The state types this prompt borrows.
    pub fn state_requirements(&self) -> Vec<StateReq> {
        (self.spec.state)()
    }
    /// True when some argument completes: a `complete = fn`, or a fixed set of string values.
    pub fn completes(&self) -> bool {
        !self.completers.is_empty() || self.arguments.iter().any(|a| !a.choices.is_empty())
    }
}

/// A prompt's `prompts/list` entry, serialized once when the prompt is built.
#[derive(Serialize)]
struct Entry<'a> {
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'static str>,
    description: &'static str,
    #[serde(skip_serializing_if = "<[PromptArgument]>::is_empty")]
    arguments: &'a [PromptArgument],
}

fn listing(spec: &PromptSpec, arguments: &[PromptArgument]) -> Value {
    let entry = Entry {
        name: spec.name,
        title: spec.title,
        description: spec.description,
        arguments,
    };
    serde_json::to_value(entry).expect("a prompt's entry serializes")
}

/// How deep `$ref`s and `anyOf`s are followed while reading an argument's schema.
const MAX_DEPTH: usize = 8;

/// The schema `s` points to when it is a local `$ref` (`#/$defs/Name`), else `s`.
fn resolve<'a>(s: &'a Value, root: &'a Value) -> &'a Value {
    let target = s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer));
    target.unwrap_or(s)
}

/// The branches of an `anyOf`/`oneOf`, if `s` has them.
fn branches(s: &Value) -> impl Iterator<Item = &Value> {
    ["anyOf", "oneOf"]
        .into_iter()
        .filter_map(|k| s.get(k).and_then(Value::as_array))
        .flatten()
}

/// True when a string is a value of this schema's type (so the argument's text is taken as is).
fn admits_string(s: &Value, root: &Value, depth: usize) -> bool {
    let s = resolve(s, root);
    if depth > MAX_DEPTH {
        return true;
    }
    let typed = match s.get("type") {
        Some(Value::String(t)) => Some(t == "string"),
        Some(Value::Array(ts)) => Some(ts.iter().any(|t| t == "string")),
        _ => None,
    };
    let listed = s
        .get("enum")
        .and_then(Value::as_array)
        .map(|e| e.iter().any(Value::is_string))
        .or_else(|| s.get("const").map(Value::is_string));
    let mut any_branch = false;
    let mut branch_says = false;
    for b in branches(s) {
        any_branch = true;
        branch_says |= admits_string(b, root, depth + 1);
    }
    match (typed, listed, any_branch) {
        (Some(t), _, _) => t,
        (None, Some(l), _) => l,
        (None, None, true) => branch_says,
        // No type at all: any JSON value, a string among them.
        (None, None, false) => true,
    }
}

/// The fixed string values of an enum schema (a unit-variant enum, `one_of = [...]`), in order;
/// empty for any other schema.
fn string_choices(s: &Value, root: &Value, depth: usize) -> Vec<String> {
    let s = resolve(s, root);
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    if let Some(c) = s.get("const").and_then(Value::as_str) {
        return vec![c.to_owned()];
    }
    let mut out = Vec::new();
    for b in branches(s) {
        for c in string_choices(b, root, depth + 1) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_numbers_and_enums_are_told_apart() {
        let root = json!({"$defs": {"Tone": {"type": "string", "enum": ["formal", "casual"]}}});
        let tone = json!({"$ref": "#/$defs/Tone"});
        assert!(admits_string(&json!({"type": "string"}), &root, 0));
        assert!(!admits_string(&json!({"type": "integer"}), &root, 0));
        assert!(!admits_string(
            &json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
            &root,
            0
        ));
        assert!(admits_string(&tone, &root, 0));
        assert_eq!(string_choices(&tone, &root, 0), ["formal", "casual"]);
        let documented = json!({"oneOf": [{"const": "a", "description": "A"}, {"const": "b"}]});
        assert_eq!(string_choices(&documented, &root, 0), ["a", "b"]);
        assert!(string_choices(&json!({"type": "string"}), &root, 0).is_empty());
    }
}
