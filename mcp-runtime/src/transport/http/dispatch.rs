//! One message to the server, whatever the era: a notification or response gets `202`; a
//! request's answer comes back as JSON when it is the first thing the call sends, or else as an
//! event stream that ends with it. In the stateless era the call ends with its response stream.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Endpoint;
use super::json_response;
use super::session::InFlight;
use super::sse::sse;
use super::stateless::stateless_status;
use crate::context::connection::Connection;
use crate::protocol::Incoming;

/// What happens to a call when its response stream goes away.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lifetime {
    /// Stateless era: the call is cancelled.
    Request,
    /// Handshake era: the call runs on (the client cancels with `notifications/cancelled`).
    Detached,
}

/// Hands one message to the server; a request's answer comes back as JSON or as an event stream.
/// `slot`, a place in the session's in-flight count, is held until the call answers.
pub(super) async fn dispatch(
    endpoint: &Endpoint,
    conn: &Connection,
    message: Incoming,
    lifetime: Lifetime,
    slot: Option<InFlight>,
) -> Response {
    let req_id = match &message {
        Incoming::Request(req) => req.id.clone(),
        _ => {
            // Notifications and responses take effect before `handle` returns.
            let _ = endpoint.server.handle(message, conn).await;
            return StatusCode::ACCEPTED.into_response();
        }
    };
    let stateless = lifetime == Lifetime::Request;
    let (sink, mut events) = mpsc::unbounded_channel::<Value>();
    let route = conn.route_request(req_id, sink.clone());
    let answer = endpoint.server.handle(message, conn);
    let task = tokio::spawn(async move {
        let _route = route;
        // The session's in-flight count drops when the call answers (or is aborted).
        let _slot = slot;
        if let Some(response) = answer.await {
            let _ = sink.send(response);
        }
    });
    let task = CallTask {
        handle: Some(task),
        lifetime,
    };
    // The first message decides the shape: the answer itself is sent as JSON; anything before it
    // opens an event stream that ends with the answer.
    let Some(first) = events.recv().await else {
        // Cancelled with no answer: nothing more will come.
        return StatusCode::ACCEPTED.into_response();
    };
    if is_answer(&first) {
        let status = if stateless {
            stateless_status(&first)
        } else {
            StatusCode::OK
        };
        return json_response(status, &first);
    }
    let rest = stream::unfold(
        (events, Some(task), false),
        |(mut events, task, done)| async move {
            if done {
                return None;
            }
            let message = events.recv().await?;
            let done = is_answer(&message);
            Some((message, (events, task, done)))
        },
    );
    let messages = stream::once(async move { first }).chain(rest);
    sse(messages, endpoint.options.keep_alive)
}

/// A response, as opposed to a notification or a request from the server.
fn is_answer(message: &Value) -> bool {
    message.get("method").is_none()
}

/// The task running one call. In the stateless era dropping it (the client closed the stream)
/// aborts the call, which drops the tool's future.
struct CallTask {
    handle: Option<JoinHandle<()>>,
    lifetime: Lifetime,
}

impl Drop for CallTask {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take()
            && self.lifetime == Lifetime::Request
            && !handle.is_finished()
        {
            tracing::info!("the response stream closed; cancelling the call");
            handle.abort();
        }
    }
}
