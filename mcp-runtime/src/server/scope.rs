//! What a request that runs user code (`tools/call`, `prompts/get`) is attached to: its
//! [`RequestScope`] (progress, logging, cancellation, elicitation in both eras), and the run that
//! ends early with an `input_required` result when the code asks the client for input in the
//! stateless era.

use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use super::Server;
use crate::context::RequestScope;
use crate::context::connection::{CancelToken, Connection, Handshake, Peer, lock};
use crate::context::signal::Signal;
use crate::protocol::stateless::Envelope;
use crate::protocol::{LogLevel, Request, params_meta};

/// What a request needs to know about the caller, from `initialize` or from the envelope.
pub(super) struct Scope {
    pub(super) version: &'static str,
    /// `Some(log level)` for a stateless request.
    pub(super) stateless: Option<Option<LogLevel>>,
    pub(super) peer: Arc<Peer>,
}

impl Scope {
    /// The scope of a request on a session that completed the handshake.
    pub(super) fn of_session(h: Handshake) -> Scope {
        Scope {
            version: h.version,
            stateless: None,
            peer: h.peer,
        }
    }

    /// The scope of a stateless request, from its envelope.
    pub(super) fn of_envelope(envelope: Envelope) -> Scope {
        Scope {
            version: envelope.version,
            stateless: Some(envelope.log_level),
            peer: Arc::new(Peer {
                client_info: envelope.client_info,
                capabilities: envelope.capabilities,
            }),
        }
    }
}

impl Server {
    /// The scope `req` runs in: its `_meta` (progress token), and in the stateless era the
    /// `inputResponses` and `requestState` a retry carries.
    pub(super) fn request_scope(
        &self,
        req: &Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
        task: Option<Arc<dyn crate::context::task::TaskInput>>,
    ) -> Arc<RequestScope> {
        let params = req.params.as_deref();
        let meta = params_meta(params);
        Arc::new(RequestScope {
            conn: conn.clone(),
            request: req.id.clone(),
            version: scope.version,
            stateless: scope.stateless.is_some(),
            peer: scope.peer,
            request_log_level: scope.stateless.flatten(),
            progress_token: meta
                .and_then(|m| m.progress_token.as_ref())
                .filter(|t| t.is_string() || t.is_number())
                .cloned(),
            last_progress: Mutex::new(None),
            finished: AtomicBool::new(false),
            cancel: cancel.clone(),
            input_responses: params
                .and_then(|p| p.get("inputResponses"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            input_requests: Mutex::new(Map::new()),
            input_needed: scope.stateless.is_some().then(Signal::default),
            input_seq: Default::default(),
            request_state_in: params
                .and_then(|p| p.get("requestState"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            request_state_out: Mutex::new(None),
            client_request_timeout: self.inner.options.client_request_timeout,
            task,
        })
    }
}

/// Runs `fut` to its end, or until it asks the client for input in the stateless era: then
/// `Err` holds the `input_required` result that ends the request. Either way nothing about the
/// request is sent after this returns.
pub(super) async fn until_input_needed<T>(
    scope: &RequestScope,
    fut: impl Future<Output = T>,
) -> Result<T, Value> {
    let outcome = match &scope.input_needed {
        None => Ok(fut.await),
        Some(needed) => tokio::select! {
            // The call first: one that is done at once never waits on the signal.
            biased;
            r = fut => Ok(r),
            () = needed.raised() => Err(input_required(scope)),
        },
    };
    scope
        .finished
        .store(true, std::sync::atomic::Ordering::Release);
    outcome
}

/// The `input_required` result of a stateless run that asked for input.
pub(super) fn input_required(scope: &RequestScope) -> Value {
    let requests = lock(&scope.input_requests).clone();
    let mut result = json!({"resultType": "input_required", "inputRequests": requests});
    if let Some(state) = lock(&scope.request_state_out).take() {
        result["requestState"] = state.into();
    }
    result
}
