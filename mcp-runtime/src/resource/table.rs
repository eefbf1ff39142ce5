//! The resource table a server serves: fixed resources and templates in declaration order, the
//! lookup of a URI, the read (handler, panic containment, error hiding) and template completion.

use std::fmt;
use std::panic::Location;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::context::Context;
use crate::error::{ProtocolError, ToolError, ToolErrorKind};
use crate::prompt::CompleteRequest;
use crate::prompt::complete::{completion_result, run_completer};
use crate::protocol::Listing;
use crate::resource::contents::ResourceContents;
use crate::resource::spec::ResourceSpec;
use crate::resource::template::UriTemplate;
use crate::tool::handler::CallParts;
use crate::tool::panic::{catch, next_error_id};
use crate::tool::state::StateMap;

/// An ordered set of resources and resource templates. Templates are parsed once, when the
/// table is made; [`crate::ServerBuilder::build`] refuses a table with one that does not parse
/// (which `#[resource]` already rejects at compile time).
#[derive(Clone, Default)]
pub struct ResourceTable {
    entries: Arc<[Entry]>,
    /// The fixed resources' and the templates' list entries, encoded once with the table: what
    /// every page of `resources/list` and `resources/templates/list` is written from.
    listing: Listing,
    template_listing: Listing,
    /// Where the table was made (the `resources![…]` invocation), to name it in errors.
    origin: Option<&'static Location<'static>>,
}

struct Entry {
    spec: ResourceSpec,
    /// `None` when the URI is not a valid template (reported by [`ResourceTable::check`]).
    template: Option<UriTemplate>,
    /// Its `resources/list` (or `resources/templates/list`) entry, made once with the table.
    listing: Value,
}

/// A URI (or template) published by two resource tables a server serves together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "two resources are published as `{uri}`: one in the resource table made at {first}, one in the table made at {second}"
)]
pub struct DuplicateResource {
    /// The URI or template.
    pub uri: &'static str,
    /// Where the first table was made.
    pub first: String,
    /// Where the second table was made.
    pub second: String,
}

/// Why a `resources/read` has no contents.
#[derive(Debug)]
pub enum ReadError {
    /// No resource and no template matches the URI.
    NotFound,
    /// The resource failed: the JSON-RPC error to answer (a hidden failure already logged).
    Failed(ProtocolError),
}

impl ResourceTable {
    /// The table of these specs, in order. `resources![…]` calls this.
    #[track_caller]
    pub fn from_specs(specs: impl IntoIterator<Item = ResourceSpec>) -> Self {
        let entries: Arc<[Entry]> = specs
            .into_iter()
            .map(|spec| {
                let template = UriTemplate::parse(spec.uri);
                let listing = spec.to_json(!template.as_ref().is_some_and(UriTemplate::is_fixed));
                Entry {
                    template,
                    listing,
                    spec,
                }
            })
            .collect();
        let mut table = ResourceTable {
            entries,
            listing: Listing::default(),
            template_listing: Listing::default(),
            origin: Some(Location::caller()),
        };
        table.listing = Listing::encode(table.fixed().map(|e| &e.listing));
        table.template_listing = Listing::encode(table.templates().map(|e| &e.listing));
        table
    }

    /// The resources of several tables, in order; a URI published twice is refused with both
    /// places.
    pub fn merge(tables: &[ResourceTable]) -> Result<ResourceTable, Vec<DuplicateResource>> {
        let mut duplicates = Vec::new();
        for (t, table) in tables.iter().enumerate() {
            for earlier in &tables[..t] {
                for e in table.entries.iter() {
                    if earlier.entries.iter().any(|x| x.spec.uri == e.spec.uri) {
                        duplicates.push(DuplicateResource {
                            uri: e.spec.uri,
                            first: earlier.origin(),
                            second: table.origin(),
                        });
                    }
                }
            }
        }
        if !duplicates.is_empty() {
            return Err(duplicates);
        }
        Ok(ResourceTable::from_specs(
            tables.iter().flat_map(|t| t.specs()).collect::<Vec<_>>(),
        ))
    }

    fn origin(&self) -> String {
        self.origin
            .map_or_else(|| "an unknown place".to_owned(), ToString::to_string)
    }

    /// The problems that keep this table from being served: a URI that is not a level 1–2
    /// template, or the same URI twice.
    pub fn check(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            if e.template.is_none() {
                problems.push(format!(
                    "resource `{}` cannot be served: `{}` is not a URI template of RFC 6570 level 1 or 2",
                    e.spec.name, e.spec.uri
                ));
            }
            if self.entries[..i].iter().any(|x| x.spec.uri == e.spec.uri) {
                problems.push(format!(
                    "two resources in the table made at {} are published as `{}`",
                    self.origin(),
                    e.spec.uri
                ));
            }
        }
        problems
    }

    /// The specs, in order.
    pub fn specs(&self) -> Vec<ResourceSpec> {
        self.entries.iter().map(|e| e.spec).collect()
    }

    /// The number of resources and templates.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the table has neither resources nor templates.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The fixed resources' `resources/list` entries, in order.
    pub fn list(&self) -> Vec<&Value> {
        self.fixed().map(|e| &e.listing).collect()
    }

    /// The templates' `resources/templates/list` entries, in order.
    pub fn list_templates(&self) -> Vec<&Value> {
        self.templates().map(|e| &e.listing).collect()
    }

    /// [`ResourceTable::list`], encoded once when the table was made.
    pub(crate) fn listing(&self) -> &Listing {
        &self.listing
    }

    /// [`ResourceTable::list_templates`], encoded once when the table was made.
    pub(crate) fn template_listing(&self) -> &Listing {
        &self.template_listing
    }

    fn fixed(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| e.template.as_ref().is_some_and(UriTemplate::is_fixed))
    }

    fn templates(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| e.template.as_ref().is_some_and(|t| !t.is_fixed()))
    }

    /// The resource `uri` names and the values of its template's variables: a fixed resource
    /// first, else the first template (in order) that matches.
    pub fn find(&self, uri: &str) -> Option<(&ResourceSpec, Map<String, Value>)> {
        if let Some(e) = self.fixed().find(|e| e.spec.uri == uri) {
            return Some((&e.spec, Map::new()));
        }
        self.templates().find_map(|e| {
            let vars = e.template.as_ref()?.matches(uri)?;
            let vars = vars.into_iter().map(|(k, v)| (k, Value::String(v)));
            Some((&e.spec, vars.collect()))
        })
    }

    /// True when the table publishes a template with a variable, which `completion/complete`
    /// answers for (with no values when the variable has no completion): the server then
    /// declares the `completions` capability.
    pub fn completes(&self) -> bool {
        self.templates().any(|e| {
            e.template
                .as_ref()
                .is_some_and(|t| t.vars().next().is_some())
        })
    }

    /// `completion/complete` for variable `request.argument()` of the template published as
    /// `uri_template`: the resource's `complete(var = fn)` (run with its panics contained), else
    /// the variable type's fixed values that start with what was typed, else none. An unknown
    /// template or variable is invalid params.
    pub(crate) async fn complete(
        &self,
        uri_template: &str,
        request: CompleteRequest,
    ) -> Result<Value, ProtocolError> {
        let Some((entry, template)) = self
            .templates()
            .find(|e| e.spec.uri == uri_template)
            .and_then(|e| Some((e, e.template.as_ref()?)))
        else {
            return Err(ProtocolError::invalid_params(format!(
                "Invalid params: no resource template {uri_template}"
            )));
        };
        let argument = request.argument().to_owned();
        if !template.vars().any(|v| v == argument) {
            return Err(ProtocolError::invalid_params(format!(
                "Invalid params: resource template {uri_template} has no variable `{argument}`"
            )));
        }
        let values = match (entry.spec.complete)(request) {
            None => Vec::new(),
            Some(f) => run_completer("resource", uri_template, &argument, f).await?,
        };
        Ok(completion_result(values))
    }

    /// Reads `uri`: finds its resource, runs the function (panics contained; a hidden failure is
    /// logged with an error id) and returns the `contents` as sent.
    #[doc(hidden)]
    pub async fn read(
        &self,
        state: &Arc<StateMap>,
        ctx: Context,
        uri: &str,
    ) -> Result<Vec<Value>, ReadError> {
        let Some((spec, args)) = self.find(uri) else {
            return Err(ReadError::NotFound);
        };
        let parts = CallParts {
            args,
            ctx,
            state: state.clone(),
        };
        let outcome = catch((spec.handler)(parts)).await;
        let contents = match outcome {
            Ok(Ok(contents)) => contents,
            Ok(Err(error)) if names_nothing(&error) => return Err(ReadError::NotFound),
            Ok(Err(error)) => return Err(ReadError::Failed(failure(spec, uri, error))),
            Err(panic) => {
                let id = next_error_id();
                tracing::error!(resource = spec.name, uri, error_id = %id, "resource panicked at {}: {}", panic.location, panic.message);
                return Err(ReadError::Failed(hidden(&id)));
            }
        };
        Ok(contents
            .iter()
            .map(|c: &ResourceContents| c.to_json(uri, spec.mime_type))
            .collect())
    }
}

/// The JSON-RPC error of a failed read: a visible message as an internal error with that text, a
/// protocol error as is, anything else hidden behind an error id.
fn failure(spec: &ResourceSpec, uri: &str, error: ToolError) -> ProtocolError {
    match error.kind {
        ToolErrorKind::Visible(message) | ToolErrorKind::Raw(message) => {
            tracing::info!(resource = spec.name, uri, "resource failed: {message}");
            ProtocolError::internal(message).with_data(json!({ "uri": uri }))
        }
        ToolErrorKind::Protocol(p) => p,
        ToolErrorKind::Internal(e) => {
            let id = next_error_id();
            tracing::error!(resource = spec.name, uri, error_id = %id, details = ?e, "resource raised an unexpected error: {e}");
            hidden(&id)
        }
    }
}

/// True for [`ToolError::resource_not_found`]: answered like an unknown URI.
fn names_nothing(error: &ToolError) -> bool {
    matches!(&error.kind, ToolErrorKind::Protocol(p) if p.code == crate::error::codes::RESOURCE_NOT_FOUND)
}

fn hidden(id: &str) -> ProtocolError {
    ProtocolError::internal("Internal error").with_data(json!({ "errorId": id }))
}

impl fmt::Debug for ResourceTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|e| e.spec.uri))
            .finish()
    }
}
