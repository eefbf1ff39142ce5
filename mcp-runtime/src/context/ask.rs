//! Asking the client a question mid-call, in whatever era the call is in: the one path
//! elicitation, sampling and roots share.
//!
//! - In a call that may run as a task, the question goes through the task's input flow
//!   ([`super::task::TaskInput::ask`]).
//! - In the stateless era (2026-07-28) it becomes an entry of the `input_required` result, under
//!   a key made of the method's prefix and how many of that method this run asked before
//!   (`elicit-0`, `sample-0`, `roots-0`); the retry carries the answer under the same key in
//!   `inputResponses`. A run asks its questions in the same order each time, so the keys match.
//! - In the handshake era it is a request from the server over the call's own route, bounded by
//!   the server's `client_request_timeout`.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::connection::{PeerRequestError, lock};
use super::{ClientRequestError, Context, RequestScope};
use crate::error::{ProtocolError, ToolError};

/// What a call can ask the client; each kind numbers its stateless keys on its own.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Question {
    /// `elicitation/create`
    Elicit,
    /// `sampling/createMessage`
    Sample,
    /// `roots/list`
    Roots,
}

/// How many kinds of [`Question`] there are: the size of a scope's counters.
pub(crate) const QUESTIONS: usize = 3;

impl Question {
    fn method(self) -> &'static str {
        match self {
            Question::Elicit => "elicitation/create",
            Question::Sample => "sampling/createMessage",
            Question::Roots => "roots/list",
        }
    }

    fn key_prefix(self) -> &'static str {
        match self {
            Question::Elicit => "elicit",
            Question::Sample => "sample",
            Question::Roots => "roots",
        }
    }
}

impl Context {
    /// Asks the client `question` with `params`, in the call's era (see the module's text); its
    /// result as sent. In the stateless era a first run never returns: the server ends it with
    /// `input_required` and drops this future.
    pub(crate) async fn ask(
        &self,
        question: Question,
        params: Value,
    ) -> Result<Value, ClientRequestError> {
        let scope = self.scope().ok_or(ClientRequestError::NotConnected)?;
        if let Some(task) = &scope.task {
            let asked = json!({"method": question.method(), "params": params});
            return task.clone().ask(asked).await;
        }
        if scope.stateless {
            let seq = scope.input_seq[question as usize].fetch_add(1, Ordering::Relaxed);
            let key = format!("{}-{seq}", question.key_prefix());
            if let Some(answer) = scope.input_responses.get(&key) {
                return Ok(answer.clone());
            }
            let asked = json!({"method": question.method(), "params": params});
            lock(&scope.input_requests).insert(key, asked);
            if let Some(needed) = &scope.input_needed {
                needed.raise();
            }
            return std::future::pending().await;
        }
        scope.request_client(question.method(), params).await
    }
}

impl RequestScope {
    /// The handshake era's question: a request over the call's route, bounded by the server's
    /// `client_request_timeout`.
    pub(crate) async fn request_client(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, ClientRequestError> {
        let asked = self.conn.request_about(Some(&self.request), method, params);
        match tokio::time::timeout(self.client_request_timeout, asked).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(PeerRequestError::Error(e))) => Err(ClientRequestError::Client(e)),
            Ok(Err(PeerRequestError::Closed)) => Err(ClientRequestError::Disconnected),
            Err(_) => Err(ClientRequestError::TimedOut(self.client_request_timeout)),
        }
    }
}

/// Why a sampling request ([`Context::sample`]) or a roots request ([`Context::roots`]) got no
/// answer. `Display` writes a sentence for people; its wording is not a contract.
// What any request to the client can meet reads the same as there (`ClientRequestError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// The call is not attached to a client ([`Context::detached`]).
    #[error("{}", ClientRequestError::NotConnected)]
    NotConnected,
    /// The client did not declare the capability the request needs: `"sampling"`,
    /// `"sampling.tools"` (a sampling request with tools) or `"roots"`.
    #[error(
        "the client does not support {what}: it did not declare the `{0}` capability",
        what = capability_text(.0)
    )]
    Unsupported(&'static str),
    /// The client answered the request with an error (the user refused, say).
    #[error("the client refused the request: {0}")]
    Client(ProtocolError),
    /// The client's answer is not the result the method returns.
    #[error("invalid response from the client: {0}")]
    InvalidResponse(String),
    /// The connection closed before the answer arrived.
    #[error("{}", ClientRequestError::Disconnected)]
    Disconnected,
    /// No answer came within the server's `client_request_timeout`.
    #[error("{}", ClientRequestError::TimedOut(*.0))]
    TimedOut(std::time::Duration),
}

/// What a capability lets the client do, in words.
fn capability_text(capability: &str) -> &str {
    match capability {
        "sampling" => "sampling (its model)",
        "sampling.tools" => "tool use in sampling",
        "roots" => "roots",
        other => other,
    }
}

impl AskError {
    /// The failure of the request that carried the question.
    pub(crate) fn from_request(e: ClientRequestError) -> Self {
        match e {
            ClientRequestError::NotConnected | ClientRequestError::Stateless => {
                AskError::NotConnected
            }
            ClientRequestError::Client(e) => AskError::Client(e),
            ClientRequestError::Disconnected => AskError::Disconnected,
            ClientRequestError::TimedOut(d) => AskError::TimedOut(d),
        }
    }

    /// A tool error the model can read, with this message (for example, what to do without
    /// the client's model); the error itself is logged.
    pub fn into_tool_error(self, message: impl Into<String>) -> ToolError {
        tracing::info!(error = %self, "request to the client failed");
        ToolError::new(message)
    }
}
