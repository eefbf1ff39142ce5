//! The connection every Redis store of a fleet shares (feature `redis`): one Redis (a
//! `redis://` URL, through redis-rs' reconnecting `ConnectionManager`) or a Redis Cluster (a
//! `redis+cluster://` URL naming its seed nodes, through redis-rs' `ClusterConnection`, which
//! routes each command to the master of its key's slot and follows the cluster through
//! failovers and resharding).
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`RedisConnection`], [`RedisTarget`] (what a URL names), [`RedisTimeouts`] |
//! | `cluster.rs` | the `redis+cluster://` URL, the cluster connection, and [`hash_tag`] |
//!
//! A store's keys on a cluster are hash-tagged so that each of its scripts and transactions
//! touches one slot (each store's module says which); on one Redis its keys are unchanged.

mod cluster;

use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, Pipeline, RedisError, RedisFuture, Value};

#[doc(hidden)]
pub use cluster::CLUSTER_SCHEME;
pub use cluster::hash_tag;

/// What a store URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisTarget {
    /// One Redis (or a primary with replicas behind one address): `redis://host:port/db`.
    Node(String),
    /// A Redis Cluster, reached through any of these seed nodes (`redis://host:port` each), from
    /// `redis+cluster://host:port,host:port,…`.
    Cluster(Vec<String>),
}

impl RedisTarget {
    /// Reads `url`: `redis+cluster://[user:password@]host:port[,host:port…]` names a cluster,
    /// anything else one Redis (redis-rs checks it when connecting).
    #[doc(hidden)]
    pub fn parse(url: &str) -> Result<RedisTarget, String> {
        match url.strip_prefix(CLUSTER_SCHEME) {
            Some(rest) => cluster::seeds(rest).map(RedisTarget::Cluster),
            None => Ok(RedisTarget::Node(url.to_owned())),
        }
    }

    /// Clients for a pub/sub subscription: the node, or each seed of the cluster in turn (a
    /// classic `PUBLISH` on a cluster reaches every node, so any one will do).
    pub fn subscribers(&self) -> Result<Vec<redis::Client>, RedisError> {
        match self {
            RedisTarget::Node(url) => Ok(vec![redis::Client::open(url.as_str())?]),
            RedisTarget::Cluster(seeds) => seeds
                .iter()
                .map(|s| redis::Client::open(s.as_str()))
                .collect(),
        }
    }
}

/// How long a command and a connection may take.
#[derive(Debug, Clone, Copy)]
pub struct RedisTimeouts {
    /// A command answers within this, retries included, or fails.
    pub response: Duration,
    /// A connection opens within this.
    pub connection: Duration,
}

impl Default for RedisTimeouts {
    /// A command within 2 s, a connection within 1 s.
    fn default() -> Self {
        RedisTimeouts {
            response: Duration::from_secs(2),
            connection: Duration::from_secs(1),
        }
    }
}

/// A connection to one Redis or to a Redis Cluster, cheap to clone (every clone multiplexes on
/// the same sockets) and reconnecting by itself.
#[derive(Clone)]
pub enum RedisConnection {
    /// One Redis.
    Node(ConnectionManager),
    /// A Redis Cluster.
    Cluster(ClusterConnection),
}

impl RedisConnection {
    /// Connects to what `target` names; fails when it cannot be reached now.
    #[doc(hidden)]
    pub async fn open(target: &RedisTarget, timeouts: RedisTimeouts) -> Result<Self, RedisError> {
        match target {
            RedisTarget::Node(url) => {
                let client = redis::Client::open(url.as_str())?;
                let config = ConnectionManagerConfig::new()
                    .set_response_timeout(Some(timeouts.response))
                    .set_connection_timeout(Some(timeouts.connection))
                    .set_number_of_retries(2);
                let conn = ConnectionManager::new_with_config(client, config).await?;
                Ok(RedisConnection::Node(conn))
            }
            RedisTarget::Cluster(seeds) => cluster::connect(seeds, timeouts)
                .await
                .map(RedisConnection::Cluster),
        }
    }

    /// Connects to `url` (`redis://…`, or `redis+cluster://…` naming seed nodes) with the default
    /// timeouts.
    pub async fn connect(url: &str) -> Result<Self, RedisError> {
        let target = RedisTarget::parse(url).map_err(|e| {
            RedisError::from((redis::ErrorKind::InvalidClientConfig, "bad Redis URL", e))
        })?;
        Self::open(&target, RedisTimeouts::default()).await
    }

    /// Whether it is a cluster's (so keys a script or transaction shares must share a slot).
    pub fn is_cluster(&self) -> bool {
        matches!(self, RedisConnection::Cluster(_))
    }
}

impl From<ConnectionManager> for RedisConnection {
    fn from(conn: ConnectionManager) -> Self {
        RedisConnection::Node(conn)
    }
}

impl From<ClusterConnection> for RedisConnection {
    fn from(conn: ClusterConnection) -> Self {
        RedisConnection::Cluster(conn)
    }
}

impl ConnectionLike for RedisConnection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            RedisConnection::Node(c) => c.req_packed_command(cmd),
            RedisConnection::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            RedisConnection::Node(c) => c.req_packed_commands(pipeline, offset, count),
            RedisConnection::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            RedisConnection::Node(c) => c.get_db(),
            RedisConnection::Cluster(c) => c.get_db(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_a_node_or_a_cluster_and_a_bad_cluster_url_is_an_error() {
        assert_eq!(
            RedisTarget::parse("redis://127.0.0.1:6379/0"),
            Ok(RedisTarget::Node("redis://127.0.0.1:6379/0".into()))
        );
        assert_eq!(
            RedisTarget::parse("redis+cluster://a:7000,b:7001"),
            Ok(RedisTarget::Cluster(vec![
                "redis://a:7000".into(),
                "redis://b:7001".into()
            ]))
        );
        assert_eq!(
            RedisTarget::parse("redis+cluster://u:p%40ss@a:7000,[::1]:7001/"),
            Ok(RedisTarget::Cluster(vec![
                "redis://u:p%40ss@a:7000".into(),
                "redis://u:p%40ss@[::1]:7001".into()
            ]))
        );
        for bad in [
            "redis+cluster://",
            "redis+cluster://a",
            "redis+cluster://a:x",
            "redis+cluster://a:7000,,b:7001",
            "redis+cluster://a:7000/3",
            "redis+cluster://a:7000?x=1",
        ] {
            assert!(RedisTarget::parse(bad).is_err(), "{bad}");
        }
    }
}
