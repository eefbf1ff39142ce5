//! `resources/list` and `resources/templates/list` (pages and cursors), `resources/read` (the
//! resource's function with its context), `resources/subscribe` / `resources/unsubscribe` and the
//! `notifications/resources/updated` they ask for, on top of the resource table.
//!
//! The set of resources is fixed when the server is built, so `listChanged` is declared `false`
//! and `notifications/resources/list_changed` is never sent. Subscriptions belong to the 2025
//! era: the 2026-07-28 revision removed `resources/subscribe` (its `subscriptions/listen` stream
//! is not implemented yet), so a stateless request for them is answered -32601.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::scope::Scope;
use super::{Outcome, Server};
use crate::context::Context;
use crate::context::connection::{CancelToken, Connection, lock};
use crate::error::{ProtocolError, codes};
use crate::protocol::Request;
use crate::resource::{ReadError, ResourceTable};

/// The methods a server with resources answers.
pub(super) const RESOURCE_METHODS: &[&str] = &[
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// The 2025 era's "resource not found" code (the 2026-07-28 revision answers -32602).
pub const RESOURCE_NOT_FOUND: i64 = codes::RESOURCE_NOT_FOUND;

/// Who is subscribed to which URI, shared by a server and every handle it gives out.
#[derive(Default)]
struct Subscriptions {
    entries: Mutex<Vec<(String, Connection)>>,
}

/// A handle to tell subscribed clients that a resource changed: cheap to clone, and obtainable
/// before the server is built ([`crate::ServerBuilder::resource_updates`]) so that state given to
/// the builder can hold one.
#[derive(Clone, Default)]
pub struct ResourceUpdates {
    subscriptions: Arc<Subscriptions>,
}

impl ResourceUpdates {
    /// Sends `notifications/resources/updated` for `uri` to every connection subscribed to it
    /// (closed connections are forgotten on the way). Returns how many were told.
    pub fn updated(&self, uri: &str) -> usize {
        let mut entries = lock(&self.subscriptions.entries);
        entries.retain(|(_, conn)| !conn.is_closed());
        let mut told = 0;
        for (subscribed, conn) in entries.iter() {
            if subscribed == uri {
                conn.send(json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/resources/updated",
                    "params": {"uri": uri},
                }));
                told += 1;
            }
        }
        told
    }

    /// How many live subscriptions there are to `uri`.
    pub fn subscribers(&self, uri: &str) -> usize {
        lock(&self.subscriptions.entries)
            .iter()
            .filter(|(u, conn)| u == uri && !conn.is_closed())
            .count()
    }

    fn set(&self, uri: &str, conn: &Connection, on: bool) {
        let mut entries = lock(&self.subscriptions.entries);
        let same = |(u, c): &(String, Connection)| u == uri && Arc::ptr_eq(&c.inner, &conn.inner);
        let present = entries.iter().any(same);
        if on && !present {
            entries.push((uri.to_owned(), conn.clone()));
        } else if !on {
            entries.retain(|e| !same(e));
        }
    }
}

impl Server {
    /// The resources and templates served.
    pub fn resources(&self) -> &ResourceTable {
        &self.inner.resources
    }

    /// The handle that sends `notifications/resources/updated` to subscribed clients.
    pub fn resource_updates(&self) -> &ResourceUpdates {
        &self.inner.resource_updates
    }

    /// True when `method` is one this server answers from its resource table.
    pub(super) fn serves_resources(&self, method: &str) -> bool {
        !self.inner.resources.is_empty() && RESOURCE_METHODS.contains(&method)
    }

    /// Answers one of [`RESOURCE_METHODS`] (the caller checked [`Server::serves_resources`]).
    pub(super) async fn resource_request(
        &self,
        req: &Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
    ) -> Outcome {
        let table = &self.inner.resources;
        let answer = match req.method.as_str() {
            "resources/list" => paged(self, req, "resources", table.list()),
            "resources/templates/list" => {
                paged(self, req, "resourceTemplates", table.list_templates())
            }
            "resources/read" => match uri_param(req) {
                Ok(uri) => {
                    let stateless = scope.stateless.is_some();
                    let ctx = Context::attached(
                        uri,
                        req.id.to_json(),
                        self.request_scope(req, conn, cancel, scope, None),
                    );
                    self.read_resource(uri, ctx, stateless).await
                }
                Err(e) => Err(e),
            },
            m if scope.stateless.is_some() => Err(ProtocolError::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "Method not found: {m} (removed in {})",
                    crate::protocol::LATEST_STATELESS_VERSION
                ),
            )),
            m => uri_param(req).map(|uri| {
                self.inner
                    .resource_updates
                    .set(uri, conn, m == "resources/subscribe");
                json!({})
            }),
        };
        Outcome::Answer(answer)
    }

    /// `resources/read` of `uri`; an unknown URI is -32002 in the 2025 era and -32602 (SEP-2164)
    /// in the stateless one, with the URI in `data` either way.
    async fn read_resource(
        &self,
        uri: &str,
        ctx: Context,
        stateless: bool,
    ) -> Result<Value, ProtocolError> {
        let read = self.inner.resources.read(&self.inner.state, ctx, uri).await;
        match read {
            Ok(contents) => Ok(json!({ "contents": contents })),
            Err(ReadError::Failed(e)) => Err(e),
            Err(ReadError::NotFound) => {
                tracing::debug!(uri, "resource not found");
                let code = if stateless {
                    codes::INVALID_PARAMS
                } else {
                    RESOURCE_NOT_FOUND
                };
                Err(ProtocolError::new(code, "Resource not found").with_data(json!({"uri": uri})))
            }
        }
    }
}

/// One page of `items`, a list built whole (resources are few, and cheap to list).
fn paged(
    server: &Server,
    req: &Request,
    key: &str,
    items: Vec<Value>,
) -> Result<Value, ProtocolError> {
    let items: Vec<&Value> = items.iter().collect();
    server.page(req, key, &items)
}

/// The request's `uri`, or -32602.
fn uri_param(req: &Request) -> Result<&str, ProtocolError> {
    req.params
        .as_ref()
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str)
        .ok_or_else(|| ProtocolError::invalid_params("Invalid params: a string `uri` is required"))
}
