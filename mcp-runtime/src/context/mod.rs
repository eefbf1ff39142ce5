//! The request context a tool can take as `ctx: &Context`: who is calling, progress, logging,
//! cancellation, and questions to the client: elicitation, sampling, roots.
//!
//! | file | what it holds |
//! |---|---|
//! | this file | [`Context`]: progress, logging, cancellation, elicitation, the caller |
//! | `ask.rs` | asking the client in whatever era the call is in (task, `input_required`, request); [`AskError`] |
//! | `connection.rs` | one client connection: era, identity, requests in flight, the outgoing sink |
//! | `elicitation.rs` | the requested-schema profile and the answer's parsing |
//! | `sampling.rs` | [`Context::sample`]: the client's model, typed request and result |
//! | `roots.rs` | [`Context::roots`]: the client's roots; [`RootsChanged`] |
//! | `principal.rs` | `Principal`: the verified identity behind a request (HTTP with `auth`) |
//! | `outgoing.rs` | what that queue carries: JSON, or a progress notification kept typed |
//! | `queue.rs` | the queue a connection's outgoing messages wait in, empty until used |
//! | `task.rs` | where a task's questions and status messages go once its call became a task |
//! | `signal.rs` | a one-way flag a request's code raises and the server waits on (cheaper than a cancellation token where that is all it needs) |

pub(crate) mod ask;
// Users name the types below, at `context::`. A connection, its queue and what the queue
// carries are the transports' business: public for benches, fuzzing and tests only, hidden.
#[doc(hidden)]
pub mod connection;
pub(crate) mod elicitation;
#[doc(hidden)]
pub mod outgoing;
pub(crate) mod principal;
#[doc(hidden)]
pub mod queue;
pub(crate) mod roots;
pub(crate) mod sampling;
pub(crate) mod signal;
pub(crate) mod task;

pub use self::ask::AskError;
#[doc(hidden)]
pub use self::elicitation::requested_schema;
pub use self::elicitation::{ElicitError, Elicitation};
pub use self::roots::{Root, RootsChanged};
pub use self::sampling::{
    CreateMessageRequest, CreateMessageResult, IncludeContext, ModelHint, ModelPreferences,
    SamplingContent, SamplingMessage, SamplingTool, StopReason, ToolChoice, ToolChoiceMode,
};

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::context::ask::Question;
use crate::context::connection::{CancelToken, Connection, Peer, lock};
use crate::context::elicitation::parse_answer;
use crate::context::outgoing::{Outgoing, Progress};
use crate::protocol::{
    ClientCapabilities, Implementation, LogLevel, RequestId, notification_message,
};

/// The context of one tool call. Injected into a tool that declares a `&Context` parameter;
/// never part of the input schema.
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

pub(crate) struct ContextInner {
    /// The tool's name (borrowed from its spec when the tool is known).
    pub(crate) tool: Cow<'static, str>,
    pub(crate) request_id: Value,
    pub(crate) scope: Option<Arc<RequestScope>>,
}

/// What a call attached to a client knows about its request and connection.
pub(crate) struct RequestScope {
    pub(crate) conn: Connection,
    /// The request being served: its notifications follow its route (see
    /// [`Connection::route_request`]).
    pub(crate) request: RequestId,
    pub(crate) version: &'static str,
    pub(crate) stateless: bool,
    pub(crate) peer: Arc<Peer>,
    /// Stateless era: the level the request opted into (`None`: no log messages).
    pub(crate) request_log_level: Option<LogLevel>,
    pub(crate) progress_token: Option<Value>,
    pub(crate) last_progress: Mutex<Option<f64>>,
    /// Set just before the response is queued: nothing about this request is sent after it.
    pub(crate) finished: AtomicBool,
    pub(crate) cancel: CancelToken,
    /// Stateless era: the answers a retried request carries (`inputResponses`).
    pub(crate) input_responses: Map<String, Value>,
    /// Stateless era: the questions this run needs answered before it can finish.
    pub(crate) input_requests: Mutex<Map<String, Value>>,
    /// Fires when `input_requests` gained an entry: the server then ends the run with an
    /// `input_required` result. `None` outside the stateless era, where no request asks for
    /// input this way (and none is made per request).
    pub(crate) input_needed: Option<signal::Signal>,
    /// Stateless era: how many questions of each kind this run asked (see [`ask`]).
    pub(crate) input_seq: [AtomicU64; ask::QUESTIONS],
    /// How long a request to the client may wait for its answer.
    pub(crate) client_request_timeout: std::time::Duration,
    /// Stateless era: the `requestState` the client echoed.
    pub(crate) request_state_in: Option<String>,
    /// Stateless era: the `requestState` to send with an `input_required` result.
    pub(crate) request_state_out: Mutex<Option<String>>,
    /// A call that may run as a task: its input flow and status.
    pub(crate) task: Option<Arc<dyn task::TaskInput>>,
}

impl RequestScope {
    fn log_allowed(&self, level: LogLevel) -> bool {
        if self.stateless {
            self.request_log_level.is_some_and(|min| level >= min)
        } else {
            self.conn
                .lock_session()
                .log_level
                .is_none_or(|min| level >= min)
        }
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(notification_message(method, params).into());
    }

    fn send(&self, message: Outgoing) {
        if !self.finished.load(Ordering::Acquire) {
            self.conn.send_about(&self.request, message);
        }
    }
}

static NO_CAPABILITIES: ClientCapabilities = ClientCapabilities(Value::Null);

impl Context {
    /// The request this call is attached to; `None` for a detached context.
    pub(crate) fn scope(&self) -> Option<&RequestScope> {
        self.inner.scope.as_deref()
    }

    /// A context for a call that is not attached to any client (direct in-process calls).
    /// Progress and log messages go nowhere; elicitation fails with
    /// [`ElicitError::NotConnected`].
    pub fn detached(tool: impl Into<String>) -> Self {
        Context {
            inner: Arc::new(ContextInner {
                tool: Cow::Owned(tool.into()),
                request_id: Value::Null,
                scope: None,
            }),
        }
    }

    pub(crate) fn attached(
        tool: impl Into<Cow<'static, str>>,
        request_id: Value,
        scope: Arc<RequestScope>,
    ) -> Self {
        Context {
            inner: Arc::new(ContextInner {
                tool: tool.into(),
                request_id,
                scope: Some(scope),
            }),
        }
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool
    }

    /// The JSON-RPC id of the request (`null` for a detached context).
    pub fn request_id(&self) -> &Value {
        &self.inner.request_id
    }

    /// The client's `clientInfo` (from `initialize`, or from the stateless request's `_meta`).
    pub fn client_info(&self) -> Option<&Implementation> {
        self.scope()?.peer.client_info.as_ref()
    }

    /// The capabilities the client declared (empty for a detached context).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        self.scope()
            .map_or(&NO_CAPABILITIES, |s| &s.peer.capabilities)
    }

    /// The verified principal of the caller, when the HTTP endpoint checks access tokens
    /// (feature `auth`): in the stateless era the request's own, in a session the one that opened
    /// it (a session is bound to its creator's subject). Never the token itself.
    #[cfg(feature = "auth")]
    pub fn principal(&self) -> Option<&principal::Principal> {
        self.inner.scope.as_ref()?.conn.inner.principal.as_ref()
    }

    /// The protocol version this request is served under.
    pub fn protocol_version(&self) -> Option<&str> {
        self.scope().map(|s| s.version)
    }

    /// Reports progress as `notifications/progress`, when the request carried a
    /// `progressToken`; in a task, `message` also becomes the task's `statusMessage`. `done` must grow from one report to the next: a report that does not
    /// is dropped, and so is any report made after the response went out. A report made before
    /// the call returns reaches the client before its response, over every transport.
    pub fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        let Some(scope) = self.scope() else {
            return;
        };
        if let (Some(task), Some(m)) = (&scope.task, message) {
            task.clone().status_message(m);
        }
        let Some(token) = &scope.progress_token else {
            return;
        };
        {
            let mut last = lock(&scope.last_progress);
            if last.is_some_and(|l| done <= l) || !done.is_finite() {
                tracing::debug!(tool = %self.inner.tool, done, "progress not increasing; dropped");
                return;
            }
            *last = Some(done);
        }
        scope.send(Outgoing::Progress(Progress {
            token: token.clone(),
            progress: done,
            total,
            message: message.map(str::to_owned),
        }));
    }

    /// Sends a log message (`notifications/message`) when the client wants this level: in the
    /// handshake era, at or above the level of `logging/setLevel` (every level before it); in the
    /// stateless era, only when the request's `_meta` asked for a level, at or above it.
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        self.log_data(level, Value::String(message.into()));
    }

    /// [`Context::log`] with any JSON as the message's `data`.
    pub fn log_data(&self, level: LogLevel, data: Value) {
        let Some(scope) = self.scope() else {
            return;
        };
        if !scope.log_allowed(level) {
            return;
        }
        scope.notify(
            "notifications/message",
            json!({"level": level.as_str(), "logger": self.inner.tool, "data": data}),
        );
    }

    /// True once the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.scope().is_some_and(|s| s.cancel.is_cancelled())
    }

    /// Resolves when the client cancels this request (never, for a detached context). A tool
    /// that is simply awaiting needs no such check: its future is dropped on cancellation.
    pub async fn cancelled(&self) {
        match self.scope() {
            Some(s) => s.cancel.cancelled().await,
            None => std::future::pending().await,
        }
    }

    /// Asks the user for a `T` through the client (`elicitation/create`, form mode), with
    /// `message` as the question. `T` must be a struct of primitive fields (strings, numbers,
    /// booleans, enums of strings).
    ///
    /// In the handshake era this is a request from the server to the client over the same
    /// connection. In the stateless era the call ends with an `input_required` result carrying
    /// the question; the client answers it by calling the tool again with `inputResponses`, and
    /// this run then gets the answer here. A tool is therefore run again from the start in that
    /// era: ask before changing anything.
    ///
    /// Fails with [`ElicitError::Unsupported`] when the client did not declare the elicitation
    /// capability; [`ElicitError::into_tool_error`] turns any failure into a message the model
    /// can act on.
    pub async fn elicit<T: JsonSchema + DeserializeOwned>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ElicitError> {
        let scope = self.scope().ok_or(ElicitError::NotConnected)?;
        if !scope.peer.capabilities.elicitation() {
            return Err(ElicitError::Unsupported);
        }
        let schema = requested_schema::<T>()?;
        let mut params = json!({"message": message.into(), "requestedSchema": schema});
        if matches!(scope.version, "2025-11-25" | "2026-07-28") {
            params["mode"] = "form".into();
        }
        match self.ask(Question::Elicit, params).await {
            Ok(answer) => parse_answer(&answer, &schema),
            Err(e) => Err(ElicitError::from_request(e)),
        }
    }
}

/// Why a request to the client ([`Context::client_request`]) got no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientRequestError {
    /// The call is not attached to a client ([`Context::detached`]).
    #[error("the call is not attached to a client")]
    NotConnected,
    /// The request is served statelessly: the server cannot send requests to the client; ask
    /// with [`Context::require_input`] instead.
    #[error("a stateless request cannot send requests to the client")]
    Stateless,
    /// The client answered with an error.
    #[error("the client answered with an error: {0}")]
    Client(crate::error::ProtocolError),
    /// The connection closed before the answer arrived.
    #[error("the client disconnected")]
    Disconnected,
    /// No answer came within the server's `client_request_timeout`.
    #[error("the client did not answer within {}s", .0.as_secs_f64())]
    TimedOut(std::time::Duration),
}

impl Context {
    /// Sends the request `method` with `params` to the client and waits for its result: a form
    /// [`Context::elicit`] cannot express, a method this crate has no typed call for (sampling
    /// and roots have theirs: [`Context::sample`], [`Context::roots`], in both eras). Handshake
    /// era only; it travels on the call's own response stream over HTTP.
    /// The caller checks the client declared the capability the method needs
    /// ([`Context::client_capabilities`]).
    pub async fn client_request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, ClientRequestError> {
        let scope = self.scope().ok_or(ClientRequestError::NotConnected)?;
        if scope.stateless {
            return Err(ClientRequestError::Stateless);
        }
        scope.request_client(method, params).await
    }

    /// Stateless era: the client's answer to the input request named `key`, when this call is a
    /// retry carrying `inputResponses` (see [`Context::require_input`]).
    pub fn input_response(&self, key: &str) -> Option<&Value> {
        self.scope()?.input_responses.get(key)
    }

    /// Stateless era: the `requestState` the client echoed from an earlier `input_required`
    /// result, exactly as sent. It travelled through the client: verify it before trusting it.
    pub fn request_state(&self) -> Option<&str> {
        self.scope()?.request_state_in.as_deref()
    }

    /// Stateless era: ends this run with an `input_required` result asking the client the
    /// `requests` (key → `{"method": …, "params": …}`, for `elicitation/create`,
    /// `sampling/createMessage` or `roots/list`), with `request_state` for the retry to echo.
    /// The client calls the tool again with the answers under the same keys
    /// ([`Context::input_response`]).
    ///
    /// In the stateless era this never returns (the server drops the run). Elsewhere, and in a
    /// call that already became a task (ask with [`Context::elicit`] there), it returns at once
    /// with a tool error saying the input cannot be asked for this way.
    pub async fn require_input(
        &self,
        requests: Map<String, Value>,
        request_state: Option<String>,
    ) -> crate::ToolError {
        let mid_round_trip =
            |s: &&RequestScope| s.stateless && s.task.as_ref().is_none_or(|t| !t.is_task());
        let Some(scope) = self.scope().filter(mid_round_trip) else {
            return crate::ToolError::new(
                "this tool needs input from the client, which only a stateless (2026-07-28) \
                 request can provide this way",
            );
        };
        lock(&scope.input_requests).extend(requests);
        *lock(&scope.request_state_out) = request_state;
        if let Some(needed) = &scope.input_needed {
            needed.raise();
        }
        std::future::pending().await
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("tool", &self.inner.tool)
            .field("request_id", &self.inner.request_id)
            .field("attached", &self.inner.scope.is_some())
            .finish()
    }
}
