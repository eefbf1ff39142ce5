//! One client connection, whatever carries it: the negotiated era, the client's identity, the
//! requests in flight (so `notifications/cancelled` can reach them), the requests this server sent
//! the client (elicitation), and the sink for everything the server writes.
//!
//! Transports own the bytes; this type owns the session. A transport creates a [`Connection`],
//! feeds each incoming message to [`crate::Server::handle`], and writes out whatever arrives on
//! the receiver [`Connection::new`] returned.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::context::outgoing::Outgoing;
use crate::context::queue;

use crate::error::ProtocolError;
use crate::protocol::{
    ClientCapabilities, Implementation, LogLevel, RequestId, Response, request_message,
};

/// A client connection: cheap to clone, shared by every request it carries.
#[derive(Clone)]
pub struct Connection {
    pub(crate) inner: Arc<ConnectionInner>,
}

pub(crate) struct ConnectionInner {
    out: queue::Sender<Outgoing>,
    /// Per-request sinks (see [`Connection::route_request`]).
    routes: Mutex<HashMap<RequestId, queue::Sender<Outgoing>>>,
    pub(crate) session: Mutex<Session>,
    pub(crate) in_flight: Mutex<HashMap<RequestId, CancelToken>>,
    /// Made for one request and nothing else (see [`Connection::for_one_request`]).
    pub(crate) one_request: bool,
    /// Carried by HTTP (`network.transport` `tcp` in the metrics), else a pipe.
    #[cfg(feature = "metrics")]
    http: bool,
    /// The id its tasks are stored under (handshake era), made when it starts its first.
    pub(crate) task_owner: std::sync::OnceLock<String>,
    /// The verified principal of the request that made this connection (feature `auth`).
    #[cfg(feature = "auth")]
    pub(crate) principal: Option<super::principal::Principal>,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ProtocolError>>>>,
    next_id: AtomicU64,
    closed: AtomicBool,
    /// Woken by [`Connection::close`]: what requests that outlive their answer (a
    /// `subscriptions/listen` stream) wait on. A `Notify` lives inside the connection; a
    /// cancellation token would be one more allocation per idle session.
    closing: tokio::sync::Notify,
}

/// The handshake-era state of a connection, set by `initialize`.
#[derive(Debug, Clone)]
pub(crate) struct Handshake {
    pub(crate) version: &'static str,
    /// Shared with every call's context: a call does not copy the client's declarations.
    pub(crate) peer: Arc<Peer>,
}

/// Who the client said it is and what it said it can do.
#[derive(Debug, Default)]
pub(crate) struct Peer {
    pub(crate) client_info: Option<Implementation>,
    pub(crate) capabilities: ClientCapabilities,
}

impl Peer {
    /// The peer a stateless request's envelope declares.
    pub(crate) fn of_envelope(envelope: crate::protocol::stateless::Envelope) -> Peer {
        Peer {
            client_info: envelope.client_info,
            capabilities: envelope.capabilities,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Session {
    /// `Some` once `initialize` was answered: the connection is in the handshake era.
    pub(crate) handshake: Option<Handshake>,
    /// True once `notifications/initialized` arrived.
    pub(crate) initialized: bool,
    /// The level set by `logging/setLevel`; `None`: every level is sent.
    pub(crate) log_level: Option<LogLevel>,
    /// The HTTP session's `Mcp-Session-Id`, for the request spans.
    pub(crate) session_id: Option<Arc<str>>,
    /// The URIs `resources/subscribe` named (2025 era), as a session store keeps them.
    pub(crate) subscriptions: std::collections::BTreeSet<String>,
    /// The session's clock in the metrics, from its `initialize` until the connection closes.
    #[cfg(feature = "metrics")]
    pub(crate) clock: Option<crate::metrics::SessionClock>,
}

/// Why a request to the client got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum PeerRequestError {
    /// The client answered with an error.
    Error(ProtocolError),
    /// The connection closed before the answer arrived.
    Closed,
}

impl Connection {
    /// A new connection and the receiver of the messages the server writes to it (responses,
    /// notifications and server-to-client requests), in the order they are produced.
    pub fn new() -> (Connection, queue::Receiver<Outgoing>) {
        Connection::make(false, false)
    }

    /// [`Connection::new`] for an HTTP session.
    #[cfg(feature = "http")]
    pub(crate) fn new_http() -> (Connection, queue::Receiver<Outgoing>) {
        Connection::make(false, true)
    }

    /// A connection that carries exactly one request (a stateless HTTP request): its request is
    /// not entered in the in-flight table, since no other request can reuse its id and nothing
    /// can cancel it by id (`notifications/cancelled` has no session to arrive on); it ends when
    /// its future is dropped. The table's entry cost a stateless call about 1,300 instructions:
    /// a map allocated for one key, and its id hashed twice (callgrind, BENCHMARKS.md).
    #[cfg(feature = "http")]
    pub(crate) fn for_one_request() -> (Connection, queue::Receiver<Outgoing>) {
        Connection::make(true, true)
    }

    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    fn make(one_request: bool, http: bool) -> (Connection, queue::Receiver<Outgoing>) {
        let (out, rx) = queue::channel();
        let conn = Connection {
            inner: Arc::new(ConnectionInner {
                out,
                routes: Mutex::new(HashMap::new()),
                session: Mutex::new(Session::default()),
                in_flight: Mutex::new(HashMap::new()),
                one_request,
                #[cfg(feature = "metrics")]
                http,
                task_owner: std::sync::OnceLock::new(),
                #[cfg(feature = "auth")]
                principal: super::principal::current(),
                pending: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(1),
                closed: AtomicBool::new(false),
                closing: tokio::sync::Notify::new(),
            }),
        };
        (conn, rx)
    }

    /// Queues a message for the client. Dropped silently once the transport is gone.
    pub fn send(&self, message: Value) {
        let _ = self.inner.out.send(Outgoing::Json(message));
    }

    /// Sends the messages about the request `id` (its progress and log notifications and the
    /// requests a tool makes to the client while serving it) to `sink` rather than to the
    /// connection's receiver, until the returned guard is dropped.
    ///
    /// HTTP uses this to put a request's notifications on that request's own response stream;
    /// stdio does not, and everything goes to the one receiver in production order.
    pub fn route_request(&self, id: RequestId, sink: queue::Sender<Outgoing>) -> RouteGuard {
        lock(&self.inner.routes).insert(id.clone(), sink);
        RouteGuard {
            conn: self.clone(),
            id,
        }
    }

    /// Queues a message that belongs to the request `about`: to its route if it has one, else
    /// to the connection's receiver.
    pub(crate) fn send_about(&self, about: &RequestId, message: Outgoing) {
        match lock(&self.inner.routes).get(about) {
            Some(sink) => {
                let _ = sink.send(message);
            }
            None => {
                let _ = self.inner.out.send(message);
            }
        }
    }

    /// The owner key of the principal that made this connection (feature `auth`): what a
    /// session's record keeps so that every replica refuses its id to another subject.
    #[cfg(feature = "http")]
    pub(crate) fn owner(&self) -> Option<String> {
        #[cfg(feature = "auth")]
        return self.inner.principal.as_ref().map(|p| p.owner_key());
        #[cfg(not(feature = "auth"))]
        None
    }

    /// The protocol version `initialize` negotiated, if it ran.
    pub fn negotiated_version(&self) -> Option<&'static str> {
        self.lock_session().handshake.as_ref().map(|h| h.version)
    }

    /// Sends a request to the client and waits for its answer.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, PeerRequestError> {
        self.request_about(None, method, params).await
    }

    /// [`Connection::request`] made while serving the request `about`: it travels on that
    /// request's route when it has one (see [`Connection::route_request`]).
    pub(crate) async fn request_about(
        &self,
        about: Option<&RequestId>,
        method: &str,
        params: Value,
    ) -> Result<Value, PeerRequestError> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(PeerRequestError::Closed);
        }
        let id = RequestId::from(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.inner.pending).insert(id.clone(), tx);
        // Checked again after inserting: `close` may have drained the map in between.
        if self.inner.closed.load(Ordering::Acquire) {
            lock(&self.inner.pending).remove(&id);
            return Err(PeerRequestError::Closed);
        }
        let message = request_message(&id, method, params);
        match about {
            Some(about) => self.send_about(about, message.into()),
            None => self.send(message),
        }
        struct Forget<'a>(&'a Connection, &'a RequestId);
        impl Drop for Forget<'_> {
            fn drop(&mut self) {
                lock(&self.0.inner.pending).remove(self.1);
            }
        }
        let _forget = Forget(self, &id);
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(PeerRequestError::Error(e)),
            Err(_) => Err(PeerRequestError::Closed),
        }
    }

    /// Routes the client's answer to the request waiting for it.
    pub(crate) fn deliver(&self, response: Response) {
        match lock(&self.inner.pending).remove(&response.id) {
            Some(tx) => {
                let _ = tx.send(response.outcome);
            }
            None => tracing::debug!(id = ?response.id, "response to no pending request"),
        }
    }

    /// True while a request this connection sent the client waits for the answer `id`.
    #[cfg(feature = "http")]
    pub(crate) fn awaits(&self, id: &RequestId) -> bool {
        lock(&self.inner.pending).contains_key(id)
    }

    /// True while the client's request `id` is being served on this connection.
    #[cfg(feature = "http")]
    pub(crate) fn serves(&self, id: &RequestId) -> bool {
        lock(&self.inner.in_flight).contains_key(id)
    }

    /// Numbers the requests this connection sends the client from `first` on: a session served
    /// by several replicas keeps each replica's ids apart.
    #[cfg(feature = "http")]
    pub(crate) fn number_requests_from(&self, first: u64) {
        self.inner.next_id.store(first, Ordering::Relaxed);
    }

    /// Marks the connection closed: requests waiting for the client fail at once.
    pub fn close(&self) {
        self.inner.closed.store(true, Ordering::Release);
        #[cfg(feature = "metrics")]
        {
            // Taken out before it is dropped: its drop records, outside the session's lock.
            let clock = self.lock_session().clock.take();
            drop(clock);
        }
        lock(&self.inner.pending).clear();
        self.inner.closing.notify_waiters();
    }

    /// True when `other` is this connection (a clone of it).
    pub(crate) fn same(&self, other: &Connection) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Resolves once [`Connection::close`] ran.
    pub(crate) async fn closed(&self) {
        loop {
            // Registered before the flag is read, so that a `close` in between wakes it.
            let notified = self.inner.closing.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_closed() {
                return;
            }
            notified.await;
        }
    }

    /// True once [`Connection::close`] ran.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    /// Enters the client's request `id` in the in-flight table, where `notifications/cancelled`
    /// finds its token, until the returned entry is dropped; `Err` when a request with this id
    /// is in flight already. `Ok(None)` on a connection made for one request, which keeps no
    /// table ([`Connection::for_one_request`]).
    pub(crate) fn enter(
        &self,
        id: &RequestId,
        cancel: &CancelToken,
    ) -> Result<Option<InFlightEntry>, ()> {
        if self.inner.one_request {
            return Ok(None);
        }
        match lock(&self.inner.in_flight).entry(id.clone()) {
            Entry::Occupied(_) => return Err(()),
            Entry::Vacant(slot) => {
                slot.insert(cancel.clone());
            }
        }
        Ok(Some(InFlightEntry {
            conn: self.clone(),
            id: id.clone(),
        }))
    }

    /// Cancels the request with this id, if it is in flight.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.inner.in_flight).get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// True when HTTP carries this connection.
    #[cfg(feature = "metrics")]
    pub(crate) fn is_http(&self) -> bool {
        self.inner.http
    }

    pub(crate) fn lock_session(&self) -> std::sync::MutexGuard<'_, Session> {
        lock(&self.inner.session)
    }
}

/// A request's place in its connection's in-flight table (see [`Connection::enter`]); dropping
/// it removes the entry.
pub(crate) struct InFlightEntry {
    conn: Connection,
    id: RequestId,
}

impl Drop for InFlightEntry {
    fn drop(&mut self) {
        lock(&self.conn.inner.in_flight).remove(&self.id);
    }
}

/// Keeps a request's route (see [`Connection::route_request`]) in place; dropping it removes the
/// route.
pub struct RouteGuard {
    conn: Connection,
    id: RequestId,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        lock(&self.conn.inner.routes).remove(&self.id);
    }
}

impl std::fmt::Debug for RouteGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteGuard").field("id", &self.id).finish()
    }
}

/// Locks a mutex, ignoring poisoning: every critical section here leaves the data consistent.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A flag that fires once and wakes every waiter: `cancel`, `is_cancelled`, `cancelled().await`.
pub(crate) type CancelToken = tokio_util::sync::CancellationToken;
