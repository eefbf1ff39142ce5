//! `prompts/list` (pages, as `tools/list`) and `prompts/get` (the prompt's arguments validated,
//! its body run attached to the request like a tool call, so it can elicit in both eras).

use serde_json::Value;

use super::scope::{Scope, until_input_needed};
use super::{Outcome, Server};
use crate::context::Context;
use crate::context::connection::{CancelToken, Connection};
use crate::error::ProtocolError;
use crate::protocol::{Page, Request};

impl Server {
    pub(super) fn list_prompts(&self, req: &Request) -> Result<Page, ProtocolError> {
        self.page(req, "prompts", self.inner.prompts.listing())
    }

    /// `prompts/get`, attached to the request (`scope`) like a tool call.
    pub(super) async fn get_prompt(
        &self,
        req: &Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
    ) -> Outcome {
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
        let request_scope = self.request_scope(req, conn, cancel, scope, None);
        let ctx = Context::attached(name.to_owned(), req.id.to_json(), request_scope.clone());
        let arguments = params.and_then(|p| p.get("arguments"));
        let render = prompt.render(self.inner.state.clone(), ctx, arguments);
        match until_input_needed(&request_scope, render).await {
            Ok(result) => Outcome::Answer(result),
            Err(input_required) => Outcome::Answer(Ok(input_required)),
        }
    }
}
