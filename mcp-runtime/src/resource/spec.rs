//! What one generated resource is: the static spec `#[resource]` emits, the traits that list it,
//! and its published JSON (a `resources/list` or `resources/templates/list` entry).

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

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
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceAnnotations {
    /// `audience`: `"user"` and/or `"assistant"`.
    #[serde(skip_serializing_if = "<[&str]>::is_empty")]
    pub audience: &'static [&'static str],
    /// `priority`, from 0 (optional) to 1 (required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// `lastModified`, an ISO 8601 timestamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<&'static str>,
}

impl ResourceAnnotations {
    /// No annotations.
    pub const NONE: ResourceAnnotations = ResourceAnnotations {
        audience: &[],
        priority: None,
        last_modified: None,
    };

    /// True when no field is given: the resource publishes no `annotations`.
    pub fn is_empty(&self) -> bool {
        self.audience.is_empty() && self.priority.is_none() && self.last_modified.is_none()
    }

    /// The object as published (its `Serialize`, as a `Value`), `None` when empty.
    pub fn to_json(&self) -> Option<Value> {
        let value = serde_json::to_value(self).expect("annotations serialize");
        (!self.is_empty()).then_some(value)
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
        let entry = Entry {
            uri: (!template).then_some(self.uri),
            uri_template: template.then_some(self.uri),
            name: self.name,
            title: self.title,
            description: self.description,
            mime_type: self.mime_type,
            size: self.size.filter(|_| !template),
            annotations: self.annotations,
        };
        serde_json::to_value(entry).expect("a resource's entry serializes")
    }
}

/// A `resources/list` or `resources/templates/list` entry as published: a fixed resource has a
/// `uri` and may have a `size`, a template has a `uriTemplate`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_template: Option<&'static str>,
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "ResourceAnnotations::is_empty")]
    annotations: ResourceAnnotations,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(annotations: ResourceAnnotations) -> ResourceSpec {
        ResourceSpec {
            uri: "notes://{title}",
            name: "note",
            title: Some("Note"),
            description: Some("One note."),
            mime_type: Some("text/markdown"),
            size: Some(12),
            annotations,
            state: Vec::new,
            complete: |_| None,
            handler: |_| Box::pin(async { Ok(Vec::new()) }),
            scopes: &[],
        }
    }

    /// Each list's entry, member by member in the published order: a template has no `size`,
    /// and empty annotations are left out.
    #[test]
    fn an_entry_is_written_as_published() {
        let annotations = ResourceAnnotations {
            audience: &["user"],
            priority: Some(0.5),
            last_modified: Some("2025-01-01T00:00:00Z"),
        };
        assert_eq!(
            spec(annotations).to_json(false).to_string(),
            r#"{"uri":"notes://{title}","name":"note","title":"Note","description":"One note.","mimeType":"text/markdown","size":12,"annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"}}"#
        );
        assert_eq!(
            spec(ResourceAnnotations::NONE).to_json(true).to_string(),
            r#"{"uriTemplate":"notes://{title}","name":"note","title":"Note","description":"One note.","mimeType":"text/markdown"}"#
        );
        assert_eq!(ResourceAnnotations::NONE.to_json(), None);
        let priority = ResourceAnnotations {
            priority: Some(1.0),
            ..ResourceAnnotations::NONE
        };
        assert_eq!(
            priority.to_json().map(|v| v.to_string()).as_deref(),
            Some(r#"{"priority":1.0}"#)
        );
    }
}
