//! JSON-RPC batches: accepted on a session that negotiated 2025-03-26, whose spec makes receiving
//! them a MUST (later versions removed them).

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::Value;

use super::Server;
use crate::context::connection::Connection;
use crate::error::ProtocolError;
use crate::protocol::{Incoming, error_response};

impl Server {
    /// Whether `conn` negotiated a version whose spec makes receiving JSON-RPC batches a MUST
    /// (2025-03-26; later versions removed batches).
    pub(crate) fn accepts_batches(&self, conn: &Connection) -> bool {
        conn.lock_session()
            .handshake
            .as_ref()
            .is_some_and(|h| h.version == "2025-03-26")
    }

    /// Handles a JSON-RPC batch (the elements of a JSON array) on a connection that accepts
    /// them: each element as its own message, the answers gathered into one array in the order
    /// of the requests. An empty batch is one Invalid Request; a batch of notifications and
    /// responses only gets no answer; `initialize` may not be batched.
    pub(crate) fn batch(
        &self,
        items: Vec<Value>,
        conn: &Connection,
    ) -> BoxFuture<'static, Option<Value>> {
        if items.is_empty() {
            let error = ProtocolError::invalid_request("Invalid Request: an empty batch");
            return futures_util::future::ready(Some(error_response(&Value::Null, &error))).boxed();
        }
        let answers: Vec<BoxFuture<'static, Option<Value>>> = items
            .into_iter()
            .map(|item| match Incoming::from_value(item) {
                Ok(Incoming::Request(req)) if req.method == "initialize" => {
                    let error = ProtocolError::invalid_request(
                        "Invalid Request: `initialize` must not be part of a batch",
                    );
                    futures_util::future::ready(Some(error_response(&req.id.to_json(), &error)))
                        .boxed()
                }
                Ok(message) => self.handle(message, conn),
                Err(rejected) => futures_util::future::ready(Some(rejected.to_response())).boxed(),
            })
            .collect();
        async move {
            let answers: Vec<Value> = futures_util::future::join_all(answers)
                .await
                .into_iter()
                .flatten()
                .collect();
            (!answers.is_empty()).then_some(Value::Array(answers))
        }
        .boxed()
    }
}
