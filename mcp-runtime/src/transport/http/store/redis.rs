//! [`RedisSessionStore`] (feature `redis`): each session one Redis string,
//! `{prefix}:session:{id}`, holding the record's JSON and expiring after the session's idle TTL.
//! A use is one `GETEX … PX ttl`, which reads the record and pushes its expiry back in one atomic
//! command (so the session's last use is its expiry less the TTL: `PTTL` tells it); a change is
//! `SET … PX ttl XX`, which never revives a session that ended; `DELETE` is `DEL`.
//!
//! The client is the `redis` crate (redis-rs) with its tokio `ConnectionManager`, rather than
//! `fred`. Both are kept up; redis-rs is the one most of the ecosystem already builds (it is the
//! client of `deadpool-redis`, `bb8-redis` and the axum/tower session stores), it needs no
//! features beyond `tokio-comp` and `connection-manager` here (no TLS stack, no proc-macros, so
//! one `syn` stays in the tree), and its `ConnectionManager` is what this store needs: one
//! multiplexed connection shared by every request, cheap to clone, reconnecting by itself after
//! Redis restarts; its `cluster-async` feature adds the Redis Cluster connection
//! (`crate::redis_conn`). `fred` brings its own pool, reconnection policy and a larger dependency
//! tree for features (client tracking) a session table does not use.
//!
//! The [`Relay`] between replicas is Redis pub/sub on one channel, `{prefix}:relay`: every
//! replica subscribes (one dedicated connection each, reconnected after a loss) and keeps what
//! concerns the sessions it serves. Relayed messages are rare (answers to the server's own
//! requests, cancellations), so one channel costs less than a subscription per session.
//!
//! On a Redis Cluster (a `redis+cluster://` URL, `crate::redis_conn`) the key is the same: every
//! command here names one key. The relay stays classic pub/sub, which a cluster hands to every
//! node: `PUBLISH` goes through the cluster connection, and each replica subscribes on one seed
//! node, moving on to the next seed when it loses that one (a node killed, or failed over).

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::{Relay, Relayed, SessionRecord, SessionStore, StoreError, StoreFuture};
use crate::redis_conn::{RedisConnection, RedisTarget, RedisTimeouts};

/// How [`RedisSessionStore`] reaches Redis.
#[derive(Debug, Clone)]
pub struct RedisOptions {
    prefix: String,
    response_timeout: Duration,
    connection_timeout: Duration,
}

impl Default for RedisOptions {
    /// Keys under `mcp:`; a command answers within 2 s and a connection opens within 1 s, or the
    /// request that needed it fails (and the next one reconnects).
    fn default() -> Self {
        RedisOptions {
            prefix: "mcp".into(),
            response_timeout: Duration::from_secs(2),
            connection_timeout: Duration::from_secs(1),
        }
    }
}

impl RedisOptions {
    setters! {
        /// The prefix of every key (default `mcp`): fleets that share one Redis use their own.
        pub fn prefix(prefix: impl Into<String>) => prefix = prefix.into();

        /// How long a command may take before the request that needed it fails (default 2 s).
        pub fn response_timeout(timeout: Duration) => response_timeout = timeout;

        /// How long opening a connection may take (default 1 s).
        pub fn connection_timeout(timeout: Duration) => connection_timeout = timeout;
    }
}

/// Sessions in Redis: every replica that uses the same Redis and prefix serves every session.
#[derive(Clone)]
pub struct RedisSessionStore {
    /// Where the relay subscribes: the node, or the cluster's seeds in turn.
    subscribers: Arc<[redis::Client]>,
    conn: RedisConnection,
    prefix: Arc<str>,
}

impl RedisSessionStore {
    /// Connects to `url` with the default [`RedisOptions`]: `redis://host:port/db` for one
    /// Redis, `redis+cluster://host:port,host:port` for a Redis Cluster through those seeds.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, RedisOptions::default()).await
    }

    /// Connects to `url` with `options`; fails when Redis cannot be reached now.
    pub async fn connect_with(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let bad = |e| StoreError::with_source(format!("bad Redis URL `{url}`"), e);
        let target = RedisTarget::parse(url).map_err(|e| StoreError::new(e.to_string()))?;
        let subscribers = target.subscribers().map_err(bad)?;
        let timeouts = RedisTimeouts {
            response: options.response_timeout,
            connection: options.connection_timeout,
        };
        let conn = RedisConnection::open(&target, timeouts)
            .await
            .map_err(|e| StoreError::with_source(format!("cannot reach Redis at `{url}`"), e))?;
        Ok(RedisSessionStore {
            subscribers: subscribers.into(),
            conn,
            prefix: options.prefix.into(),
        })
    }

    /// The Redis key of the session `id`.
    pub fn key(&self, id: &str) -> String {
        format!("{}:session:{id}", self.prefix)
    }

    /// The prefix of its keys, for the stores that share its Redis (events, tasks).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The connection, shared with whatever else runs on this Redis (events, tasks).
    pub fn connection(&self) -> RedisConnection {
        self.conn.clone()
    }

    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, StoreError> {
        cmd.query_async(&mut self.conn.clone())
            .await
            .map_err(|e| StoreError::with_source("the session store (Redis) failed", e))
    }
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn encode(record: &SessionRecord) -> String {
    serde_json::to_string(record).expect("a `SessionRecord` serializes")
}

impl SessionStore for RedisSessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: Arc<SessionRecord>,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = redis::cmd("SET");
            cmd.arg(self.key(id))
                .arg(encode(&record))
                .arg("PX")
                .arg(millis(ttl));
            self.query::<()>(&cmd).await
        })
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Arc<SessionRecord>>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("GETEX");
            cmd.arg(self.key(id)).arg("PX").arg(millis(ttl));
            let Some(text) = self.query::<Option<String>>(&cmd).await? else {
                return Ok(None);
            };
            let value = serde_json::from_str(&text)
                .map_err(|e| StoreError::with_source("a stored session is not JSON", e))?;
            SessionRecord::from_json(&value).map(|r| Some(Arc::new(r)))
        })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        record: Arc<SessionRecord>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut cmd = redis::cmd("SET");
            cmd.arg(self.key(id))
                .arg(encode(&record))
                .arg("PX")
                .arg(millis(ttl))
                .arg("XX");
            let stored = self.query::<Option<String>>(&cmd).await?;
            Ok(stored.is_some())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = redis::cmd("DEL");
            cmd.arg(self.key(id));
            self.query::<()>(&cmd).await
        })
    }

    /// Nothing: the other replicas may still serve the session, and Redis ends it when idle.
    fn released(&self, _id: &str) {}

    fn relay(&self) -> Option<Arc<dyn Relay>> {
        Some(Arc::new(self.clone()))
    }
}

impl RedisSessionStore {
    /// The pub/sub channel of the relay.
    fn channel(&self) -> String {
        format!("{}:relay", self.prefix)
    }
}

/// How long the relay's listener waits before subscribing again after losing Redis.
const RESUBSCRIBE_AFTER: Duration = Duration::from_millis(250);

impl Relay for RedisSessionStore {
    fn publish<'a>(&'a self, message: &'a Relayed) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = redis::cmd("PUBLISH");
            cmd.arg(self.channel()).arg(message.encode());
            self.query::<()>(&cmd).await
        })
    }

    fn listen(&self) -> mpsc::UnboundedReceiver<Relayed> {
        let (tx, rx) = mpsc::unbounded_channel();
        let (subscribers, channel) = (self.subscribers.clone(), self.channel());
        tokio::spawn(async move {
            // The seed to try next: after a loss, the next one (the lost node may be gone).
            let mut next = 0;
            while !tx.is_closed() {
                let client = &subscribers[next % subscribers.len()];
                next += 1;
                match client.get_async_pubsub().await {
                    Ok(mut pubsub) => match pubsub.subscribe(&channel).await {
                        Ok(()) => {
                            let mut messages = pubsub.into_on_message();
                            while let Some(message) = messages.next().await {
                                match Relayed::decode(message.get_payload_bytes()) {
                                    Ok(relayed) => {
                                        if tx.send(relayed).is_err() {
                                            return;
                                        }
                                    }
                                    Err(e) => tracing::warn!(error = %e, "relay"),
                                }
                            }
                            tracing::warn!("the relay lost Redis; subscribing again");
                        }
                        Err(e) => tracing::warn!(error = %e, "the relay could not subscribe"),
                    },
                    Err(e) => tracing::warn!(error = %e, "the relay cannot reach Redis"),
                }
                tokio::time::sleep(RESUBSCRIBE_AFTER).await;
            }
        });
        rx
    }
}
