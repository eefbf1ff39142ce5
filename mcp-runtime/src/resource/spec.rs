//! What one generated resource is: the static spec `#[resource]` emits, the traits that list it,
//! and its published JSON (a `resources/list` or `resources/templates/list` entry).

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::prompt::CompleteRequest;
use crate::resource::contents::ResourceContents;
use crate::tool::handler::CallParts;
use crate::tool::state::StateReq;

/// The handler generated for a resource: the template's variables (as JSON strings in
/// `CallParts::args`), the context and the state in; the contents out.
pub type ResourceHandler =
    fn(CallParts) -> BoxFuture<'static, Result<Vec<ResourceContents>, ToolError>>;

/// The completion of a template variable (`request.argument()`): `None` when the variable has no
/// completion (no `complete(var = fn)` and not a type of fixed values).
pub type VarCompleter =
    fn(CompleteRequest) -> Option<BoxFuture<'static, Result<Vec<String>, ToolError>>>;

/// A resource's `annotations`. A field left empty is absent from the published object.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ResourceAnnotations {
    /// `audience`: `"user"` and/or `"assistant"`.
    pub audience: &'static [&'static str],
    /// `priority`, from 0 (optional) to 1 (required).
    pub priority: Option<f64>,
    /// `lastModified`, an ISO 8601 timestamp.
    pub last_modified: Option<&'static str>,
}

impl ResourceAnnotations {
    /// No annotations.
    pub const NONE: ResourceAnnotations = ResourceAnnotations {
        audience: &[],
        priority: None,
        last_modified: None,
    };

    /// The object as published, `None` when empty.
    pub fn to_json(&self) -> Option<Value> {
        let mut m = Map::new();
        if !self.audience.is_empty() {
            m.insert("audience".into(), self.audience.to_vec().into());
        }
        if let Some(p) = self.priority {
            m.insert("priority".into(), p.into());
        }
        if let Some(t) = self.last_modified {
            m.insert("lastModified".into(), t.into());
        }
        (!m.is_empty()).then_some(Value::Object(m))
    }
}

/// The static description `#[resource]` generates for one function.
#[derive(Clone, Copy)]
pub struct ResourceSpec {
    /// The URI, or the URI template (RFC 6570 level 1–2) when it has variables.
    pub uri: &'static str,
    /// The published name (the function's name unless `name = "…"`).
    pub name: &'static str,
    /// Optional human-readable title.
    pub title: Option<&'static str>,
    /// The description (the doc comment, or `description = "…"`), if any.
    pub description: Option<&'static str>,
    /// `mimeType`, if declared.
    pub mime_type: Option<&'static str>,
    /// `size` in bytes, if declared (fixed resources only).
    pub size: Option<u64>,
    /// Annotations for the client.
    pub annotations: ResourceAnnotations,
    /// The state types the function borrows.
    pub state: fn() -> Vec<StateReq>,
    /// Completion of the template's variables.
    pub complete: VarCompleter,
    /// The handler.
    pub handler: ResourceHandler,
    /// The OAuth scopes a `resources/read` of it needs behind authorization
    /// (`#[resource(scopes = [...])]`).
    pub scopes: &'static [&'static str],
}

impl ResourceSpec {
    /// The `resources/list` entry (a fixed URI) or `resources/templates/list` entry (a template).
    pub fn to_json(&self, template: bool) -> Value {
        let mut m = Map::new();
        m.insert(
            if template { "uriTemplate" } else { "uri" }.into(),
            self.uri.into(),
        );
        m.insert("name".into(), self.name.into());
        if let Some(t) = self.title {
            m.insert("title".into(), t.into());
        }
        if let Some(d) = self.description {
            m.insert("description".into(), d.into());
        }
        if let Some(mime) = self.mime_type {
            m.insert("mimeType".into(), mime.into());
        }
        if let (Some(size), false) = (self.size, template) {
            m.insert("size".into(), size.into());
        }
        if let Some(a) = self.annotations.to_json() {
            m.insert("annotations".into(), a);
        }
        Value::Object(m)
    }
}

/// Implemented by the struct `#[resource]` emits beside each function.
pub trait ResourceDef {
    /// The resource's static spec.
    fn spec() -> ResourceSpec;
}

/// What `resources![…]` lists: the struct of one `#[resource]` function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[resource]` function",
    label = "`resources![...]` lists `#[resource]` functions",
    note = "add `#[resource(uri = \"...\")]` to the function"
)]
pub trait ResourceSet {
    /// The URIs (or templates), in order; `resources![…]` compares them at compile time.
    const URIS: &'static [&'static str];
    /// The specs, in order.
    fn specs() -> Vec<ResourceSpec>;
}
