//! Resumable streams (handshake era): every event of a session's streams carries an id and is
//! kept in the endpoint's [`EventStore`] before it goes on the wire; a client whose stream broke
//! sends `GET` with `Last-Event-ID` (to any replica sharing the store) and gets what it missed,
//! then the rest as it comes.
//!
//! - A request's stream is written by a task of its own ([`recorded`]), which goes on writing to
//!   the store when the client's connection drops: the request's later messages and its answer
//!   wait there. The task holds the stream's lease while the request runs
//!   ([`HttpOptions::stream_lease`]).
//! - Resuming a request's stream ([`resume`]) replays from the store and follows it until the
//!   answer. When the lease lapses with no answer, the replica running the request is gone: the
//!   resumed stream ends with a JSON-RPC error for the request's id (2025-11-25
//!   basic/transports/streamable-http, Resumability and Redelivery: a client must not wait on a
//!   stream that can no longer answer).
//! - The session's `GET` stream is recorded the same way (see `session/mod.rs`); resuming it
//!   replays what was missed and goes on as the session's stream.
//! - Clients of 2025-11-25 get a priming event first (an id and no data, with `retry`), so that
//!   they can resume a stream that broke before its first message; with
//!   [`HttpOptions::close_streams_after`] their request streams close after a while and they
//!   resume them ("SSE polling").
//!
//! [`HttpOptions::stream_lease`]: super::HttpOptions::stream_lease
//! [`HttpOptions::close_streams_after`]: super::HttpOptions::close_streams_after

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::Response;
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::frames::{CallTask, Frame, Frames};
use super::ops::until_drain;
use super::session::random_u64;
use super::sse::{Event, message, priming, sse_events};
use super::store::{EventId, EventKind, EventStore, StoredEvent, StreamKey};
use super::{Endpoint, HttpOptions, Refusal};
use crate::context::connection::Connection;
use crate::error::error_chain;
use crate::error::{ProtocolError, codes};
use crate::protocol::RequestId;
use crate::server::Reply;

/// How long a reader of a stream waits for its next event before it looks at the lease again.
const FOLLOW_WAIT: Duration = Duration::from_millis(500);

/// A session whose streams are recorded.
pub(super) struct Resumable {
    session: Arc<str>,
    /// The client speaks 2025-11-25 or later: it gets the priming event.
    priming: bool,
}

impl Resumable {
    /// The session `id` served through `conn`.
    pub(super) fn of(id: &str, conn: &Connection) -> Resumable {
        Resumable {
            session: id.into(),
            priming: conn.negotiated_version().is_some_and(|v| v >= "2025-11-25"),
        }
    }

    /// True when the client gets the priming event.
    pub(super) fn primes(&self) -> bool {
        self.priming
    }

    /// A new stream of this session: `r…` for a request's, `g…` for the `GET` stream.
    pub(super) fn new_stream(&self, kind: char) -> StreamKey {
        StreamKey::new(self.session.clone(), format!("{kind}{:016x}", random_u64()))
    }
}

/// Appends a stream's events in order; a store that fails is logged once per stream and not
/// asked again for that stream (an unreachable Redis would hold each event for its timeout): the
/// events still go to the client at once, and only this stream's resumption is lost.
pub(super) struct Writer {
    store: Arc<dyn EventStore>,
    key: StreamKey,
    lease: Duration,
    seq: u64,
    failed: bool,
}

impl Writer {
    /// Writes `key`'s stream from event `next` on.
    pub(super) fn new(options: &HttpOptions, key: StreamKey, next: u64) -> Writer {
        Writer {
            store: options.event_store.0.clone(),
            key,
            lease: options.stream_lease,
            seq: next.saturating_sub(1),
            failed: false,
        }
    }

    /// Appends one event; its id on the wire.
    pub(super) async fn append(&mut self, kind: EventKind, text: Arc<str>) -> String {
        self.seq = self.seq.saturating_add(1);
        if !self.failed {
            let event = StoredEvent {
                seq: self.seq,
                kind,
                text,
            };
            let appended = self.store.append(&self.key, event, self.lease).await;
            self.note(appended);
        }
        self.id()
    }

    /// The id of the last event appended.
    pub(super) fn id(&self) -> String {
        self.key.event_id(self.seq)
    }

    async fn renew(&mut self) {
        if self.failed {
            return;
        }
        let renewed = self.store.keep_alive(&self.key, self.lease).await;
        self.note(renewed);
    }

    /// Records a failed store call (logged once; the stream stops using the store).
    fn note(&mut self, result: Result<(), super::store::StoreError>) {
        if let Err(e) = result
            && !self.failed
        {
            self.failed = true;
            tracing::warn!(stream = %self.key.stream, error = %error_chain(&e),
                "the event store failed: this stream cannot be resumed");
        }
    }
}

/// A request's answer as a recorded event stream: a task writes each frame to the store, then to
/// the client while it is connected, until the answer.
pub(super) fn recorded(
    endpoint: &Endpoint,
    resumable: Resumable,
    id: &RequestId,
    first: Frame,
    mut frames: Frames,
    task: CallTask,
) -> Response {
    let options = &endpoint.options;
    let mut writer = Writer::new(options, resumable.new_stream('r'), 1);
    let (tx, rx) = mpsc::unbounded_channel::<Event>();
    let opened: Arc<str> = serde_json::to_string(id).unwrap_or_default().into();
    let (primes, retry, lease) = (resumable.priming, options.sse_retry, options.stream_lease);
    // A drain waits for the answer to be in the store, not only for the call to end.
    let counted = endpoint.drain.enter();
    tokio::spawn(async move {
        let _task = task;
        let _counted = counted;
        let stream = writer.append(EventKind::Open, opened).await;
        if primes {
            let _ = tx.send(priming(&stream, retry));
        }
        let mut renew = tokio::time::interval(lease / 3);
        renew.tick().await;
        let mut next = Some(first);
        loop {
            let frame = match next.take() {
                Some(frame) => Some(frame),
                None => tokio::select! {
                    frame = frames.next() => frame,
                    _ = renew.tick() => {
                        writer.renew().await;
                        continue;
                    }
                },
            };
            let Some(frame) = frame else {
                // Cancelled: no answer will come.
                writer.append(EventKind::End, "".into()).await;
                break;
            };
            let (kind, text) = match &frame {
                Frame::Message(m) => (EventKind::Message, m.to_string()),
                Frame::Answer(r) => (EventKind::Answer, r.to_string()),
            };
            let text: Arc<str> = text.into();
            let id = writer.append(kind, text.clone()).await;
            let _ = tx.send(message(&text).id(id));
            if kind == EventKind::Answer {
                break;
            }
        }
    });
    let events = stream::unfold(rx, |mut rx| async move { Some((rx.recv().await?, rx)) });
    sse_events(window(events, endpoint, primes), options.keep_alive)
}

/// `events`, closed after [`HttpOptions::close_streams_after`] for a client that can resume.
/// When replicas share the event store, such a client's stream also ends when the drain begins,
/// with a `retry` field: it resumes on another replica, where the rest (the answer of the call
/// still running here, written to the store) follows.
fn window(
    events: impl Stream<Item = Event> + Send + 'static,
    endpoint: &Endpoint,
    primes: bool,
) -> stream::BoxStream<'static, Event> {
    let options = &endpoint.options;
    let events = match options.close_streams_after {
        Some(after) if primes => events.take_until(tokio::time::sleep(after)).boxed(),
        _ => events.boxed(),
    };
    if primes && endpoint.sessions.relays() {
        // Its first event is the priming one (`primes`).
        return until_drain(events, &endpoint.drain, options.sse_retry, true);
    }
    events
}

/// What a `GET` with `Last-Event-ID` resumes.
pub(super) enum Resumed {
    /// A request's stream: answered here.
    Request(Response),
    /// The session's `GET` stream: what was missed, and the number of its next event; the
    /// caller goes on with it as the session's stream.
    Session(StreamKey, Vec<StoredEvent>, u64),
    /// The session's `GET` stream, which the store no longer has: the caller opens a new one.
    Gone,
}

/// Resumes the stream `last` names in the session `resumable`.
pub(super) async fn resume(
    endpoint: &Endpoint,
    resumable: &Resumable,
    last: EventId,
) -> Result<Resumed, Refusal> {
    let key = StreamKey::new(resumable.session.clone(), last.stream.as_str());
    let store = endpoint.options.event_store.0.clone();
    // The whole stream (bounded): what the client missed, and whether its id is one of ours.
    let found = store.read(&key, 0, Duration::ZERO).await.map_err(|e| {
        tracing::warn!(error = %error_chain(&e), "the event store failed");
        Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            super::SERVER_BUSY,
            "Service Unavailable: the event store cannot be reached; retry shortly",
        )
    })?;
    let found = found.map(|mut stretch| {
        let newest = stretch.events.last().map_or(0, |e| e.seq);
        stretch.events.retain(|e| e.seq > last.seq);
        (stretch, newest)
    });
    if let Some((_, newest)) = &found
        && last.seq > *newest
    {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: Last-Event-ID names an event this stream never had",
        ));
    }
    if key.is_session_stream() {
        let Some((found, newest)) = found else {
            tracing::info!(stream = %key.stream, "a session stream to resume is gone");
            return Ok(Resumed::Gone);
        };
        return Ok(Resumed::Session(
            key,
            found.events,
            newest.saturating_add(1),
        ));
    }
    let Some((found, _)) = found else {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: Last-Event-ID names no stream of this session that can be resumed \
             (it ended long ago, or never was)",
        ));
    };
    tracing::info!(stream = %key.stream, after = last.seq, "resuming a request's stream");
    let follow = Follow {
        store,
        key,
        after: last.seq,
        queue: found.events.into(),
        done: false,
        options_lease: endpoint.options.stream_lease,
    };
    let events = stream::unfold(follow, |mut f| async move {
        let event = f.next().await?;
        Some((event, f))
    });
    let response = sse_events(
        window(events, endpoint, resumable.priming),
        endpoint.options.keep_alive,
    );
    Ok(Resumed::Request(response))
}

/// A resumed request's stream, read from the store until its answer.
struct Follow {
    store: Arc<dyn EventStore>,
    key: StreamKey,
    after: u64,
    queue: VecDeque<StoredEvent>,
    done: bool,
    options_lease: Duration,
}

impl Follow {
    async fn next(&mut self) -> Option<Event> {
        let mut failing_since = None;
        loop {
            if let Some(event) = self.queue.pop_front() {
                self.after = event.seq;
                self.done = event.kind.ends();
                match event.kind {
                    EventKind::Open | EventKind::End => continue,
                    EventKind::Message | EventKind::Answer => {
                        let id = self.key.event_id(event.seq);
                        return Some(message(&event.text).id(id));
                    }
                }
            }
            if self.done {
                return None;
            }
            match self.store.read(&self.key, self.after, FOLLOW_WAIT).await {
                Ok(Some(stretch)) if !stretch.events.is_empty() => {
                    self.queue.extend(stretch.events);
                }
                Ok(Some(stretch)) if stretch.writing => {}
                Ok(_) => {
                    self.done = true;
                    return self.lost().await;
                }
                Err(e) => {
                    // The store is down: keep trying for a lease's time, then give up.
                    let since = *failing_since.get_or_insert_with(tokio::time::Instant::now);
                    tracing::warn!(error = %error_chain(&e), "the event store failed while following a stream");
                    if since.elapsed() > self.options_lease {
                        self.done = true;
                        return self.lost().await;
                    }
                    tokio::time::sleep(FOLLOW_WAIT / 5).await;
                }
            }
        }
    }

    /// The stream's writer is gone without an answer: a JSON-RPC error for its request, stored
    /// as the stream's answer for any other reader.
    async fn lost(&mut self) -> Option<Event> {
        let all = self.store.read(&self.key, 0, Duration::ZERO).await;
        let opened = all
            .ok()
            .flatten()
            .and_then(|s| s.events.into_iter().find(|e| e.kind == EventKind::Open));
        let id = opened
            .and_then(|e| RawValue::from_string(e.text.to_string()).ok())
            .and_then(|raw| RequestId::from_raw(&raw));
        tracing::warn!(stream = %self.key.stream, "a resumed stream's request was lost with its replica");
        let error = ProtocolError::new(
            codes::INTERNAL_ERROR,
            "Internal error: the server process running this request stopped before it \
             answered; the request may or may not have taken effect",
        );
        let text: Arc<str> = Reply::error(id, error).to_string().into();
        let seq = self.after.saturating_add(1);
        let answer = StoredEvent {
            seq,
            kind: EventKind::Answer,
            text: text.clone(),
        };
        if let Err(e) = self.store.append(&self.key, answer, Duration::ZERO).await {
            tracing::debug!(error = %error_chain(&e), "could not store a lost request's error");
        }
        Some(message(&text).id(self.key.event_id(seq)))
    }
}
