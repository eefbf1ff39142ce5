//! One message to the server, whatever the era: a notification or response gets `202`; a
//! request's answer comes back as JSON when it is the first thing the call sends, or else as an
//! event stream that ends with it. In the stateless era the call ends with its response stream.

use std::fmt;
use std::task::Poll;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::Endpoint;
use super::reply_response;
use super::resume::{Resumable, recorded};
use super::session::InFlight;
use super::sse::{sse, sse_complete};
use super::stateless::stateless_status;
use crate::context::connection::Connection;
use crate::context::outgoing::Outgoing;
use crate::context::queue;
use crate::protocol::Incoming;
use crate::server::{Reply, WriteJson};
use crate::transport::poll_once;

/// What happens to a call when its response stream goes away.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lifetime {
    /// Stateless era: the call is cancelled.
    Request,
    /// Handshake era: the call runs on (the client cancels with `notifications/cancelled`).
    Detached,
}

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
            let task = tokio::spawn(async move {
                let _route = route;
                // The session's in-flight count drops when the call answers (or is aborted).
                let _slot = slot;
                let _ = answer_tx.send(answer.await);
            });
            (Some(task), answer_rx)
        }
    };
    let task = CallTask { handle, lifetime };
    let mut frames = Frames {
        events,
        answer: Some(answer_rx),
        answered: None,
        done: false,
    };
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
    sse(messages, endpoint.options.keep_alive)
}

/// One message of a call's response stream: what the call sends before its answer (progress, log
/// messages, requests to the client), then the answer, kept typed so that its id stays exact.
pub(super) enum Frame {
    Message(Outgoing),
    Answer(Reply),
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Frame::Message(m) => m.fmt(f),
            Frame::Answer(r) => r.fmt(f),
        }
    }
}

impl WriteJson for Frame {
    fn write_json(&self, buf: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Frame::Message(m) => serde_json::to_writer(buf, m),
            Frame::Answer(r) => r.write_json(buf),
        }
    }
}

/// The messages routed to one call, then its answer.
pub(super) struct Frames {
    events: queue::Receiver<Outgoing>,
    /// The answer, until it has come.
    answer: Option<oneshot::Receiver<Option<Reply>>>,
    /// The answer once it has come, until the messages queued before it are out.
    answered: Option<Reply>,
    /// The answer was returned (or the call ended without one): nothing follows.
    done: bool,
}

impl Frames {
    /// The next message; `None` after the answer, or when the call ended without one.
    pub(super) async fn next(&mut self) -> Option<Frame> {
        if self.done {
            return None;
        }
        if let Some(answer) = self.answer.as_mut() {
            tokio::select! {
                // What the call sent before it answered is queued before the answer is: it goes first.
                biased;
                Some(message) = self.events.recv() => return Some(Frame::Message(message)),
                answered = answer => {
                    self.answer = None;
                    self.answered = answered.ok().flatten();
                }
            }
        }
        // The call can queue messages and answer between the two polls above; once the answer
        // is in, they are visible, and they still go before it.
        if let Some(message) = self.events.try_recv() {
            return Some(Frame::Message(message));
        }
        self.done = true;
        self.answered.take().map(Frame::Answer)
    }
}

/// The task running one call. In the stateless era dropping it (the client closed the stream)
/// aborts the call, which drops the tool's future.
pub(super) struct CallTask {
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use serde_json::json;

    use super::*;
    use crate::server::ReplyBody;

    /// What a call queues just before it answers goes out before the answer, even when both
    /// land between the stream's look at the messages and its look at the answer. The call runs
    /// on another thread, released at the moment the stream is polled, many times over.
    #[test]
    fn a_message_queued_just_before_the_answer_goes_before_it() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for round in 0..4_000 {
            let (tx, events) = queue::channel();
            let (answer_tx, answer_rx) = oneshot::channel();
            let mut frames = Frames {
                events,
                answer: Some(answer_rx),
                answered: None,
                done: false,
            };
            let (ready, go) = (
                Arc::new(AtomicBool::new(false)),
                Arc::new(AtomicBool::new(false)),
            );
            let call = {
                let (ready, go) = (ready.clone(), go.clone());
                std::thread::spawn(move || {
                    ready.store(true, Ordering::Release);
                    while !go.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                    // Each round a little later, to sweep the moment across the stream's poll.
                    for _ in 0..round % 400 {
                        std::hint::spin_loop();
                    }
                    let _ = tx.send(Outgoing::Json(json!("progress")));
                    let reply = Reply {
                        id: None,
                        body: ReplyBody::Result(json!({})),
                    };
                    let _ = answer_tx.send(Some(reply));
                })
            };
            while !ready.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            go.store(true, Ordering::Release);
            let seen: Vec<&str> = rt.block_on(async {
                let mut seen = Vec::new();
                while let Some(frame) = frames.next().await {
                    seen.push(match frame {
                        Frame::Message(_) => "message",
                        Frame::Answer(_) => "answer",
                    });
                }
                seen
            });
            call.join().unwrap();
            assert_eq!(seen, ["message", "answer"], "round {round}");
        }
    }
}
