//! `resources/list` and `resources/templates/list` (pages and cursors), `resources/read` (the
//! resource's function with its context), and the change notifications of resources:
//! [`ResourceUpdates`], the handle the application tells of changes.
//!
//! How a client hears of a change depends on its era:
//!
//! - 2025 era: `resources/subscribe` / `resources/unsubscribe` name the URIs whose
//!   `notifications/resources/updated` the session gets; `notifications/resources/list_changed`
//!   goes to every initialized session.
//! - 2026-07-28 era: `resources/subscribe` was removed (-32601); a `subscriptions/listen` request
//!   opts in to `resourceSubscriptions` URIs and to `resourcesListChanged`, and its stream carries
//!   them (`listen.rs`).
//!
//! Resources are served with `subscribe: true`. `listChanged` is `false` unless the application
//! opted in with [`crate::ServerBuilder::resources_list_changes`]: the table is fixed once the
//! server is built, but what a template reaches (the files behind `file:///{path}`) may change,
//! and only the application knows when.

#[cfg(feature = "http")]
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::listen::Listens;
use super::route::{Method, removed};
use super::scope::Scope;
use super::{Outcome, Server};
use crate::context::Context;
use crate::context::connection::{CancelToken, Connection, lock};
use crate::error::{ProtocolError, codes};
use crate::protocol::Request;
use crate::protocol::subscriptions::Change;
use crate::resource::{ReadError, ResourceTable};

/// The 2025 era's "resource not found" code (the 2026-07-28 revision answers -32602).
pub const RESOURCE_NOT_FOUND: i64 = codes::RESOURCE_NOT_FOUND;

/// Who hears of which change, shared by a server and every handle it gives out.
#[derive(Default)]
pub(super) struct Registry {
    /// 2025 era: `resources/subscribe`, one entry per URI and session.
    subscriptions: Mutex<Vec<(String, Connection)>>,
    /// 2025 era: the sessions told of list changes (kept only when list changes are declared).
    sessions: Mutex<Vec<Connection>>,
    /// 2026-07-28 era: the open `subscriptions/listen` streams.
    pub(super) listens: Listens,
    /// Whether `listChanged: true` was declared ([`crate::ServerBuilder::resources_list_changes`]).
    list_changes: AtomicBool,
    /// Set when this server is one replica of a fleet: every change goes to every replica.
    fleet: Mutex<Option<Arc<dyn ChangeFleet>>>,
}

/// The replicas of a fleet, as a transport that relays between them sees them (the HTTP
/// transport with a shared session store). A change is published to every replica, this one
/// included; each tells the sessions whose `GET` stream it holds, and its own listens, through
/// [`ResourceUpdates::deliver`].
pub(crate) trait ChangeFleet: Send + Sync {
    /// Hands `change` to every replica.
    fn publish(&self, change: &Change);
}

/// A handle to tell clients that a resource changed, or that the list of resources did: cheap
/// to clone, and obtainable before the server is built ([`crate::ServerBuilder::resource_updates`])
/// so that state given to the builder can hold one. It reaches the sessions of both eras.
#[derive(Clone, Default)]
pub struct ResourceUpdates {
    registry: Arc<Registry>,
}

impl ResourceUpdates {
    /// Sends `notifications/resources/updated` for `uri` to every 2025-era session subscribed to
    /// it and on every open `subscriptions/listen` stream that lists it (closed sessions are
    /// forgotten on the way). Returns how many were told.
    ///
    /// On one replica of a fleet (sessions in a shared store), the change goes to every replica
    /// instead: each tells the sessions whose `GET` stream it holds (a 2025 session hears server
    /// notifications on that stream; with none open anywhere, there is nowhere to send it) and
    /// its own listens (this replica's at once). The count is then what this replica knows of:
    /// its sessions and listens subscribed to `uri`.
    pub fn updated(&self, uri: &str) -> usize {
        let change = Change::ResourceUpdated(uri.to_owned());
        if let Some(fleet) = self.fleet() {
            // This replica's listens now; its sessions when the change comes back.
            fleet.publish(&change);
            self.registry.listens.notify(&change);
            return self.subscribers(uri);
        }
        self.deliver(&change, |_| true, true)
    }

    /// Sends `notifications/resources/list_changed` to every initialized 2025-era session and
    /// on every open `subscriptions/listen` stream that asked for `resourcesListChanged`.
    /// Returns how many were told: 0, and nothing sent, unless the server declared list changes
    /// ([`crate::ServerBuilder::resources_list_changes`]), since a client told `listChanged:
    /// false` expects none.
    pub fn list_changed(&self) -> usize {
        if !self.registry.list_changes.load(Ordering::Acquire) {
            tracing::warn!(
                "ResourceUpdates::list_changed called on a server that does not declare \
                 resources.listChanged; nothing sent (see ServerBuilder::resources_list_changes)"
            );
            return 0;
        }
        let change = Change::ResourcesListChanged;
        if let Some(fleet) = self.fleet() {
            fleet.publish(&change);
            return lock(&self.registry.sessions).len() + self.registry.listens.notify(&change);
        }
        self.deliver(&change, |_| true, true)
    }

    /// How many live subscriptions there are to `uri`: 2025-era sessions subscribed to it and
    /// open listens that list it.
    pub fn subscribers(&self, uri: &str) -> usize {
        let sessions = lock(&self.registry.subscriptions)
            .iter()
            .filter(|(u, conn)| u == uri && !conn.is_closed())
            .count();
        let change = Change::ResourceUpdated(uri.to_owned());
        sessions + self.registry.listens.wanting(&change)
    }

    /// How many `subscriptions/listen` streams are open.
    pub fn listens(&self) -> usize {
        self.registry.listens.len()
    }

    /// Ends every open `subscriptions/listen` stream gracefully, each with the result that says
    /// the server closed it (for a server shutting down); returns how many. Clients may open
    /// new ones afterwards.
    pub fn end_listens(&self) -> usize {
        self.registry.listens.end_all()
    }

    pub(super) fn registry(&self) -> &Registry {
        &self.registry
    }

    fn fleet(&self) -> Option<Arc<dyn ChangeFleet>> {
        lock(&self.registry.fleet).clone()
    }

    /// Makes this server one replica of `fleet` (its changes published to every replica).
    #[cfg(feature = "http")]
    pub(crate) fn join_fleet(&self, fleet: Arc<dyn ChangeFleet>) {
        *lock(&self.registry.fleet) = Some(fleet);
    }

    /// Tells of `change` the 2025 sessions `holds` accepts that asked for it (all of them in one
    /// process; in a fleet, those whose `GET` stream this replica holds) and, with `listens`,
    /// this replica's open listens. Returns how many were told.
    pub(crate) fn deliver(
        &self,
        change: &Change,
        holds: impl Fn(&Connection) -> bool,
        listens: bool,
    ) -> usize {
        let mut told = 0;
        match change {
            Change::ResourceUpdated(uri) => {
                let mut subscriptions = lock(&self.registry.subscriptions);
                subscriptions.retain(|(_, conn)| !conn.is_closed());
                for (_, conn) in subscriptions.iter().filter(|(u, c)| u == uri && holds(c)) {
                    conn.send(change.notification(None));
                    told += 1;
                }
            }
            Change::ResourcesListChanged => {
                let mut sessions = lock(&self.registry.sessions);
                sessions.retain(|conn| !conn.is_closed());
                for conn in sessions.iter().filter(|c| holds(c)) {
                    if conn.lock_session().initialized {
                        conn.send(change.notification(None));
                        told += 1;
                    }
                }
            }
            _ => {}
        }
        if listens {
            told += self.registry.listens.notify(change);
        }
        told
    }

    /// `conn` serves here a session that the store holds (opened through another replica),
    /// subscribed to `uris`: it hears of list changes, and of updates to those URIs.
    #[cfg(feature = "http")]
    pub(crate) fn resync(&self, conn: &Connection, uris: &BTreeSet<String>) {
        {
            let mut subscriptions = lock(&self.registry.subscriptions);
            subscriptions.retain(|(u, c)| !c.same(conn) || uris.contains(u));
            for uri in uris {
                if !subscriptions.iter().any(|(u, c)| u == uri && c.same(conn)) {
                    subscriptions.push((uri.clone(), conn.clone()));
                }
            }
        }
        conn.lock_session().subscriptions = uris.clone();
        if self.registry.list_changes.load(Ordering::Acquire) {
            let mut sessions = lock(&self.registry.sessions);
            if !sessions.iter().any(|c| c.same(conn)) {
                sessions.retain(|c| !c.is_closed());
                sessions.push(conn.clone());
            }
        }
    }

    /// Declares (or not) list changes; set once, when the server is built.
    pub(super) fn declare_list_changes(&self, on: bool) {
        self.registry.list_changes.store(on, Ordering::Release);
    }

    /// Keeps `conn`, a session that completed `initialize`, to tell it of list changes.
    pub(super) fn session_opened(&self, conn: &Connection) {
        if self.registry.list_changes.load(Ordering::Acquire) {
            let mut sessions = lock(&self.registry.sessions);
            sessions.retain(|c| !c.is_closed());
            sessions.push(conn.clone());
        }
    }

    fn set(&self, uri: &str, conn: &Connection, on: bool) {
        let mut subscriptions = lock(&self.registry.subscriptions);
        let same = |(u, c): &(String, Connection)| u == uri && c.same(conn);
        let present = subscriptions.iter().any(same);
        if on && !present {
            subscriptions.push((uri.to_owned(), conn.clone()));
        } else if !on {
            subscriptions.retain(|e| !same(e));
        }
        drop(subscriptions);
        let mut state = conn.lock_session();
        if on {
            state.subscriptions.insert(uri.to_owned());
        } else {
            state.subscriptions.remove(uri);
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

    /// Answers a method of resources (the router checked this server has resources).
    pub(super) async fn resource_request(
        &self,
        method: Method,
        req: &Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
    ) -> Outcome {
        let table = &self.inner.resources;
        let answer = match method {
            Method::ListResources => return self.page(req, "resources", table.listing()).into(),
            Method::ListTemplates => {
                let templates = table.template_listing();
                return self.page(req, "resourceTemplates", templates).into();
            }
            Method::ReadResource => match self.uri_param(req) {
                Ok(uri) => {
                    let stateless = scope.stateless.is_some();
                    let ctx = Context::attached(
                        uri.to_owned(),
                        req.id.to_json(),
                        self.request_scope(req, conn, cancel, scope, None),
                    );
                    self.read_resource(uri, ctx, stateless).await
                }
                Err(e) => Err(e),
            },
            _ if scope.stateless.is_some() => Err(removed(&req.method)),
            Method::Subscribe | Method::Unsubscribe => self.uri_param(req).map(|uri| {
                let subscribe = method == Method::Subscribe;
                self.inner.resource_updates.set(uri, conn, subscribe);
                json!({})
            }),
            _ => Err(ProtocolError::method_not_found(&req.method)),
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

    /// The request's `uri`, or -32602 when there is none or it is too long.
    fn uri_param<'r>(&self, req: &'r Request) -> Result<&'r str, ProtocolError> {
        let uri = req
            .params
            .as_ref()
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ProtocolError::invalid_params("Invalid params: a string `uri` is required")
            })?;
        self.check_uri_len(uri, "`uri`")?;
        Ok(uri)
    }

    /// Refuses a resource URI (the `what` of a request) longer than the server's
    /// `max_uri_bytes`, before anything matches it against a template or keeps it.
    pub(super) fn check_uri_len(&self, uri: &str, what: &str) -> Result<(), ProtocolError> {
        let max = self.inner.options.max_uri_bytes;
        if uri.len() > max {
            return Err(ProtocolError::invalid_params(format!(
                "Invalid params: {what} is {} bytes, over this server's limit of {max} \
                 (max_uri_bytes)",
                uri.len()
            )));
        }
        Ok(())
    }
}
