//! [`RedisEventStore`] (feature `redis`): the events of every session's streams in Redis, so that
//! a client resumes a stream with `Last-Event-ID` on any replica of a fleet.
//!
//! | key | type | holds | expires |
//! |---|---|---|---|
//! | `{prefix}:events:{session}:{stream}` | stream | one entry per event, id `{n}-1`, fields `k` (its kind) and `m` (its text) | TTL after its last event |
//! | `{prefix}:events:{session}:{stream}:lease` | string | present while the writer runs | the lease, refreshed while it runs |
//!
//! An append is one `MULTI`: `XADD … MAXLEN n {seq}-1`, `PEXPIRE`, and the lease set (or, for
//! the event that ends the stream, deleted). Entry ids are the events' numbers, so `XRANGE key
//! ({after}-1 +` reads exactly what a client missed, and a second writer of one stream fails
//! (Redis refuses an id not above the last). A read is one `MULTI` too (the lease, the entries,
//! the stream's existence), so a reader never sees the lease gone without the answer that
//! released it. A reader with nothing new polls every 50 ms until its wait is over, on the
//! shared connection: a blocking `XREAD` would stall every other command multiplexed on it, and
//! resumed streams are rare.
//!
//! On a Redis Cluster the two keys of a stream carry one hash tag, the session and stream
//! (`{prefix}:events:{{session}:{stream}}` and its `:lease`), so each `MULTI` touches one slot
//! while the streams of a fleet spread over every master.

use std::time::Duration;

use redis::Value;

use super::events::{EventKind, EventStore, StoredEvent, StreamKey, Stretch};
use super::{RedisSessionStore, StoreError, StoreFuture};
use crate::redis_conn::{RedisConnection, hash_tag};

/// How often a reader with nothing new looks again.
const POLL: Duration = Duration::from_millis(50);

/// Event streams in Redis, shared by every replica on the same Redis and prefix.
#[derive(Clone)]
pub struct RedisEventStore {
    conn: RedisConnection,
    prefix: String,
    max_events: usize,
    ttl: Duration,
}

impl RedisEventStore {
    /// On `conn` (one Redis's or a cluster's), keys under `prefix`, 256 events per stream,
    /// forgotten 5 minutes after their last.
    pub fn with_connection(conn: impl Into<RedisConnection>, prefix: impl Into<String>) -> Self {
        RedisEventStore {
            conn: conn.into(),
            prefix: prefix.into(),
            max_events: 256,
            ttl: Duration::from_secs(300),
        }
    }

    /// On the session store's connection and prefix (what `--redis` installs).
    pub fn beside(sessions: &RedisSessionStore) -> Self {
        Self::with_connection(sessions.connection(), sessions.prefix())
    }

    /// At most `n` events per stream (default 256): the oldest go first.
    pub fn max_events(mut self, n: usize) -> Self {
        self.max_events = n.max(1);
        self
    }

    /// A stream is forgotten this long after its last event (default 5 minutes).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The Redis key of `key`'s stream.
    pub fn key(&self, key: &StreamKey) -> String {
        if self.conn.is_cluster() {
            let tag = hash_tag(&format!("{}:{}", key.session, key.stream));
            return format!("{}:events:{tag}", self.prefix);
        }
        format!("{}:events:{}:{}", self.prefix, key.session, key.stream)
    }

    async fn run<T: redis::FromRedisValue>(&self, pipe: &redis::Pipeline) -> Result<T, StoreError> {
        pipe.query_async(&mut self.conn.clone())
            .await
            .map_err(|e| StoreError::with_source("the event store (Redis) failed", e))
    }

    async fn read_now(&self, key: &StreamKey, after: u64) -> Result<Option<Stretch>, StoreError> {
        let stream = self.key(key);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("EXISTS")
            .arg(format!("{stream}:lease"))
            .cmd("XRANGE")
            .arg(&stream)
            .arg(format!("({after}-1"))
            .arg("+")
            .cmd("EXISTS")
            .arg(&stream);
        let (lease, entries, exists): (i64, Value, i64) = self.run(&pipe).await?;
        if exists == 0 {
            return Ok(None);
        }
        Ok(Some(Stretch {
            events: entries_of(entries)?,
            writing: lease == 1,
        }))
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// The events of an `XRANGE` reply.
fn entries_of(reply: Value) -> Result<Vec<StoredEvent>, StoreError> {
    let bad = || StoreError::new("a stored event stream is malformed");
    let Value::Array(entries) = reply else {
        return Err(bad());
    };
    let text = |v: &Value| match v {
        Value::BulkString(b) => String::from_utf8(b.clone()).ok(),
        Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    };
    entries
        .iter()
        .map(|entry| {
            let Value::Array(parts) = entry else {
                return Err(bad());
            };
            let [id, Value::Array(fields)] = parts.as_slice() else {
                return Err(bad());
            };
            let seq = text(id)
                .and_then(|id| id.split_once('-').and_then(|(n, _)| n.parse().ok()))
                .ok_or_else(bad)?;
            let (mut kind, mut message) = (None, None);
            for pair in fields.chunks(2) {
                match (pair.first().and_then(text).as_deref(), pair.get(1)) {
                    (Some("k"), Some(v)) => kind = text(v).and_then(|k| EventKind::from_code(&k)),
                    (Some("m"), Some(v)) => message = text(v),
                    _ => {}
                }
            }
            Ok(StoredEvent {
                seq,
                kind: kind.ok_or_else(bad)?,
                text: message.ok_or_else(bad)?.into(),
            })
        })
        .collect()
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        key: &'a StreamKey,
        event: StoredEvent,
        lease: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let stream = self.key(key);
            let mut pipe = redis::pipe();
            pipe.atomic()
                .cmd("XADD")
                .arg(&stream)
                .arg("MAXLEN")
                .arg(self.max_events)
                .arg(format!("{}-1", event.seq))
                .arg("k")
                .arg(event.kind.code())
                .arg("m")
                .arg(&*event.text)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&stream)
                .arg(millis(self.ttl))
                .ignore();
            if event.kind.ends() {
                pipe.cmd("DEL").arg(format!("{stream}:lease")).ignore();
            } else {
                pipe.cmd("SET")
                    .arg(format!("{stream}:lease"))
                    .arg(1)
                    .arg("PX")
                    .arg(millis(lease))
                    .ignore();
            }
            self.run::<()>(&pipe).await
        })
    }

    fn keep_alive<'a>(&'a self, key: &'a StreamKey, lease: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("SET")
                .arg(format!("{}:lease", self.key(key)))
                .arg(1)
                .arg("PX")
                .arg(millis(lease))
                .ignore();
            self.run::<()>(&pipe).await
        })
    }

    fn read<'a>(
        &'a self,
        key: &'a StreamKey,
        after: u64,
        wait: Duration,
    ) -> StoreFuture<'a, Option<Stretch>> {
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                let stretch = self.read_now(key, after).await?;
                match &stretch {
                    Some(s) if s.events.is_empty() && tokio::time::Instant::now() < deadline => {
                        tokio::time::sleep(POLL).await;
                    }
                    _ => return Ok(stretch),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    #[test]
    fn an_xrange_reply_reads_as_events_and_a_damaged_one_is_an_error() {
        let entry = |id: &str, k: &str, m: &str| {
            Value::Array(vec![
                bulk(id),
                Value::Array(vec![bulk("k"), bulk(k), bulk("m"), bulk(m)]),
            ])
        };
        let reply = Value::Array(vec![entry("2-1", "m", "{}"), entry("3-1", "a", "[1]")]);
        let events = entries_of(reply).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!((events[1].seq, events[1].kind), (3, EventKind::Answer));
        assert_eq!(&*events[1].text, "[1]");
        for damaged in [
            Value::Nil,
            Value::Array(vec![bulk("x")]),
            Value::Array(vec![entry("x-1", "m", "")]),
            Value::Array(vec![entry("2-1", "?", "")]),
        ] {
            assert!(entries_of(damaged).is_err());
        }
    }
}
