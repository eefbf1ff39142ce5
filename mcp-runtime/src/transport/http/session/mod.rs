//! Handshake-era sessions: `initialize` opens one under a random `Mcp-Session-Id`, later requests
//! find it, `GET` takes its server-to-client stream, `DELETE` ends it. At most
//! [`HttpOptions::max_sessions`] are open (a new one ends the one idle the longest), and a
//! background task sweeps those left idle.
//!
//! This table holds the sessions this replica serves live; their records are kept in the
//! endpoint's [`SessionStore`] ([`HttpOptions::session_store`]). Every request looks its session
//! up in both: the store refreshes the idle TTL and says whether the session still exists (a
//! `DELETE` through another replica ended it); a session known to the store but not here (opened
//! through another replica, or released here) is served from its record.
//!
//! The table keeps its sessions ordered by last use (a sequence number per use, in a
//! `BTreeMap`), so finding the oldest is cheap: opening, finding and ending a session cost
//! O(log N) under the table's lock, never a scan of every session.
//!
//! | file | what it holds |
//! |---|---|
//! | this file | opening, finding, capping and sweeping sessions |
//! | `table.rs` | the live table, by id and by last use |
//! | `live.rs` | one live session: its connection, `GET` stream, requests in flight, last record |
//! | `getstream.rs` | the session's `GET` stream (recorded, resumed, handed over) and `DELETE` |
//! | `fleet.rs` | the sessions' side of the fleet relay: what other replicas relay about sessions served here |
//!
//! [`HttpOptions::max_sessions`]: super::HttpOptions::max_sessions
//! [`HttpOptions::session_store`]: super::HttpOptions::session_store

mod fleet;
mod getstream;
mod live;
mod table;

use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::names::SESSION_ID;
use super::relay;
use super::store::{Relay, RelayKind, SessionRecord, SessionStore, StoreError};
use super::{Endpoint, HttpOptions, Refusal, SERVER_BUSY, json_response};
use crate::context::connection::{Connection, lock};
use crate::error::codes;
use crate::error::error_chain;
use crate::protocol::Incoming;
use crate::server::Server;
pub(super) use getstream::{delete, get};
use live::record_of;
pub(super) use live::{InFlight, Session};
use table::Table;

/// The open sessions, the store of their records, and the task that sweeps the idle ones.
pub(super) struct Sessions {
    table: Arc<Mutex<Table>>,
    store: Arc<dyn SessionStore>,
    sweeper: Once,
    /// The store's relay to the other replicas, if it has one, and this replica's number on it.
    relay: Option<Arc<dyn Relay>>,
    replica: u64,
    listener: Once,
    /// How long a session lives unused ([`HttpOptions::session_idle_timeout`]).
    idle: Duration,
}

impl Sessions {
    /// Sessions kept in `store`, each ending after `idle` without use.
    pub(super) fn new(store: Arc<dyn SessionStore>, idle: Duration) -> Self {
        Sessions {
            idle,
            table: Arc::new(Mutex::new(Table::new(store.clone()))),
            relay: store.relay(),
            replica: random_u64(),
            store,
            sweeper: Once::new(),
            listener: Once::new(),
        }
    }

    /// The session `id` as this replica holds it, if it does.
    #[cfg(test)]
    pub(super) fn live(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.table).get(id)
    }

    /// True when other replicas may serve this replica's sessions.
    pub(super) fn relays(&self) -> bool {
        self.relay.is_some()
    }

    /// Hands the client's message `text` for the session `id` to the other replicas.
    pub(super) async fn hand_on(&self, id: &str, text: &[u8]) -> Result<(), Refusal> {
        let Some(relay) = &self.relay else {
            return Ok(());
        };
        let message = String::from_utf8_lossy(text).into_owned();
        relay::publish(&**relay, self.replica, RelayKind::FromClient, id, message)
            .await
            .map_err(store_failed)
    }

    /// Makes `server` one replica of the fleet this store's relay joins (with a relay): its
    /// resource changes go to every replica, and the listener starts now, to hear theirs.
    pub(super) fn join_fleet(&self, server: &Server) {
        let Some(relay) = self.relay.clone() else {
            return;
        };
        let fleet = relay::Changes {
            relay,
            replica: self.replica,
        };
        server.resource_updates().join_fleet(Arc::new(fleet));
        self.start_listener(server);
    }

    /// Starts, once, the task that takes the other replicas' relayed messages (with a relay).
    fn start_listener(&self, server: &Server) {
        let Some(relay) = self.relay.clone() else {
            return;
        };
        self.listener.call_once(|| {
            let local = fleet::LocalSessions(Arc::downgrade(&self.table));
            let store = (self.store.clone(), self.idle);
            fleet::listen(relay, self.replica, server.clone(), local, store);
        });
    }
}

/// 64 bits from the operating system's CSPRNG.
pub(super) fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    u64::from_le_bytes(bytes)
}

impl Sessions {
    /// Starts, once, the task that sweeps sessions idle for longer than `idle`: every half
    /// `idle`, at most every minute. It ends when the table goes, with the router.
    fn start_sweeper(&self, idle: Duration) {
        self.sweeper.call_once(|| {
            let table = Arc::downgrade(&self.table);
            let store = self.store.clone();
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
                    let busy = lock(&table).sweep(idle);
                    drop(table);
                    keep_alive(&*store, busy, idle).await;
                }
            });
        });
    }
}

/// Refreshes, in the store, the sessions a sweep found idle but busy (a stream open, a call in
/// flight): their replica still serves them.
async fn keep_alive(store: &dyn SessionStore, ids: Vec<String>, idle: Duration) {
    for id in ids {
        if let Err(e) = store.touch(&id, idle).await {
            tracing::warn!(session = %id, error = %error_chain(&e), "could not keep a busy session alive");
        }
    }
}

/// The session named `id`, its use recorded here and in the store; 404 when there is none.
pub(super) async fn find_session(endpoint: &Endpoint, id: &str) -> Result<Arc<Session>, Refusal> {
    let sessions = &endpoint.sessions;
    let options = &endpoint.options;
    let local = lock(&sessions.table).touch(id);
    let stored = sessions
        .store
        .touch(id, options.session_idle)
        .await
        .map_err(store_failed)?;
    match (local, stored) {
        (_, Some(record)) if !owned_by_caller(&record) => {
            tracing::warn!(session = %id, "a session was presented with another subject's token");
            Err(no_session())
        }
        (Some(session), Some(record)) => {
            if let Some(subscribed) = session.refresh(record) {
                let updates = endpoint.server.resource_updates();
                updates.resync(&session.conn, &subscribed);
            }
            Ok(session)
        }
        (Some(session), None) => {
            // Ended through another replica, or expired there.
            lock(&sessions.table).remove_this(id, &session);
            session.conn.close();
            Err(no_session())
        }
        (None, Some(record)) => sessions.adopt(id, record, &endpoint.server, options).await,
        (None, None) => Err(no_session()),
    }
}

impl Sessions {
    /// Serves here the session `id` that the store holds: a connection from its record.
    async fn adopt(
        &self,
        id: &str,
        record: Arc<SessionRecord>,
        server: &Server,
        options: &HttpOptions,
    ) -> Result<Arc<Session>, Refusal> {
        let session = Session::from_record(id, record.clone());
        let (served, busy) = {
            let mut table = lock(&self.table);
            // Two requests of one session may race here: the first one in is kept.
            match table.touch(id) {
                Some(first) => (Ok(first), Vec::new()),
                None => {
                    let busy = table.sweep(options.session_idle);
                    if table.make_room(options.max_sessions) {
                        table.insert(id.to_owned(), session.clone());
                        server
                            .resource_updates()
                            .resync(&session.conn, &record.subscriptions);
                        tracing::info!(session = %id, "session served from the store");
                        (Ok(session), busy)
                    } else {
                        (Err(too_many_sessions(options)), busy)
                    }
                }
            }
        };
        self.start_sweeper(options.session_idle);
        self.start_listener(server);
        keep_alive(&*self.store, busy, options.session_idle).await;
        served
    }

    /// Stores what handling a message changed in `session` (its log level, `initialized`), for
    /// the other replicas. A store that fails here is logged: the message was handled.
    pub(super) async fn persist(&self, id: &str, session: &Session, idle: Duration) {
        if let Some(record) = session.changed()
            && let Err(e) = self.store.save(id, record, idle).await
        {
            tracing::warn!(session = %id, error = %error_chain(&e), "could not store a session's change");
        }
    }
}

/// Whether the request being served may use the session of `record`: the session was opened
/// without authorization, or by the principal (issuer and subject) of this request's token.
/// Every replica reads the owner from the record, so the binding holds across a fleet.
fn owned_by_caller(record: &SessionRecord) -> bool {
    let Some(owner) = &record.owner else {
        return true;
    };
    #[cfg(feature = "auth")]
    return crate::context::principal::current().is_some_and(|p| p.is_owner(owner));
    #[cfg(not(feature = "auth"))]
    {
        // An owner written by a replica with authorization: this one cannot tell who asks.
        let _ = owner;
        false
    }
}

fn no_session() -> Refusal {
    Refusal::new(
        StatusCode::NOT_FOUND,
        codes::INVALID_REQUEST,
        "Not Found: no such session (it ended or never existed); initialize a new one",
    )
}

fn too_many_sessions(options: &HttpOptions) -> Refusal {
    tracing::warn!(
        max = options.max_sessions,
        "every session is busy; refused a new one"
    );
    Refusal::new(
        StatusCode::SERVICE_UNAVAILABLE,
        SERVER_BUSY,
        "Service Unavailable: too many sessions in use; retry shortly",
    )
}

/// The session store could not answer (Redis down): `503`, and the next request tries again.
fn store_failed(error: StoreError) -> Refusal {
    tracing::warn!(error = %error_chain(&error), "the session store failed");
    Refusal::new(
        StatusCode::SERVICE_UNAVAILABLE,
        SERVER_BUSY,
        "Service Unavailable: the session store cannot be reached; retry shortly",
    )
}

/// `initialize` without a session: a new connection, kept as a session when it succeeds.
pub(super) async fn initialize(
    endpoint: &Endpoint,
    message: Incoming,
) -> Result<Response, Refusal> {
    let (conn, outgoing) = Connection::new_http();
    let response = endpoint.server.handle(message, &conn).await;
    let Some(response) = response else {
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let record = record_of(&conn);
    let (None, Some(record)) = (response.protocol_error(), record) else {
        return Ok(json_response(StatusCode::OK, &response));
    };
    let id = new_session_id();
    let options = &endpoint.options;
    let sessions = &endpoint.sessions;
    conn.lock_session().session_id = Some(id.as_str().into());
    let session = Session::new(conn.clone(), outgoing, record.clone());
    let (room, busy) = {
        let mut table = lock(&sessions.table);
        // Cheap unless sessions have expired since the last sweep: it stops at the first live one.
        let busy = table.sweep(options.session_idle);
        let room = table.make_room(options.max_sessions);
        if room {
            table.insert(id.clone(), session);
        }
        (room, busy)
    };
    keep_alive(&*sessions.store, busy, options.session_idle).await;
    if !room {
        conn.close();
        return Err(too_many_sessions(options).with_id_of(&response));
    }
    if let Err(e) = sessions
        .store
        .create(&id, record, options.session_idle)
        .await
    {
        lock(&sessions.table).remove(&id);
        conn.close();
        return Err(store_failed(e).with_id_of(&response));
    }
    sessions.start_sweeper(options.session_idle);
    sessions.start_listener(&endpoint.server);
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

#[cfg(test)]
mod tests {
    use super::super::store::MemorySessionStore;
    use super::table::tests::add;
    use super::*;

    #[tokio::test]
    async fn the_sweeper_ends_idle_sessions_and_stops_with_the_table() {
        let sessions = Sessions::new(
            Arc::new(MemorySessionStore::default()),
            Duration::from_secs(60),
        );
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
