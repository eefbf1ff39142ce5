//! A call that may run as a task: where its questions to the client and its status messages go
//! once the `tools/call` response has gone out. The task runner (`crate::task`) implements
//! [`TaskInput`]; the context only calls it, so nothing here knows how tasks are stored.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::ClientRequestError;

/// The input side of a task, as a [`crate::Context`] sees it.
pub(crate) trait TaskInput: Send + Sync {
    /// Parks the task on `request` (`{"method": …, "params": …}`) until the client answers it:
    /// through `tasks/update` in the stateless era, as a request over the connection in the
    /// handshake era. The task's status is `input_required` meanwhile.
    fn ask(
        self: Arc<Self>,
        request: Value,
    ) -> BoxFuture<'static, Result<Value, ClientRequestError>>;

    /// Sets the task's `statusMessage` (from a progress report's message).
    fn status_message(self: Arc<Self>, message: &str);

    /// True once the call became a task: its `tools/call` response is gone, so the stateless
    /// era's `input_required` round trip ([`crate::Context::require_input`]) is over.
    fn is_task(&self) -> bool;
}
