//! One message to the server, whatever the era: a notification or response gets `202`; a
//! request's answer comes back as JSON when it is the first thing the call sends, or else as an
//! event stream that ends with it. In the stateless era the call ends with its response stream.

use std::task::Poll;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use futures_util::stream::{self, StreamExt};
use tokio::sync::oneshot;

use super::Endpoint;
use super::frames::{CallTask, Frame, Frames, Lifetime};
use super::ops::until_drain;
use super::reply_response;
use super::resume::{Resumable, recorded};
use super::session::InFlight;
use super::sse::{json_message, sse, sse_complete, sse_events};
use crate::context::connection::Connection;
use crate::context::outgoing::Outgoing;
use crate::context::queue;
use crate::error::codes;
use crate::protocol::Incoming;
use crate::protocol::subscriptions::LISTEN;
use crate::server::Reply;
use crate::transport::poll_once;

/// Hands one message to the server; a request's answer comes back as JSON or as an event stream.
/// `slot`, a place in the session's in-flight count, is held until the call answers. A stream of
/// the session named `resumable` is recorded in the endpoint's event store (see `resume.rs`).
/// `alone`: the connection's own queue, when the connection carries this request and nothing
/// else (a stateless request): what it sends is the request's, and no route is needed.
pub(super) async fn dispatch(
    endpoint: &Endpoint,
    conn: &Connection,
    message: Incoming,
    lifetime: Lifetime,
    slot: Option<InFlight>,
    resumable: Option<&str>,
    alone: Option<queue::Receiver<Outgoing>>,
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
    let listen = matches!(&message, Incoming::Request(req) if req.method == LISTEN);
    let (route, events) = match alone {
        Some(events) => (None, events),
        None => {
            let (sink, events) = queue::channel::<Outgoing>();
            (Some(conn.route_request(req_id.clone(), sink)), events)
        }
    };
    let mut answer = endpoint.server.handle(message, conn);
    // Most calls answer at once (their work is synchronous): polled here, such a call needs no
    // task of its own, and its answer goes out as JSON without a channel in between.
    let (handle, answer_rx) = match poll_once(&mut answer) {
        Poll::Ready(reply) => {
            drop(route);
            drop(slot);
            if events.is_empty() {
                return match reply {
                    Some(reply) if stateless => reply_response(stateless_status(&reply), &reply),
                    Some(reply) => reply_response(StatusCode::OK, &reply),
                    None => StatusCode::ACCEPTED.into_response(),
                };
            }
            // It sent something before answering: an event stream. All of it is known already,
            // so unless the stream is recorded for resumption it is written as one body.
            if resumable.is_none() {
                let mut events = events;
                let sent = std::iter::from_fn(|| events.try_recv()).map(Frame::Message);
                return sse_complete(sent.chain(reply.map(Frame::Answer)));
            }
            let (answer_tx, answer_rx) = oneshot::channel();
            let _ = answer_tx.send(reply);
            (None, answer_rx)
        }
        Poll::Pending => {
            let (answer_tx, answer_rx) = oneshot::channel();
            // Counted until it answers; cut at the drain's deadline with a retryable error.
            // A listen is no call: it ends when the drain begins (below).
            let answer = if listen {
                Either::Left(answer)
            } else {
                Either::Right(endpoint.drain.bound_request(req_id.clone(), answer))
            };
            let task = tokio::spawn(async move {
                let _route = route;
                // The session's in-flight count drops when the call answers (or is aborted).
                let _slot = slot;
                let _ = answer_tx.send(answer.await);
            });
            (Some(task), answer_rx)
        }
    };
    let task = CallTask::new(handle, lifetime);
    let mut frames = Frames::new(events, answer_rx);
    // The first message decides the shape: the answer itself is sent as JSON; anything before it
    // opens an event stream that ends with the answer.
    let Some(first) = frames.next().await else {
        // Cancelled with no answer: nothing more will come.
        return StatusCode::ACCEPTED.into_response();
    };
    if let Frame::Answer(reply) = &first {
        let status = if stateless {
            stateless_status(reply)
        } else {
            StatusCode::OK
        };
        return reply_response(status, reply);
    }
    if let Some(session) = resumable {
        let resumable = Resumable::of(session, conn);
        return recorded(endpoint, resumable, &req_id, first, frames, task);
    }
    let rest = stream::unfold((frames, Some(task)), |(mut frames, task)| async move {
        let frame = frames.next().await?;
        Some((frame, (frames, task)))
    });
    let messages = stream::once(async move { first }).chain(rest);
    if listen {
        // A listen never ends on its own: the drain ends it, and the client listens elsewhere.
        let events = messages.map(|m| json_message(&m));
        let events = until_drain(events, &endpoint.drain, endpoint.options.sse_retry, false);
        return sse_events(events, endpoint.options.keep_alive);
    }
    sse(messages, endpoint.options.keep_alive)
}

/// The stateless era's status for a JSON-RPC error: 404 for an unknown method, 400 for a request
/// the server cannot take as sent.
pub(super) fn stateless_status(response: &Reply) -> StatusCode {
    let code = response.protocol_error().map(|e| e.code);
    match code {
        None => StatusCode::OK,
        Some(codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            codes::PARSE_ERROR
            | codes::INVALID_REQUEST
            | codes::INVALID_PARAMS
            | codes::HEADER_MISMATCH
            | codes::MISSING_CAPABILITY
            | codes::UNSUPPORTED_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Some(_) => StatusCode::OK,
    }
}
