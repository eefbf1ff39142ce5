//! Routing: every method of both eras, named once in one table ([`Method::named`]), narrowed to
//! what this server answers ([`Server::answers`]), then routed to its handler: a handshake-era
//! request by [`Server::route`], a stateless (2026-07-28) one by `Server::stateless`.

use serde_json::{Value, json};

use super::scope::Scope;
use super::{Outcome, Server};
use crate::context::connection::{CancelToken, Connection, Peer};
use crate::error::{ProtocolError, codes};
use crate::protocol::stateless::{
    CacheHint, Envelope, Stamp, discover_result, has_envelope, stamp_result,
};
use crate::protocol::{LATEST_STATELESS_VERSION, Request, params_meta};

/// A method of MCP, of either era: the one table every request is routed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// `initialize` (2025 era).
    Initialize,
    /// `ping` (2025 era; removed in 2026-07-28).
    Ping,
    /// `logging/setLevel` (2025 era; removed in 2026-07-28).
    SetLevel,
    /// `server/discover` (2026-07-28).
    Discover,
    /// `subscriptions/listen` (2026-07-28).
    Listen,
    /// `tools/list`.
    ListTools,
    /// `tools/call`.
    CallTool,
    /// `prompts/list`.
    ListPrompts,
    /// `prompts/get`.
    GetPrompt,
    /// `completion/complete`.
    Complete,
    /// `resources/list`.
    ListResources,
    /// `resources/templates/list`.
    ListTemplates,
    /// `resources/read`.
    ReadResource,
    /// `resources/subscribe` (2025 era).
    Subscribe,
    /// `resources/unsubscribe` (2025 era).
    Unsubscribe,
    /// `tasks/get`.
    TaskGet,
    /// `tasks/result` (2025-11-25).
    TaskResult,
    /// `tasks/cancel`.
    TaskCancel,
    /// `tasks/list` (2025-11-25).
    TaskList,
    /// `tasks/update` (2026-07-28).
    TaskUpdate,
    /// A prompt, resource or completion method of a server that has none of them and answers
    /// them empty ([`crate::ServerBuilder::empty_prompts_and_resources`]).
    Empty,
}

impl Method {
    /// The method `name` names, if it is one of MCP's.
    pub(super) fn named(name: &str) -> Option<Method> {
        Some(match name {
            "initialize" => Method::Initialize,
            "ping" => Method::Ping,
            "logging/setLevel" => Method::SetLevel,
            "server/discover" => Method::Discover,
            crate::protocol::subscriptions::LISTEN => Method::Listen,
            "tools/list" => Method::ListTools,
            "tools/call" => Method::CallTool,
            "prompts/list" => Method::ListPrompts,
            "prompts/get" => Method::GetPrompt,
            "completion/complete" => Method::Complete,
            "resources/list" => Method::ListResources,
            "resources/templates/list" => Method::ListTemplates,
            "resources/read" => Method::ReadResource,
            "resources/subscribe" => Method::Subscribe,
            "resources/unsubscribe" => Method::Unsubscribe,
            "tasks/get" => Method::TaskGet,
            "tasks/result" => Method::TaskResult,
            "tasks/cancel" => Method::TaskCancel,
            "tasks/list" => Method::TaskList,
            "tasks/update" => Method::TaskUpdate,
            _ => return None,
        })
    }

    /// True for the methods of the tasks extension.
    fn is_task(self) -> bool {
        matches!(
            self,
            Method::TaskGet
                | Method::TaskResult
                | Method::TaskCancel
                | Method::TaskList
                | Method::TaskUpdate
        )
    }

    /// True for the methods of resources.
    fn is_resource(self) -> bool {
        matches!(
            self,
            Method::ListResources
                | Method::ListTemplates
                | Method::ReadResource
                | Method::Subscribe
                | Method::Unsubscribe
        )
    }
}

impl Server {
    /// The method `name` names if this server answers it: `prompts/*` when it has a prompt,
    /// `completion/complete` when it declares the completions capability, `resources/*` when it
    /// has a resource, else (those the option names) [`Method::Empty`]; `None` is -32601.
    pub(super) fn answers(&self, name: &str) -> Option<Method> {
        let method = Method::named(name)?;
        let served = match method {
            Method::ListPrompts | Method::GetPrompt => !self.inner.prompts.is_empty(),
            Method::Complete => self.inner.capabilities.get("completions").is_some(),
            m if m.is_resource() => !self.inner.resources.is_empty(),
            _ => true,
        };
        if served {
            return Some(method);
        }
        let empty = self.inner.options.empty_prompts_and_resources
            && !matches!(method, Method::Subscribe | Method::Unsubscribe);
        empty.then_some(Method::Empty)
    }

    /// Routes one request: `initialize`, then a stateless request (an envelope in its `_meta`,
    /// or `server/discover`) to `Server::stateless`, and the rest on the session's handshake.
    pub(super) async fn route(
        &self,
        req: &mut Request,
        conn: &Connection,
        cancel: &CancelToken,
    ) -> Outcome {
        let Some(method) = self.answers(&req.method) else {
            return Outcome::Answer(Err(ProtocolError::method_not_found(&req.method)));
        };
        if method == Method::Initialize {
            return Outcome::Answer(self.initialize(req, conn));
        }
        let meta = params_meta(req.params.as_deref());
        if has_envelope(meta) || method == Method::Discover {
            return self.stateless(method, req, conn, cancel).await;
        }
        let handshake = conn.lock_session().handshake.clone();
        let Some(handshake) = handshake else {
            if method == Method::Ping {
                return Outcome::Answer(Ok(json!({})));
            }
            // Neither `initialize` first nor an envelope: say what is missing.
            return Outcome::Answer(Err(Envelope::parse(meta)
                .err()
                .unwrap_or_else(|| ProtocolError::invalid_params("Invalid params"))));
        };
        match method {
            Method::Ping => Outcome::Answer(Ok(json!({}))),
            Method::SetLevel => Outcome::Answer(self.set_level(req, conn)),
            Method::ListTools => self.list_tools(req).into(),
            Method::CallTool => {
                let scope = Scope::of_session(handshake);
                self.call_tool(req, conn, cancel, scope).await
            }
            Method::ListPrompts => self.list_prompts(req).into(),
            // The futures of the methods off the `tools/call` and list paths are boxed
            // (`Server::request` says why).
            Method::GetPrompt => {
                let scope = Scope::of_session(handshake);
                Box::pin(self.get_prompt(req, conn, cancel, scope)).await
            }
            Method::Complete => Outcome::Answer(Box::pin(self.complete(req)).await),
            m if m.is_resource() => {
                let scope = Scope::of_session(handshake);
                Box::pin(self.resource_request(m, req, conn, cancel, scope)).await
            }
            m if m.is_task() => Box::pin(self.tasks_session(m, req, conn)).await,
            Method::Empty => Outcome::Answer(empty_list(&req.method)),
            // `subscriptions/listen` is the stateless era's; `initialize` and
            // `server/discover` were answered above.
            _ => Outcome::Answer(Err(ProtocolError::method_not_found(&req.method))),
        }
    }

    /// Routes a stateless request: its envelope read, its result stamped with the server's
    /// identity and, for what may be cached, a cache hint.
    async fn stateless(
        &self,
        method: Method,
        req: &mut Request,
        conn: &Connection,
        cancel: &CancelToken,
    ) -> Outcome {
        let envelope = match Envelope::parse(params_meta(req.params.as_deref())) {
            Ok(e) => e,
            Err(e) => return Outcome::Answer(Err(e)),
        };
        let cache = CacheHint {
            ttl_ms: self.inner.options.list_ttl.as_millis() as u64,
            public: true,
        };
        // Each method's envelope is moved or dropped before its await: it needs no room in
        // this future (`Server::request`).
        let (outcome, cache) = match method {
            Method::Discover => (
                Outcome::Answer(Ok(discover_result(
                    &self.capabilities_for(envelope.version),
                    self.instructions(),
                ))),
                Some(cache),
            ),
            Method::ListTools => (self.list_tools(req).into(), Some(cache)),
            Method::CallTool => {
                let scope = Scope::of_envelope(envelope);
                (self.call_tool(req, conn, cancel, scope).await, None)
            }
            Method::Listen => {
                drop(envelope);
                let listened = Box::pin(self.listen(req, conn, cancel)).await;
                (Outcome::Answer(listened), None)
            }
            Method::ListPrompts => (self.list_prompts(req).into(), Some(cache)),
            Method::GetPrompt => {
                let scope = Scope::of_envelope(envelope);
                let got = Box::pin(self.get_prompt(req, conn, cancel, scope)).await;
                (got, None)
            }
            Method::Complete => {
                drop(envelope);
                (Outcome::Answer(Box::pin(self.complete(req)).await), None)
            }
            m if m.is_resource() => {
                // A read is the caller's: not cached, nor shared.
                let cache = match m {
                    Method::ReadResource => CacheHint {
                        ttl_ms: 0,
                        public: false,
                    },
                    _ => cache,
                };
                let scope = Scope::of_envelope(envelope);
                let outcome = Box::pin(self.resource_request(m, req, conn, cancel, scope)).await;
                (outcome, Some(cache))
            }
            m if m.is_task() => {
                // The peer moves into the boxed future.
                let peer = Peer::of_envelope(envelope);
                (
                    Box::pin(self.tasks_stateless(m, req, peer, conn)).await,
                    None,
                )
            }
            Method::Empty => (Outcome::Answer(empty_list(&req.method)), Some(cache)),
            Method::Ping | Method::SetLevel => (Outcome::Answer(Err(removed(&req.method))), None),
            // `initialize` was answered before the envelope was looked for.
            _ => (
                Outcome::Answer(Err(ProtocolError::method_not_found(&req.method))),
                None,
            ),
        };
        let server_info = self.inner.server_info.clone();
        match outcome {
            Outcome::Answer(Ok(mut result)) => {
                stamp_result(&mut result, &self.inner.info, cache);
                Outcome::Answer(Ok(result))
            }
            Outcome::Called(result, _) => Outcome::Called(result, Some(server_info)),
            Outcome::Listed(page) => Outcome::Listed(page.stamped(Stamp { server_info, cache })),
            other => other,
        }
    }
}

/// -32601 for a method of the 2025 era that the 2026-07-28 revision removed.
pub(super) fn removed(method: &str) -> ProtocolError {
    ProtocolError::new(
        codes::METHOD_NOT_FOUND,
        format!("Method not found: {method} (removed in {LATEST_STATELESS_VERSION})"),
    )
}

/// The answer of a server that has no prompts and no resources.
fn empty_list(method: &str) -> Result<Value, ProtocolError> {
    match method {
        "prompts/list" => Ok(json!({"prompts": []})),
        "resources/list" => Ok(json!({"resources": []})),
        "resources/templates/list" => Ok(json!({"resourceTemplates": []})),
        "completion/complete" => {
            Ok(json!({"completion": {"values": [], "total": 0, "hasMore": false}}))
        }
        "prompts/get" => Err(ProtocolError::invalid_params(
            "Invalid params: this server has no prompts",
        )),
        _ => Err(ProtocolError::invalid_params(
            "Invalid params: this server has no resources",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::Method;

    /// Every method the table names is named back by its own name, and only MCP's are known.
    #[test]
    fn the_table_names_each_method_once() {
        let names = [
            "initialize",
            "ping",
            "logging/setLevel",
            "server/discover",
            "subscriptions/listen",
            "tools/list",
            "tools/call",
            "prompts/list",
            "prompts/get",
            "completion/complete",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "resources/subscribe",
            "resources/unsubscribe",
            "tasks/get",
            "tasks/result",
            "tasks/cancel",
            "tasks/list",
            "tasks/update",
        ];
        let methods: Vec<Method> = names.iter().filter_map(|n| Method::named(n)).collect();
        assert_eq!(methods.len(), names.len());
        for (i, m) in methods.iter().enumerate() {
            assert!(!methods[..i].contains(m), "{m:?} is named twice");
        }
        for unknown in [
            "",
            "tools/cal",
            "Tools/list",
            "notifications/initialized",
            "rpc.discover",
        ] {
            assert_eq!(Method::named(unknown), None, "{unknown}");
        }
    }
}
