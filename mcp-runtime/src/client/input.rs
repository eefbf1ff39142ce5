//! The client's answers to the server's questions (elicitation, sampling, roots), in both eras:
//! requests the server sends (handshake era), and the `inputRequests` of an `input_required`
//! result, answered by repeating the request with `inputResponses` (stateless era).

use super::*;
use crate::context::roots::Root;
use crate::context::sampling::{CreateMessageRequest, CreateMessageResult};

pub(super) type SamplingFn = Arc<
    dyn Fn(CreateMessageRequest) -> BoxFuture<'static, Result<CreateMessageResult, ProtocolError>>
        + Send
        + Sync,
>;

impl ClientBuilder {
    /// Answers `sampling/createMessage` with `f`, this client's model; setting it declares the
    /// `sampling` capability (with `tools` from 2025-11-25 on). An `Err` is the client's error
    /// answer (the user refused, say): in the stateless era, where an answer cannot be an error,
    /// the call that asked fails with it instead.
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ProtocolError>> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |r| Box::pin(f(r))));
        self
    }

    /// The roots this client offers (`roots/list`); setting them declares the `roots` capability
    /// with `listChanged`. [`Client::set_roots`] changes them later.
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }
}

impl Client {
    /// Replaces the roots this client offers and, in the handshake era, tells the server with
    /// `notifications/roots/list_changed`. A client built without [`ClientBuilder::roots`]
    /// declared no roots capability: its list changes all the same, and the server is not told.
    pub fn set_roots(&self, roots: Vec<Root>) {
        let declared = {
            let mut current = lock(&self.inner.roots);
            let declared = current.is_some();
            *current = Some(roots);
            declared
        };
        if declared && !self.inner.stateless() {
            self.notify("notifications/roots/list_changed", json!({}));
        }
    }

    /// `method` with `params`; in the stateless era an `input_required` result is answered
    /// through the client's handlers and the request repeated with the answers, up to 10 rounds.
    pub(crate) async fn request_with_input(
        &self,
        method: &str,
        mut params: Value,
    ) -> Result<Value, ClientError> {
        for _ in 0..10 {
            let result = self.request(method, params.clone()).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let mut responses = Map::new();
            if let Some(requests) = result.get("inputRequests").and_then(Value::as_object) {
                for (key, request) in requests {
                    let method = request.get("method").and_then(Value::as_str);
                    let params = request.get("params").unwrap_or(&Value::Null);
                    let answer = match method {
                        Some(method) => answer(&self.inner, method, params).await,
                        None => Err(ProtocolError::invalid_request(
                            "an input request without a method",
                        )),
                    };
                    let answer = answer.map_err(|e| match e.code {
                        crate::error::codes::METHOD_NOT_FOUND => {
                            ClientError::InvalidResult(format!(
                                "the server asked for input this client cannot give: {request}"
                            ))
                        }
                        _ => ClientError::Protocol(e),
                    })?;
                    responses.insert(key.clone(), answer);
                }
            }
            params["inputResponses"] = Value::Object(responses);
            if let Some(state) = result.get("requestState") {
                params["requestState"] = state.clone();
            }
        }
        Err(ClientError::InvalidResult(
            "the server asked for input more than 10 times".into(),
        ))
    }
}

/// This client's answer to the server's request `method` with `params`: its result, or the
/// error to answer with (`method not found` for what it was not given a handler for).
pub(super) async fn answer(
    inner: &ClientInner,
    method: &str,
    params: &Value,
) -> Result<Value, ProtocolError> {
    match method {
        "ping" => Ok(json!({})),
        "elicitation/create" => match &inner.elicitation {
            Some(handler) => Ok(json!(handler(elicitation_request(params)).await)),
            None => Err(ProtocolError::method_not_found(method)),
        },
        "sampling/createMessage" => {
            let Some(handler) = &inner.sampling else {
                return Err(ProtocolError::method_not_found(method));
            };
            let request: CreateMessageRequest = serde_json::from_value(params.clone())
                .map_err(|e| ProtocolError::invalid_params(format!("Invalid params: {e}")))?;
            let result = handler(request).await?;
            serde_json::to_value(result).map_err(|e| ProtocolError::internal(e.to_string()))
        }
        "roots/list" => match &*lock(&inner.roots) {
            Some(roots) => Ok(json!({ "roots": roots })),
            None => Err(ProtocolError::method_not_found(method)),
        },
        other => Err(ProtocolError::method_not_found(other)),
    }
}
