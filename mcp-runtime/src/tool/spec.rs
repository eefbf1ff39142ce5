//! What one generated tool is: its static spec (from `#[tool]`) and the built tool a table serves.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use schemars::SchemaGenerator;
use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::schema::{InputSchema, decodes};
use crate::tool::handler::CallParts;
use crate::tool::output::{OutputSchema, ToolOutput};
use crate::tool::panic::catch_sync;
use crate::tool::state::StateReq;
use crate::validate::Validator;

/// Behaviour hints. A hint left `None` is absent from the published annotations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `readOnlyHint`
    pub read_only: Option<bool>,
    /// `destructiveHint`
    pub destructive: Option<bool>,
    /// `idempotentHint`
    pub idempotent: Option<bool>,
    /// `openWorldHint`
    pub open_world: Option<bool>,
}

impl Annotations {
    /// No hints.
    pub const NONE: Annotations = Annotations {
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    /// The annotations object as published, `None` when no hint and no title is set.
    pub fn to_json(&self, title: Option<&str>) -> Option<Value> {
        let mut m = Map::new();
        if let Some(t) = title {
            m.insert("title".into(), t.into());
        }
        for (key, v) in [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        ] {
            if let Some(v) = v {
                m.insert(key.into(), v.into());
            }
        }
        (!m.is_empty()).then_some(Value::Object(m))
    }
}

/// Whether a tool can be called as a task (`execution.taskSupport`): `#[tool(task)]` is
/// `Optional`, `#[tool(task = "required")]` `Required`; a tool without the key is `Forbidden`
/// and publishes no `execution`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client asks for one (2025-11-25) or declared the tasks extension
    /// (2026-07-28); an ordinary call otherwise.
    Optional,
    /// Only as a task: a client that cannot take one gets an error.
    Required,
}

impl TaskSupport {
    /// The published value.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// The handler generated for a tool: validated arguments, context and state in; the result out.
pub type Handler = fn(CallParts) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;

/// The static description `#[tool]` generates for one function.
#[derive(Clone, Copy)]
pub struct ToolSpec {
    /// The published name.
    pub name: &'static str,
    /// Optional human-readable title.
    pub title: Option<&'static str>,
    /// The description (the doc comment, or `description = "…"`).
    pub description: &'static str,
    /// Behaviour hints.
    pub annotations: Annotations,
    /// Declares the arguments into the input schema builder.
    pub input: fn(&mut InputSchema),
    /// The output schema of the return type (`None` for content types).
    pub output: fn(&mut SchemaGenerator) -> Option<OutputSchema>,
    /// The state types the tool borrows.
    pub state: fn() -> Vec<StateReq>,
    /// The handler.
    pub handler: Handler,
    /// Whether the tool can be called as a task.
    pub task: TaskSupport,
    /// The OAuth scopes a call needs behind authorization (`#[tool(scopes = [...])]`), besides
    /// those the server declares for it.
    pub scopes: &'static [&'static str],
}

/// Implemented by the struct `#[tool]` emits beside each function or method.
pub trait ToolDef {
    /// The tool's static spec.
    fn spec() -> ToolSpec;
}

/// What `tools![…]` lists: the struct of one `#[tool]` function (one tool), or a type whose
/// `impl` block carries `#[toolbox]` (its `#[tool]` methods, in order).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[tool]` function or a `#[toolbox]` type",
    label = "`tools![...]` lists `#[tool]` functions and types with a `#[toolbox]` impl block",
    note = "add `#[tool]` to the function, or `#[toolbox]` to the `impl` block whose methods are tools"
)]
pub trait ToolSet {
    /// The published names, in order; `tools![…]` compares them at compile time.
    const NAMES: &'static [&'static str];
    /// The tools' static specs, in order.
    fn specs() -> Vec<ToolSpec>;
}

/// Why a tool's contract cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}` cannot be served: {problem}")]
#[non_exhaustive]
pub struct ToolBuildError {
    /// The tool's published name.
    pub tool: String,
    /// What is wrong, with the JSON Pointer and keyword where there is one.
    pub problem: String,
}

/// A tool ready to serve: its contract built once, its validator compiled once.
#[derive(Clone)]
pub struct Tool {
    pub(crate) spec: ToolSpec,
    pub(crate) input_schema: Arc<Value>,
    pub(crate) output: Option<Arc<OutputSchema>>,
    pub(crate) validator: Arc<Validator>,
    /// The tool's published JSON (`tools/list` entry), built once.
    pub(crate) listing: Arc<Value>,
}

impl Tool {
    /// Builds the contract and the validator from a spec.
    ///
    /// # Panics
    /// When the contract cannot be served (see [`Tool::try_build`]); a server reports that from
    /// [`crate::ServerBuilder::build`] instead.
    pub fn build(spec: ToolSpec) -> Self {
        Self::try_build(spec).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds the contract and the validator from a spec, or says why the tool cannot be served:
    /// an argument name published twice (by a `#[arg(flatten)]` struct and another argument),
    /// a schema keyword or pattern the validator does not implement (named with its JSON
    /// Pointer), or a panic in a `JsonSchema` impl while the schemas were generated.
    pub fn try_build(spec: ToolSpec) -> Result<Self, ToolBuildError> {
        let fail = |problem: String| ToolBuildError {
            tool: spec.name.to_owned(),
            problem,
        };
        let (input_schema, output, problems, decoders) = catch_sync(|| {
            let mut input = InputSchema::new();
            (spec.input)(&mut input);
            let problems = input.problems().join("; ");
            let decoders = input.take_decoders();
            let mut generator = crate::schema::generator();
            let output = (spec.output)(&mut generator).map(Arc::new);
            (input.finish(), output, problems, decoders)
        })
        .map_err(|p| {
            fail(format!(
                "generating its schemas panicked at {}: {}",
                p.location, p.message
            ))
        })?;
        if !problems.is_empty() {
            return Err(fail(problems));
        }
        let validator = Validator::compile(&input_schema)
            .map_err(|e| fail(format!("its inputSchema cannot be validated: {e}")))?;
        // serde refusing what the schema accepts (deny_unknown_fields with flatten): a type's
        // Deserialize runs here, so a panic in it is a build error like one in its schema.
        let refused = catch_sync(|| {
            let accepts = |v: &mut Value| validator.validate(v).is_empty();
            decodes::problems(&input_schema, &decoders, accepts)
        })
        .map_err(|p| {
            fail(format!(
                "decoding a sample of its arguments panicked at {}: {}",
                p.location, p.message
            ))
        })?;
        if !refused.is_empty() {
            return Err(fail(refused.join("; ")));
        }
        let mut listing = Map::new();
        listing.insert("name".into(), spec.name.into());
        if let Some(t) = spec.title {
            listing.insert("title".into(), t.into());
        }
        listing.insert("description".into(), spec.description.into());
        listing.insert("inputSchema".into(), input_schema.clone());
        if let Some(o) = &output {
            listing.insert("outputSchema".into(), o.schema.clone());
        }
        if let Some(a) = spec.annotations.to_json(None) {
            listing.insert("annotations".into(), a);
        }
        if spec.task != TaskSupport::Forbidden {
            let execution = serde_json::json!({"taskSupport": spec.task.as_str()});
            listing.insert("execution".into(), execution);
        }
        Ok(Tool {
            spec,
            input_schema: Arc::new(input_schema),
            output,
            validator: Arc::new(validator),
            listing: Arc::new(Value::Object(listing)),
        })
    }

    /// This tool, publishing and validating against `schema` instead of the schema derived from
    /// its parameters: for JSON Schema keywords that Rust types do not express (`allOf`,
    /// `if`/`then`/`else`, `$anchor`…). Arguments that pass it must still deserialize into the
    /// function's parameters; those that do not are answered as invalid arguments. Fails when the
    /// validator cannot compile `schema`.
    pub fn with_input_schema(mut self, schema: Value) -> Result<Tool, String> {
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err("an inputSchema must have \"type\": \"object\"".into());
        }
        let mut validator = Validator::compile(&schema)?;
        // serde decodes into the tool's types whatever the published schema says.
        validator.count_decoding_as(&self.validator);
        self.validator = Arc::new(validator);
        let mut listing = (*self.listing).clone();
        listing["inputSchema"] = schema.clone();
        self.listing = Arc::new(listing);
        self.input_schema = Arc::new(schema);
        Ok(self)
    }

    /// The published name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }
    /// The title, if any.
    pub fn title(&self) -> Option<&'static str> {
        self.spec.title
    }
    /// The description.
    pub fn description(&self) -> &'static str {
        self.spec.description
    }
    /// The annotations.
    pub fn annotations(&self) -> Annotations {
        self.spec.annotations
    }
    /// The inputSchema.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }
    /// The outputSchema, if the return type has one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output.as_deref().map(|o| &o.schema)
    }
    /// The `tools/list` entry for this tool.
    pub fn to_json(&self) -> &Value {
        &self.listing
    }
    /// Whether the tool can be called as a task.
    pub fn task_support(&self) -> TaskSupport {
        self.spec.task
    }
    /// The state types this tool borrows.
    pub fn state_requirements(&self) -> Vec<StateReq> {
        (self.spec.state)()
    }
}
