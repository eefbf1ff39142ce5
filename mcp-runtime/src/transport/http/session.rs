//! Handshake-era sessions: `initialize` opens one under a random `Mcp-Session-Id`, later requests
//! find it, `GET` takes its server-to-client stream, `DELETE` ends it. At most
//! [`HttpOptions::max_sessions`] are open (a new one ends the one idle the longest), and a
//! background task sweeps those left idle.
//!
//! The table keeps its sessions ordered by last use (a sequence number per use, in a
//! `BTreeMap`), so finding the oldest is cheap: opening, finding and ending a session cost
//! O(log N) under the table's lock, never a scan of every session.
//!
//! [`HttpOptions::max_sessions`]: super::HttpOptions::max_sessions

use std::collections::{BTreeMap, HashMap};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
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
use super::{
    Endpoint, PROTOCOL_VERSION, Refusal, SERVER_BUSY, SESSION_ID, header_str, json_response,
};
use crate::context::connection::{Connection, lock};
use crate::error::codes;
use crate::protocol::Incoming;

/// How many of the sessions idle the longest a new session over the cap looks at before giving
/// up (`503`) when they are all busy: each one busy is moved to the back, so the next look finds
/// others, and opening a session stays cheap however many are busy.
const EVICTION_TRIES: usize = 16;

/// The open sessions, and the task that sweeps the idle ones.
pub(super) struct Sessions {
    table: Arc<Mutex<Table>>,
    sweeper: Once,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            table: Arc::default(),
            sweeper: Once::new(),
        }
    }
}

/// The sessions by id, and their ids by last use.
#[derive(Default)]
struct Table {
    by_id: HashMap<String, Entry>,
    /// The sequence number of each session's last use, oldest first.
    by_use: BTreeMap<u64, String>,
    next_use: u64,
}

struct Entry {
    session: Arc<Session>,
    last_seen: Instant,
    use_seq: u64,
}

/// A handshake-era session: its connection, and the server-to-client stream a `GET` takes.
pub(super) struct Session {
    pub(super) conn: Connection,
    outgoing: Mutex<Option<mpsc::UnboundedReceiver<Value>>>,
    /// Requests of this session whose calls have not answered yet.
    requests: AtomicUsize,
}

impl Session {
    fn new(conn: Connection, outgoing: mpsc::UnboundedReceiver<Value>) -> Arc<Session> {
        Arc::new(Session {
            conn,
            outgoing: Mutex::new(Some(outgoing)),
            requests: AtomicUsize::new(0),
        })
    }

    /// A stream open or a call in flight: not to be ended for idleness.
    fn busy(&self) -> bool {
        lock(&self.outgoing).is_none()
            || self.requests.load(Ordering::SeqCst) > 0
            || !lock(&self.conn.inner.in_flight).is_empty()
    }

    /// A place among the session's requests in flight; `None` when `cap` are already.
    pub(super) fn begin_request(self: &Arc<Self>, cap: usize) -> Option<InFlight> {
        self.requests
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < cap).then_some(n + 1)
            })
            .ok()?;
        Some(InFlight(self.clone()))
    }
}

/// One request of a session in flight; the count drops with it.
pub(super) struct InFlight(Arc<Session>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Table {
    fn len(&self) -> usize {
        self.by_id.len()
    }

    fn insert(&mut self, id: String, session: Arc<Session>) {
        let use_seq = self.next_use();
        self.by_use.insert(use_seq, id.clone());
        let entry = Entry {
            session,
            last_seen: Instant::now(),
            use_seq,
        };
        self.by_id.insert(id, entry);
    }

    fn next_use(&mut self) -> u64 {
        self.next_use += 1;
        self.next_use
    }

    /// The session named `id`, marked as used now.
    fn touch(&mut self, id: &str) -> Option<Arc<Session>> {
        let use_seq = self.next_use();
        let entry = self.by_id.get_mut(id)?;
        self.by_use.remove(&entry.use_seq);
        entry.use_seq = use_seq;
        entry.last_seen = Instant::now();
        self.by_use.insert(use_seq, id.to_owned());
        Some(entry.session.clone())
    }

    fn remove(&mut self, id: &str) -> Option<Arc<Session>> {
        let entry = self.by_id.remove(id)?;
        self.by_use.remove(&entry.use_seq);
        Some(entry.session)
    }

    /// The session used the longest ago: its id, when it was last seen, and whether it is busy.
    fn oldest(&self) -> Option<(String, Instant, bool)> {
        let (_, id) = self.by_use.first_key_value()?;
        let entry = &self.by_id[id];
        Some((id.clone(), entry.last_seen, entry.session.busy()))
    }

    /// Ends the session `id` as if its client had sent `DELETE`.
    fn end(&mut self, id: &str, why: &str) {
        if let Some(session) = self.remove(id) {
            tracing::info!(session = %id, "{why}");
            session.conn.close();
        }
    }

    /// Ends every session idle for longer than `limit`, oldest first, stopping at the first one
    /// used within it. A busy one met on the way is moved to the back as if used now, so each
    /// session costs a sweep at most one step per `limit`.
    fn sweep(&mut self, limit: Duration) {
        while let Some((id, last_seen, busy)) = self.oldest() {
            if last_seen.elapsed() <= limit {
                break;
            }
            if busy {
                self.touch(&id);
            } else {
                self.end(&id, "session expired after going idle");
            }
        }
    }

    /// Makes room for one more session under `cap` by ending the session idle the longest;
    /// false when the [`EVICTION_TRIES`] oldest are all busy.
    fn make_room(&mut self, cap: usize) -> bool {
        let mut tries = EVICTION_TRIES;
        while self.len() >= cap {
            let Some((id, _, busy)) = self.oldest() else {
                return true;
            };
            if tries == 0 {
                return false;
            }
            tries -= 1;
            if busy {
                self.touch(&id);
            } else {
                self.end(
                    &id,
                    "session ended to make room for a new one (max_sessions)",
                );
            }
        }
        true
    }
}

impl Sessions {
    /// Starts, once, the task that sweeps sessions idle for longer than `idle`: every half
    /// `idle`, at most every minute. It ends when the table goes, with the router.
    fn start_sweeper(&self, idle: Duration) {
        self.sweeper.call_once(|| {
            let table = Arc::downgrade(&self.table);
            let every = (idle / 2).clamp(Duration::from_millis(10), Duration::from_secs(60));
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                tick.tick().await;
                loop {
                    tick.tick().await;
                    let Some(table) = table.upgrade() else {
                        break;
                    };
                    lock(&table).sweep(idle);
                }
            });
        });
    }
}

/// The session named `id`, marked as seen now; 404 when there is none.
pub(super) fn find_session(endpoint: &Endpoint, id: &str) -> Result<Arc<Session>, Refusal> {
    lock(&endpoint.sessions.table).touch(id).ok_or_else(|| {
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
    if response.protocol_error().is_some() {
        return Ok(json_response(StatusCode::OK, &response));
    }
    let id = new_session_id();
    let options = &endpoint.options;
    let mut table = lock(&endpoint.sessions.table);
    // Cheap unless sessions have expired since the last sweep: it stops at the first live one.
    table.sweep(options.session_idle);
    if !table.make_room(options.max_sessions) {
        drop(table);
        conn.close();
        tracing::warn!(
            max = options.max_sessions,
            "every session is busy; refused a new one"
        );
        return Err(Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            SERVER_BUSY,
            "Service Unavailable: too many sessions in use; retry shortly",
        )
        .with_id_of(&response));
    }
    conn.lock_session().session_id = Some(id.as_str().into());
    table.insert(id.clone(), Session::new(conn, outgoing));
    drop(table);
    endpoint.sessions.start_sweeper(options.session_idle);
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
    lock(&endpoint.sessions.table).remove(&id);
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

    /// A session last seen `idle_for` ago, with its stream open or not.
    fn add(table: &mut Table, id: &str, idle_for: Duration, stream_open: bool) -> Arc<Session> {
        let (conn, outgoing) = Connection::new();
        let session = Session::new(conn, outgoing);
        if stream_open {
            lock(&session.outgoing).take();
        }
        table.insert(id.to_owned(), session.clone());
        table.by_id.get_mut(id).unwrap().last_seen = Instant::now() - idle_for;
        session
    }

    fn ids(table: &Table) -> Vec<&str> {
        let mut ids: Vec<&str> = table.by_id.keys().map(String::as_str).collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn sweeping_ends_idle_sessions_without_a_stream() {
        let mut table = Table::default();
        let streaming = add(&mut table, "streaming", Duration::from_secs(2), true);
        let idle = add(&mut table, "idle", Duration::from_secs(1), false);
        let fresh = add(&mut table, "fresh", Duration::ZERO, false);
        table.sweep(Duration::from_millis(50));
        assert_eq!(ids(&table), ["fresh", "streaming"]);
        assert!(idle.conn.is_closed());
        assert!(!fresh.conn.is_closed());
        assert!(!streaming.conn.is_closed());
        assert_eq!(table.by_use.len(), 2, "the use index follows the table");
    }

    #[test]
    fn making_room_ends_the_session_idle_longest_and_spares_busy_ones() {
        let mut table = Table::default();
        add(&mut table, "a", Duration::ZERO, true);
        add(&mut table, "b", Duration::ZERO, false);
        add(&mut table, "c", Duration::ZERO, false);
        table.touch("b");
        assert!(table.make_room(3));
        assert_eq!(
            ids(&table),
            ["a", "b"],
            "c was idle longest, a is streaming"
        );
        let busy = table.by_id["b"].session.begin_request(1).unwrap();
        assert!(table.by_id["b"].session.begin_request(1).is_none());
        assert!(!table.make_room(2), "every session is busy");
        drop(busy);
        assert!(table.make_room(2));
        assert_eq!(ids(&table), ["a"]);
    }

    #[tokio::test]
    async fn the_sweeper_ends_idle_sessions_and_stops_with_the_table() {
        let sessions = Sessions::default();
        let session = add(&mut lock(&sessions.table), "idle", Duration::ZERO, false);
        sessions.start_sweeper(Duration::from_millis(50));
        let left = async || lock(&sessions.table).len();
        test_support::wait::until("the sweep", left, |n| *n == 0).await;
        assert_eq!(lock(&sessions.table).len(), 0);
        assert!(session.conn.is_closed());
        let table = Arc::downgrade(&sessions.table);
        drop(sessions);
        assert!(table.upgrade().is_none());
    }
}
