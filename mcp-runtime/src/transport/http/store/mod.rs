//! Where handshake-era sessions are kept: the [`SessionStore`] trait, the record it keeps
//! ([`SessionRecord`]), the in-process default ([`MemorySessionStore`]) and, with the `redis`
//! feature, `RedisSessionStore`, which lets a fleet of replicas behind a plain round-robin
//! balancer serve one session.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | the trait, the record and its JSON form, [`StoreError`] |
//! | `memory.rs` | [`MemorySessionStore`], the default: records in this process |
//! | `redis.rs` | `RedisSessionStore` (feature `redis`): records in Redis, with their idle TTL, and its pub/sub [`Relay`] |
//! | `events.rs` | [`EventStore`]: the events of each session's streams, for `Last-Event-ID` resumption; [`MemoryEventStore`] |
//! | `redis_events.rs` | `RedisEventStore` (feature `redis`): the same in Redis, for every replica |
//! | `relay.rs` | [`Relay`]: client messages handed from the replica that received them to the one serving their call |
//!
//! A replica keeps the sessions it serves live in its own table (their connection: calls in
//! flight, requests to the client, the `GET` stream); the store keeps what any replica needs to
//! serve the session's next request. A request for a session that this replica has not seen is
//! served from the store's record; every request refreshes the record's idle TTL and brings the
//! replica's copy up to date (a log level set through another replica); `DELETE` removes the
//! record, and the session then answers `404` on every replica.

mod events;
mod memory;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod redis_events;
mod relay;

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

pub use events::{
    EventId, EventKind, EventStore, MemoryEventStore, StoredEvent, StreamKey, Stretch,
};
pub use memory::MemorySessionStore;
#[cfg(feature = "redis")]
pub use redis::{RedisOptions, RedisSessionStore};
#[cfg(feature = "redis")]
pub use redis_events::RedisEventStore;
pub use relay::{Relay, RelayKind, Relayed, now_us};

use crate::protocol::{ClientCapabilities, HANDSHAKE_VERSIONS, Implementation, LogLevel};

/// What a [`SessionStore`] method returns: a boxed future, so that the trait stays object-safe
/// (`Arc<dyn SessionStore>`).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where sessions are kept between requests. Every method takes the session's idle `ttl`
/// ([`HttpOptions::session_idle_timeout`]) where it refreshes it: a record unused for `ttl` is
/// gone.
///
/// [`HttpOptions::session_idle_timeout`]: super::HttpOptions::session_idle_timeout
pub trait SessionStore: Send + Sync + 'static {
    /// Keeps a new session's record under `id` for `ttl`.
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: Arc<SessionRecord>,
        ttl: Duration,
    ) -> StoreFuture<'a, ()>;

    /// The record of `id`, its idle TTL refreshed (a use of the session); `None` when it ended,
    /// expired or never existed.
    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Arc<SessionRecord>>>;

    /// Replaces the record of a live session (its log level changed, say); false, and nothing
    /// stored, when the session is gone.
    fn save<'a>(
        &'a self,
        id: &'a str,
        record: Arc<SessionRecord>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool>;

    /// Ends the session `id` everywhere (`DELETE`).
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;

    /// This replica stopped holding `id` live: it went idle, or made room under
    /// [`HttpOptions::max_sessions`]. A store whose records live only in this process ends the
    /// session (nothing else could serve it); a shared store keeps it for the other replicas and
    /// lets its TTL end it. Called under the session table's lock: it must not block.
    ///
    /// [`HttpOptions::max_sessions`]: super::HttpOptions::max_sessions
    fn released(&self, id: &str);

    /// How this store's replicas hand each other messages; `None` (the default) for a store of
    /// one process, whose sessions no other replica serves.
    fn relay(&self) -> Option<Arc<dyn Relay>> {
        None
    }
}

/// What any replica needs to serve a session's next request. Built by the endpoint (a store
/// keeps it, writes it with [`to_json`](Self::to_json) and reads it back with
/// [`from_json`](Self::from_json)); it gains fields as sessions learn more.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionRecord {
    /// The protocol version `initialize` negotiated.
    pub version: &'static str,
    /// The client's `clientInfo`.
    pub client_info: Option<Implementation>,
    /// The client's `capabilities`.
    pub capabilities: ClientCapabilities,
    /// True once `notifications/initialized` arrived.
    pub initialized: bool,
    /// The level `logging/setLevel` set; `None`: every level.
    pub log_level: Option<LogLevel>,
    /// The resource URIs the client subscribed to (empty until the server has resources).
    pub subscriptions: BTreeSet<String>,
    /// When `initialize` opened the session, in milliseconds since the Unix epoch.
    #[serde(rename = "created")]
    pub created_ms: u64,
    /// Who opened the session, when the endpoint checks access tokens (feature `auth`): the
    /// token's issuer and subject. Every replica refuses the session's id with another
    /// subject's token, as if the session did not exist. `None`: opened without authorization.
    pub owner: Option<String>,
}

impl SessionRecord {
    /// The JSON a shared store keeps (its `Serialize`, as a `Value`).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a `SessionRecord` serializes")
    }

    /// Reads what [`SessionRecord::to_json`] wrote; an error names what is wrong.
    ///
    /// Hand-written, not derived: `version` must be one of `HANDSHAKE_VERSIONS` (kept as
    /// `&'static str`), a record written by an older version lacks members it reads as their
    /// defaults, and each refusal says which member of the record is wrong.
    pub fn from_json(value: &Value) -> Result<Self, StoreError> {
        let bad = |what: &str| StoreError::new(format!("a stored session has {what}"));
        let object: &Map<String, Value> = value.as_object().ok_or_else(|| bad("no object"))?;
        let version = object.get("version").and_then(Value::as_str);
        let version = HANDSHAKE_VERSIONS
            .iter()
            .find(|v| Some(**v) == version)
            .ok_or_else(|| bad("an unknown protocol version"))?;
        let log_level = match object.get("logLevel") {
            None | Some(Value::Null) => None,
            Some(level) => Some(
                level
                    .as_str()
                    .and_then(LogLevel::parse)
                    .ok_or_else(|| bad("an unknown log level"))?,
            ),
        };
        let subscriptions = match object.get("subscriptions") {
            Some(Value::Array(uris)) => uris
                .iter()
                .map(|u| u.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("a subscription that is not a string"))?,
            _ => BTreeSet::new(),
        };
        Ok(SessionRecord {
            version,
            client_info: object.get("clientInfo").and_then(Implementation::from_json),
            capabilities: ClientCapabilities(
                object.get("capabilities").cloned().unwrap_or(json!({})),
            ),
            initialized: object.get("initialized") == Some(&Value::Bool(true)),
            log_level,
            subscriptions,
            created_ms: object.get("created").and_then(Value::as_u64).unwrap_or(0),
            owner: match object.get("owner") {
                None | Some(Value::Null) => None,
                Some(owner) => Some(
                    owner
                        .as_str()
                        .ok_or_else(|| bad("an owner that is not a string"))?
                        .to_owned(),
                ),
            },
        })
    }
}

/// Milliseconds since the Unix epoch, now.
pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A store that could not answer: Redis down or unreachable, or a record it could not read. The
/// request that needed it is refused (`503`, JSON-RPC error `-32000`); nothing panics, and the
/// next request tries again. `Display` writes the message alone; the cause is its
/// [`source`](std::error::Error::source), so that a report walking the chain prints it once.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct StoreError {
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl StoreError {
    /// An error that says `message`.
    pub fn new(message: impl Into<String>) -> Self {
        StoreError {
            message: message.into(),
            source: None,
        }
    }

    /// An error that says `message`, caused by `source`.
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        StoreError {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }
}

/// The store [`HttpOptions`](super::HttpOptions) carries: shared by every clone of the options.
#[derive(Clone)]
pub(super) struct StoreHandle(pub(super) Arc<dyn SessionStore>);

impl Default for StoreHandle {
    fn default() -> Self {
        StoreHandle(Arc::new(MemorySessionStore::default()))
    }
}

impl fmt::Debug for StoreHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionStore")
    }
}

/// The event store [`HttpOptions`](super::HttpOptions) carries: shared by every clone of the options.
#[derive(Clone)]
pub(super) struct EventsHandle(pub(super) Arc<dyn EventStore>);

impl Default for EventsHandle {
    fn default() -> Self {
        EventsHandle(Arc::new(MemoryEventStore::default()))
    }
}

impl fmt::Debug for EventsHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EventStore")
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A record with every field set.
    pub(crate) fn record() -> SessionRecord {
        SessionRecord {
            version: "2025-06-18",
            client_info: Some(Implementation {
                name: "probe".into(),
                version: "1.0".into(),
                title: Some("Probe".into()),
                description: None,
            }),
            capabilities: ClientCapabilities(json!({"elicitation": {}})),
            initialized: true,
            log_level: Some(LogLevel::Warning),
            subscriptions: ["file:///a".to_owned()].into(),
            created_ms: 1_700_000_000_000,
            owner: Some("https://idp.example\u{1f}alice".into()),
        }
    }

    #[test]
    fn a_record_reads_back_what_it_wrote() {
        let record = record();
        assert_eq!(SessionRecord::from_json(&record.to_json()).unwrap(), record);
        let bare = SessionRecord {
            client_info: None,
            log_level: None,
            subscriptions: BTreeSet::new(),
            owner: None,
            ..record
        };
        assert_eq!(SessionRecord::from_json(&bare.to_json()).unwrap(), bare);
    }

    /// The bytes a shared store keeps, member by member in this order (a record written by an
    /// earlier version reads back, and a later one reads these).
    #[test]
    fn a_record_is_stored_as_these_bytes() {
        assert_eq!(
            record().to_json().to_string(),
            r#"{"version":"2025-06-18","clientInfo":{"name":"probe","version":"1.0","title":"Probe"},"capabilities":{"elicitation":{}},"initialized":true,"logLevel":"warning","subscriptions":["file:///a"],"created":1700000000000,"owner":"https://idp.example\u001falice"}"#
        );
        let bare = SessionRecord {
            client_info: None,
            log_level: None,
            subscriptions: BTreeSet::new(),
            owner: None,
            ..record()
        };
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            r#"{"version":"2025-06-18","clientInfo":null,"capabilities":{"elicitation":{}},"initialized":true,"logLevel":null,"subscriptions":[],"created":1700000000000,"owner":null}"#
        );
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_panic() {
        for (value, says) in [
            (json!([]), "no object"),
            (json!({"version": "1999-01-01"}), "unknown protocol version"),
            (
                json!({"version": "2025-06-18", "logLevel": "loud"}),
                "unknown log level",
            ),
            (
                json!({"version": "2025-06-18", "subscriptions": [1]}),
                "not a string",
            ),
            (
                json!({"version": "2025-06-18", "owner": 7}),
                "an owner that is not a string",
            ),
        ] {
            let error = SessionRecord::from_json(&value).unwrap_err().to_string();
            assert!(error.contains(says), "{error}");
        }
    }
}
