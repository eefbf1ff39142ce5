//! A session's `GET` stream (recorded for `Last-Event-ID`, resumed, handed over between
//! replicas) and `DELETE`.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context as TaskContext, Poll};

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use super::super::guard::check_get_media;
use super::super::names::{LAST_EVENT_ID, PROTOCOL_VERSION, SESSION_ID};
use super::super::ops::until_drain;
use super::super::relay;
use super::super::resume::{Resumable, Resumed, Writer, resume};
use super::super::sse::{message, priming, sse_events};
use super::super::stateless::is_stateless_version;
use super::super::store::{EventId, EventKind, Relay, RelayKind};
use super::super::{Endpoint, Refusal, header_str};
use super::{Session, find_session, store_failed};
use crate::context::connection::lock;
use crate::context::outgoing::Outgoing;
use crate::context::queue;
use crate::error::codes;
use crate::error::error_chain;

pub(in crate::transport::http) async fn get(
    endpoint: &Endpoint,
    headers: &HeaderMap,
) -> Result<Response, Refusal> {
    let session = session_of(endpoint, headers).await?;
    check_get_media(headers)?;
    let id = header_str(headers, &SESSION_ID).unwrap_or_default();
    let resumable = Resumable::of(id, &session.conn);
    // A resumed stream: a request's is answered from the store, the session's goes on below.
    let mut resumed = None;
    if let Some(last) = headers.get(&LAST_EVENT_ID) {
        let Some(last) = last.to_str().ok().and_then(EventId::parse) else {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                codes::INVALID_REQUEST,
                "Bad Request: Last-Event-ID is not an event id of this server",
            ));
        };
        match resume(endpoint, &resumable, last).await? {
            Resumed::Request(response) => return Ok(response),
            Resumed::Session(key, missed, next) => resumed = Some((key, missed, next)),
            Resumed::Gone => {}
        }
    }
    // A client resuming its stream may come back before its old connection is noticed dead:
    // the resumed stream takes over. A second stream without `Last-Event-ID` is refused.
    let resuming = headers.contains_key(&LAST_EVENT_ID);
    if resuming && lock(&session.outgoing).is_none() {
        session.take_over_stream().await;
    }
    let Some(outgoing) = lock(&session.outgoing).take() else {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            codes::INVALID_REQUEST,
            "Conflict: this session already has a stream open",
        ));
    };
    session.streaming.store(true, Ordering::SeqCst);
    let end = CancellationToken::new();
    *lock(&session.stream_end) = Some(end.clone());
    let sessions = &endpoint.sessions;
    let announce = sessions.relay.clone().map(|relay| Announce {
        relay,
        replica: sessions.replica,
        session: id.to_owned(),
    });
    if let Some(announce) = &announce {
        announce.send(RelayKind::StreamOpened).await;
    }
    let stream = SessionStream {
        session: session.clone(),
        outgoing: Some(outgoing),
        announce,
    };
    let options = &endpoint.options;
    let (first, writer) = match resumed {
        Some((key, missed, next)) => {
            let replay = missed
                .into_iter()
                .filter(|e| e.kind == EventKind::Message)
                .map(|e| message(&e.text).id(key.event_id(e.seq)))
                .collect();
            (replay, Writer::new(options, key, next))
        }
        None => {
            let mut writer = Writer::new(options, resumable.new_stream('g'), 1);
            let opened = writer.append(EventKind::Open, "".into()).await;
            let priming = resumable
                .primes()
                .then(|| priming(&opened, options.sse_retry));
            (priming.into_iter().collect::<Vec<_>>(), writer)
        }
    };
    let live = stream::unfold((stream, writer), |(mut stream, mut writer)| async move {
        let value = stream.next().await?;
        let text: Arc<str> = value.to_string().into();
        let id = writer.append(EventKind::Message, text.clone()).await;
        Some((message(&text).id(id), (stream, writer)))
    });
    let events = stream::iter(first)
        .chain(live)
        .take_until(end.cancelled_owned());
    // Draining: the stream ends with a `retry` field; the client opens it again elsewhere.
    let events = until_drain(events, &endpoint.drain, options.sse_retry, false);
    Ok(sse_events(events, options.keep_alive))
}

pub(in crate::transport::http) async fn delete(
    endpoint: &Endpoint,
    headers: &HeaderMap,
) -> Result<Response, Refusal> {
    let session = session_of(endpoint, headers).await?;
    let id = header_str(headers, &SESSION_ID)
        .unwrap_or_default()
        .to_owned();
    lock(&endpoint.sessions.table).remove(&id);
    session.conn.close();
    endpoint
        .sessions
        .store
        .remove(&id)
        .await
        .map_err(store_failed)?;
    tracing::info!(session = %id, "session ended by the client");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The session a `GET` or `DELETE` names: 405 in the stateless era, 400 without a session id,
/// 404 for an unknown one.
async fn session_of(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Arc<Session>, Refusal> {
    if is_stateless_version(header_str(headers, &PROTOCOL_VERSION)) {
        return Err(Refusal::bare(StatusCode::METHOD_NOT_ALLOWED));
    }
    let Some(id) = header_str(headers, &SESSION_ID) else {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: missing Mcp-Session-Id",
        ));
    };
    find_session(endpoint, id).await
}

/// A session's server-to-client stream; the receiver goes back to the session when the client
/// closes it, so a later `GET` picks up where it ended.
struct SessionStream {
    session: Arc<Session>,
    outgoing: Option<queue::Receiver<Outgoing>>,
    /// With a relay: tells the other replicas when the stream closes.
    announce: Option<Announce>,
}

/// Tells the other replicas that this one opened or closed a session's stream.
struct Announce {
    relay: Arc<dyn Relay>,
    replica: u64,
    session: String,
}

impl Announce {
    async fn send(&self, kind: RelayKind) {
        let sent = relay::publish(
            &*self.relay,
            self.replica,
            kind,
            &self.session,
            String::new(),
        );
        if let Err(e) = sent.await {
            tracing::warn!(session = %self.session, error = %error_chain(&e), "could not announce the stream");
        }
    }
}

impl Stream for SessionStream {
    type Item = Outgoing;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Outgoing>> {
        match self.outgoing.as_mut() {
            Some(rx) => rx.poll_recv(cx),
            None => Poll::Ready(None),
        }
    }
}

impl Drop for SessionStream {
    fn drop(&mut self) {
        self.session.streaming.store(false, Ordering::SeqCst);
        if let Some(rx) = self.outgoing.take()
            && !self.session.conn.is_closed()
        {
            *lock(&self.session.outgoing) = Some(rx);
        }
        if let Some(announce) = self.announce.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move { announce.send(RelayKind::StreamClosed).await });
        }
    }
}
