//! One session as this replica serves it: its connection, its `GET` stream's receiver, its
//! requests in flight, and the record the store last had.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::context::connection::{Connection, Handshake, Peer, lock};
use crate::context::outgoing::Outgoing;
use crate::context::queue;
use crate::transport::http::store::{SessionRecord, now_ms};

/// A handshake-era session: its connection, and the server-to-client stream a `GET` takes.
pub(in crate::transport::http) struct Session {
    pub(in crate::transport::http) conn: Connection,
    pub(in crate::transport::http) outgoing: Mutex<Option<queue::Receiver<Outgoing>>>,
    /// Requests of this session whose calls have not answered yet.
    requests: AtomicUsize,
    /// The record as the store last had it.
    record: Mutex<Arc<SessionRecord>>,
    /// True while this replica holds the session's `GET` stream.
    pub(in crate::transport::http) streaming: AtomicBool,
    /// Stops the task that publishes this replica's messages for the client to the replica
    /// holding the `GET` stream (see `relay.rs`), while it runs.
    pub(in crate::transport::http) forwarder: Mutex<Option<CancellationToken>>,
    /// Ends the session's `GET` stream held here: a client resuming it (its old connection not
    /// yet noticed dead), or a stream opened through another replica, takes over.
    pub(in crate::transport::http) stream_end: Mutex<Option<CancellationToken>>,
}

impl Session {
    pub(super) fn new(
        conn: Connection,
        outgoing: queue::Receiver<Outgoing>,
        record: Arc<SessionRecord>,
    ) -> Arc<Session> {
        Arc::new(Session {
            conn,
            outgoing: Mutex::new(Some(outgoing)),
            requests: AtomicUsize::new(0),
            record: Mutex::new(record),
            streaming: AtomicBool::new(false),
            forwarder: Mutex::new(None),
            stream_end: Mutex::new(None),
        })
    }

    /// A session opened through another replica (or released here), served from its record.
    pub(super) fn from_record(id: &str, record: Arc<SessionRecord>) -> Arc<Session> {
        let (conn, outgoing) = Connection::new_http();
        {
            let mut state = conn.lock_session();
            state.handshake = Some(Handshake {
                version: record.version,
                peer: Arc::new(Peer {
                    client_info: record.client_info.clone(),
                    capabilities: record.capabilities.clone(),
                }),
            });
            state.initialized = record.initialized;
            state.log_level = record.log_level;
            state.session_id = Some(id.into());
            state.subscriptions = record.subscriptions.clone();
        }
        // Apart from the ids of the replica that opened it (which counts from 1), below 2^53.
        conn.number_requests_from((super::random_u64() >> 12) | 1 << 32);
        Session::new(conn, outgoing, record)
    }

    /// Takes what another replica changed (the log level, say) from the store's `record`; the
    /// subscriptions when they changed (the caller tells the server's resource registry).
    pub(in crate::transport::http) fn refresh(
        &self,
        record: Arc<SessionRecord>,
    ) -> Option<BTreeSet<String>> {
        let mut held = lock(&self.record);
        if Arc::ptr_eq(&held, &record) || **held == *record {
            return None;
        }
        let mut state = self.conn.lock_session();
        state.initialized = record.initialized;
        state.log_level = record.log_level;
        let subscriptions =
            (state.subscriptions != record.subscriptions).then(|| record.subscriptions.clone());
        drop(state);
        *held = record;
        subscriptions
    }

    /// The record with what this replica changed since the store last had it; `None` when
    /// nothing changed.
    pub(super) fn changed(&self) -> Option<Arc<SessionRecord>> {
        // The session's state, then the record: never both locks at once (`refresh` takes them
        // the other way round).
        let state = self.conn.lock_session();
        let (initialized, log_level) = (state.initialized, state.log_level);
        let subscriptions = state.subscriptions.clone();
        drop(state);
        let mut held = lock(&self.record);
        if held.initialized == initialized
            && held.log_level == log_level
            && held.subscriptions == subscriptions
        {
            return None;
        }
        let record = Arc::new(SessionRecord {
            initialized,
            log_level,
            subscriptions,
            ..SessionRecord::clone(&held)
        });
        *held = record.clone();
        Some(record)
    }

    /// Ends the `GET` stream held here, if any, and waits (up to 2 s) until its receiver is back
    /// with the session; false when it did not come back.
    pub(in crate::transport::http) async fn take_over_stream(&self) -> bool {
        if let Some(end) = lock(&self.stream_end).take() {
            end.cancel();
        }
        for _ in 0..200 {
            if lock(&self.outgoing).is_some() || self.conn.is_closed() {
                return lock(&self.outgoing).is_some();
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        false
    }

    /// A stream open or a call in flight: not to be ended for idleness.
    pub(super) fn busy(&self) -> bool {
        lock(&self.outgoing).is_none()
            || self.requests.load(Ordering::SeqCst) > 0
            || !lock(&self.conn.inner.in_flight).is_empty()
    }

    /// A place among the session's requests in flight; `None` when `cap` are already.
    pub(in crate::transport::http) fn begin_request(
        self: &Arc<Self>,
        cap: usize,
    ) -> Option<InFlight> {
        self.requests
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < cap).then_some(n + 1)
            })
            .ok()?;
        Some(InFlight(self.clone()))
    }
}

/// One request of a session in flight; the count drops with it.
pub(in crate::transport::http) struct InFlight(Arc<Session>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The record of a connection `initialize` just answered; `None` before a handshake.
pub(super) fn record_of(conn: &Connection) -> Option<Arc<SessionRecord>> {
    let state = conn.lock_session();
    let handshake = state.handshake.as_ref()?;
    Some(Arc::new(SessionRecord {
        version: handshake.version,
        client_info: handshake.peer.client_info.clone(),
        capabilities: handshake.peer.capabilities.clone(),
        initialized: state.initialized,
        log_level: state.log_level,
        subscriptions: Default::default(),
        created_ms: now_ms(),
        owner: conn.owner(),
    }))
}
