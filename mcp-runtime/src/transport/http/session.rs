//! Handshake-era sessions: `initialize` opens one under a random `Mcp-Session-Id`, later requests
//! find it, `GET` takes its server-to-client stream, `DELETE` ends it, and sessions left idle are
//! swept when a new one opens.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use serde_json::Value;
use tokio::sync::mpsc;

use super::guard::check_get_media;
use super::sse::sse;
use super::stateless::is_stateless_version;
use super::{Endpoint, PROTOCOL_VERSION, Refusal, SESSION_ID, header_str, json_response};
use crate::context::connection::{Connection, lock};
use crate::error::codes;
use crate::protocol::Incoming;

/// The open sessions, by id.
pub(super) type Sessions = Mutex<HashMap<String, Arc<Session>>>;

/// A handshake-era session: its connection, and the server-to-client stream a `GET` takes.
pub(super) struct Session {
    pub(super) conn: Connection,
    outgoing: Mutex<Option<mpsc::UnboundedReceiver<Value>>>,
    last_seen: Mutex<Instant>,
}

impl Session {
    /// Idle for longer than `limit`, with no stream open and no call in flight.
    fn expired(&self, limit: Duration) -> bool {
        lock(&self.last_seen).elapsed() > limit
            && lock(&self.outgoing).is_some()
            && lock(&self.conn.inner.in_flight).is_empty()
    }
}

/// Ends every session in `sessions` that has been idle for longer than `limit`.
fn sweep(sessions: &mut HashMap<String, Arc<Session>>, limit: Duration) {
    sessions.retain(|old, s| {
        let expired = s.expired(limit);
        if expired {
            tracing::info!(session = %old, "session expired after going idle");
            s.conn.close();
        }
        !expired
    });
}

/// The session named `id`, marked as seen now; 404 when there is none.
pub(super) fn find_session(endpoint: &Endpoint, id: &str) -> Result<Arc<Session>, Refusal> {
    let session = lock(&endpoint.sessions).get(id).cloned();
    if let Some(s) = &session {
        *lock(&s.last_seen) = Instant::now();
    }
    session.ok_or_else(|| {
        Refusal::new(
            StatusCode::NOT_FOUND,
            codes::INVALID_REQUEST,
            "Not Found: no such session (it ended or never existed); initialize a new one",
        )
    })
}

/// `initialize` without a session: a new connection, kept as a session when it succeeds.
pub(super) async fn initialize(
    endpoint: &Endpoint,
    message: Incoming,
) -> Result<Response, Refusal> {
    let (conn, outgoing) = Connection::new();
    let response = endpoint.server.handle(message, &conn).await;
    let Some(response) = response else {
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    if response.get("result").is_none() {
        return Ok(json_response(StatusCode::OK, &response));
    }
    let id = new_session_id();
    let mut sessions = lock(&endpoint.sessions);
    sweep(&mut sessions, endpoint.options.session_idle);
    sessions.insert(
        id.clone(),
        Arc::new(Session {
            conn,
            outgoing: Mutex::new(Some(outgoing)),
            last_seen: Mutex::new(Instant::now()),
        }),
    );
    drop(sessions);
    tracing::info!(session = %id, "session opened");
    let mut response = json_response(StatusCode::OK, &response);
    response.headers_mut().insert(
        SESSION_ID,
        HeaderValue::from_str(&id).expect("hex is a valid header value"),
    );
    Ok(response)
}

/// 128 bits from the operating system's CSPRNG, as hex.
fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---- GET and DELETE: the session's stream and its end ----

pub(super) fn get(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Response, Refusal> {
    let session = session_of(endpoint, headers)?;
    check_get_media(headers)?;
    let Some(outgoing) = lock(&session.outgoing).take() else {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            codes::INVALID_REQUEST,
            "Conflict: this session already has a stream open",
        ));
    };
    let stream = SessionStream {
        session: session.clone(),
        outgoing: Some(outgoing),
    };
    Ok(sse(stream, endpoint.options.keep_alive))
}

pub(super) fn delete(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Response, Refusal> {
    let session = session_of(endpoint, headers)?;
    let id = header_str(headers, SESSION_ID)
        .unwrap_or_default()
        .to_owned();
    lock(&endpoint.sessions).remove(&id);
    session.conn.close();
    tracing::info!(session = %id, "session ended by the client");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The session a `GET` or `DELETE` names: 405 in the stateless era, 400 without a session id,
/// 404 for an unknown one.
fn session_of(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Arc<Session>, Refusal> {
    if is_stateless_version(header_str(headers, PROTOCOL_VERSION)) {
        return Err(Refusal::bare(StatusCode::METHOD_NOT_ALLOWED));
    }
    let Some(id) = header_str(headers, SESSION_ID) else {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: missing Mcp-Session-Id",
        ));
    };
    find_session(endpoint, id)
}

/// A session's server-to-client stream; the receiver goes back to the session when the client
/// closes it, so a later `GET` picks up where it ended.
struct SessionStream {
    session: Arc<Session>,
    outgoing: Option<mpsc::UnboundedReceiver<Value>>,
}

impl Stream for SessionStream {
    type Item = Value;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Value>> {
        match self.outgoing.as_mut() {
            Some(rx) => rx.poll_recv(cx),
            None => Poll::Ready(None),
        }
    }
}

impl Drop for SessionStream {
    fn drop(&mut self) {
        if let Some(rx) = self.outgoing.take()
            && !self.session.conn.is_closed()
        {
            *lock(&self.session.outgoing) = Some(rx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(idle_for: Duration, stream_open: bool) -> Arc<Session> {
        let (conn, outgoing) = Connection::new();
        Arc::new(Session {
            conn,
            outgoing: Mutex::new((!stream_open).then_some(outgoing)),
            last_seen: Mutex::new(Instant::now() - idle_for),
        })
    }

    #[test]
    fn sweeping_ends_idle_sessions_without_a_stream() {
        let limit = Duration::from_millis(50);
        let mut sessions = HashMap::from([
            ("idle".to_owned(), session(Duration::from_secs(1), false)),
            ("fresh".to_owned(), session(Duration::ZERO, false)),
            (
                "streaming".to_owned(),
                session(Duration::from_secs(1), true),
            ),
        ]);
        let idle = sessions["idle"].clone();
        sweep(&mut sessions, limit);
        let mut left: Vec<&str> = sessions.keys().map(String::as_str).collect();
        left.sort_unstable();
        assert_eq!(left, ["fresh", "streaming"]);
        assert!(idle.conn.is_closed());
        assert!(!sessions["fresh"].conn.is_closed());
        assert!(!sessions["streaming"].conn.is_closed());
    }
}
