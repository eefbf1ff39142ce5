//! The request context a tool can take as `ctx: &Context`: who is calling, progress, logging,
//! cancellation and elicitation.

use std::sync::Arc;

use serde_json::Value;

/// The context of one tool call. Injected into a tool that declares a `&Context` parameter;
/// never part of the input schema.
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

pub(crate) struct ContextInner {
    pub(crate) tool: String,
    pub(crate) request_id: Value,
}

impl Context {
    /// A context for a call that is not attached to any client (direct in-process calls).
    pub fn detached(tool: impl Into<String>) -> Self {
        Context {
            inner: Arc::new(ContextInner {
                tool: tool.into(),
                request_id: Value::Null,
            }),
        }
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &Value {
        &self.inner.request_id
    }
}
