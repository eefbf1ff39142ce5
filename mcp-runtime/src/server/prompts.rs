//! `prompts/list` (pages, as `tools/list`) and `prompts/get` (the prompt's arguments validated,
//! its body run attached to the request like a tool call, so it can elicit in both eras), and
//! which of the prompt and completion methods a server answers.

use std::sync::Arc;

use serde_json::Value;

use super::scope::{Scope, until_input_needed};
use super::{Outcome, Server};
use crate::context::connection::{CancelToken, Connection};
use crate::context::{Context, RequestScope};
use crate::error::ProtocolError;
use crate::protocol::{Page, Request};

impl Server {
    /// True when this server answers `method` from its own prompts: `prompts/*` when it has a
    /// prompt, `completion/complete` when it declares the completions capability.
    pub(super) fn serves(&self, method: &str) -> bool {
        match method {
            "prompts/list" | "prompts/get" => !self.inner.prompts.is_empty(),
            "completion/complete" => self.inner.capabilities.get("completions").is_some(),
            _ => false,
        }
    }

    /// The methods that run attached to the request: `tools/call`, and those [`Server::serves`].
    /// The futures of all but `tools/call` are boxed (`Server::request` says why).
    pub(super) async fn scoped(
        &self,
        scope: Scope,
        req: &mut Request,
        conn: &Connection,
        cancel: &CancelToken,
    ) -> Outcome {
        match req.method.as_str() {
            "tools/call" => self.call_tool(req, conn, cancel, scope).await,
            "prompts/list" => self.list_prompts(req).into(),
            "prompts/get" => {
                let attached = self.request_scope(req, conn, cancel, scope, None);
                Box::pin(self.get_prompt(req, attached)).await
            }
            "completion/complete" => Outcome::Answer(Box::pin(self.complete(req)).await),
            m => Outcome::Answer(Err(ProtocolError::method_not_found(m))),
        }
    }

    fn list_prompts(&self, req: &Request) -> Result<Page, ProtocolError> {
        self.page(req, "prompts", self.inner.prompts.listing())
    }

    async fn get_prompt(&self, req: &Request, request_scope: Arc<RequestScope>) -> Outcome {
        let params = req.params.as_ref();
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Outcome::Answer(Err(ProtocolError::invalid_params(
                "Invalid params: prompts/get needs a string `name`",
            )));
        };
        let Some(prompt) = self.inner.prompts.get(name) else {
            tracing::info!(prompt = name, "unknown prompt");
            return Outcome::Answer(Err(ProtocolError::invalid_params(format!(
                "Unknown prompt: {name}"
            ))));
        };
        let ctx = Context::attached(name.to_owned(), req.id.to_json(), request_scope.clone());
        let arguments = params.and_then(|p| p.get("arguments"));
        let render = prompt.render(self.inner.state.clone(), ctx, arguments);
        match until_input_needed(&request_scope, render).await {
            Ok(result) => Outcome::Answer(result),
            Err(input_required) => Outcome::Answer(Ok(input_required)),
        }
    }
}
