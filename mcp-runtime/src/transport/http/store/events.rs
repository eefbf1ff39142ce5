//! [`EventStore`]: the events of a session's event streams, kept so that a client whose stream
//! broke resumes it with `Last-Event-ID`, on this replica or any other that shares the store.
//!
//! Every event a handshake-era session's stream writes carries an id, `{stream}/{n}`: the
//! stream's name (unique in the session: `r…` for a request's response stream, `g…` for the
//! session's `GET` stream) and the event's number in it, counted from 1. The writer appends each
//! event here before it goes on the wire, so that whatever a client may have missed is here. A
//! request's stream ends with its answer; while it is written its writer holds a lease
//! ([`HttpOptions::stream_lease`]), refreshed as it runs, so that a reader on another replica can
//! tell a slow call from a replica that died (the lease lapsed with no answer).
//!
//! [`MemoryEventStore`] is the default (one process); `RedisEventStore` (feature `redis`) keeps
//! the streams where every replica reads them. Both keep at most a bounded number of events per
//! stream (the oldest go first) and forget a stream unused for a TTL.
//!
//! [`HttpOptions::stream_lease`]: super::super::HttpOptions::stream_lease

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::StoreFuture;
use crate::context::connection::lock;

/// One stream of one session.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StreamKey {
    /// The session's `Mcp-Session-Id`.
    pub session: Arc<str>,
    /// The stream's name in the session.
    pub stream: Arc<str>,
}

impl StreamKey {
    /// The stream `stream` of the session `session`.
    pub fn new(session: impl Into<Arc<str>>, stream: impl Into<Arc<str>>) -> Self {
        StreamKey {
            session: session.into(),
            stream: stream.into(),
        }
    }

    /// The wire id of this stream's event `seq`: `{stream}/{seq}`.
    pub fn event_id(&self, seq: u64) -> String {
        format!("{}/{seq}", self.stream)
    }

    /// True for a session's `GET` stream (which has no end), false for a request's stream.
    pub fn is_session_stream(&self) -> bool {
        self.stream.starts_with('g')
    }
}

/// An event's id on the wire, `{stream}/{n}`, as a client's `Last-Event-ID` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventId {
    /// The stream's name: `r` or `g` then 1 to 32 lowercase hex digits.
    pub stream: String,
    /// The event's number in its stream, from 1.
    pub seq: u64,
}

impl EventId {
    /// Reads a `Last-Event-ID`; `None` for anything this server could not have written.
    pub fn parse(text: &str) -> Option<EventId> {
        let (stream, seq) = text.trim().split_once('/')?;
        let (kind, hex) = stream.split_at_checked(1)?;
        let named = matches!(kind, "r" | "g")
            && (1..=32).contains(&hex.len())
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        let digits = !seq.is_empty() && seq.len() <= 20 && seq.bytes().all(|b| b.is_ascii_digit());
        if !named || !digits {
            return None;
        }
        Some(EventId {
            stream: stream.to_owned(),
            seq: seq.parse().ok()?,
        })
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.stream, self.seq)
    }
}

/// What a stored event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The stream's first event: its text is the id (JSON) of the request it answers, empty for a
    /// `GET` stream. A client of 2025-11-25 sees it as the priming event (no data).
    Open,
    /// A message before the answer: progress, a log message, a request to the client.
    Message,
    /// The request's answer: the stream's last event.
    Answer,
    /// The request ended without an answer (cancelled by the client): the stream ends here.
    End,
}

impl EventKind {
    /// Its one-letter name in a shared store.
    pub fn code(self) -> &'static str {
        match self {
            EventKind::Open => "o",
            EventKind::Message => "m",
            EventKind::Answer => "a",
            EventKind::End => "e",
        }
    }

    /// Reads [`EventKind::code`].
    pub fn from_code(code: &str) -> Option<Self> {
        Some(match code {
            "o" => EventKind::Open,
            "m" => EventKind::Message,
            "a" => EventKind::Answer,
            "e" => EventKind::End,
            _ => return None,
        })
    }

    /// True for the kinds that end a stream.
    pub fn ends(self) -> bool {
        matches!(self, EventKind::Answer | EventKind::End)
    }
}

/// One event of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its number in the stream, from 1.
    pub seq: u64,
    /// What it is.
    pub kind: EventKind,
    /// The JSON-RPC message's text (for [`EventKind::Open`], the request id's).
    pub text: Arc<str>,
}

/// What [`EventStore::read`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stretch {
    /// The events after the one asked for, oldest first.
    pub events: Vec<StoredEvent>,
    /// True while the stream's writer holds its lease (a request still running somewhere).
    pub writing: bool,
}

/// Where the events of a session's streams are kept for resumption. Object-safe:
/// `Arc<dyn EventStore>`.
pub trait EventStore: Send + Sync + 'static {
    /// Appends `event` to `key`'s stream and refreshes the stream's TTL; the writer holds the
    /// stream for `lease` more (an event that ends the stream releases it).
    fn append<'a>(
        &'a self,
        key: &'a StreamKey,
        event: StoredEvent,
        lease: Duration,
    ) -> StoreFuture<'a, ()>;

    /// The writer, still running, holds `key`'s stream for `lease` more.
    fn keep_alive<'a>(&'a self, key: &'a StreamKey, lease: Duration) -> StoreFuture<'a, ()>;

    /// The events of `key`'s stream numbered above `after`, waiting up to `wait` for one when
    /// there is none yet; `None` when the store has no such stream (never written, or expired).
    fn read<'a>(
        &'a self,
        key: &'a StreamKey,
        after: u64,
        wait: Duration,
    ) -> StoreFuture<'a, Option<Stretch>>;
}

/// The default [`EventStore`]: this process's streams in a map.
pub struct MemoryEventStore {
    inner: Mutex<Streams>,
    max_events: usize,
    max_streams: usize,
    ttl: Duration,
}

#[derive(Default)]
struct Streams {
    map: HashMap<StreamKey, Entry>,
    /// Keys in the order their streams opened: the oldest go first when over the cap.
    order: VecDeque<StreamKey>,
}

struct Entry {
    events: VecDeque<StoredEvent>,
    used: Instant,
    lease_until: Option<Instant>,
    notify: Arc<Notify>,
}

impl Default for MemoryEventStore {
    /// 256 events per stream, 10,000 streams, forgotten 5 minutes after their last event.
    fn default() -> Self {
        MemoryEventStore::new(256, 10_000, Duration::from_secs(300))
    }
}

impl MemoryEventStore {
    /// At most `max_events` per stream (the oldest dropped first) and `max_streams` streams (the
    /// oldest dropped first); a stream with no new event for `ttl` is forgotten.
    pub fn new(max_events: usize, max_streams: usize, ttl: Duration) -> Self {
        MemoryEventStore {
            inner: Mutex::new(Streams::default()),
            max_events: max_events.max(1),
            max_streams: max_streams.max(1),
            ttl,
        }
    }

    /// How many streams it holds.
    pub fn len(&self) -> usize {
        lock(&self.inner).map.len()
    }

    /// True when it holds no stream.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn append_now(&self, key: &StreamKey, event: StoredEvent, lease: Duration) {
        let now = Instant::now();
        let mut streams = lock(&self.inner);
        if !streams.map.contains_key(key) {
            streams.make_room(self.max_streams, now, self.ttl);
            streams.order.push_back(key.clone());
        }
        let entry = streams.map.entry(key.clone()).or_insert_with(|| Entry {
            events: VecDeque::new(),
            used: now,
            lease_until: None,
            notify: Arc::new(Notify::new()),
        });
        entry.lease_until = (!event.kind.ends()).then(|| now + lease);
        if entry.events.len() == self.max_events {
            entry.events.pop_front();
        }
        entry.events.push_back(event);
        entry.used = now;
        entry.notify.notify_waiters();
    }

    /// The stretch after `after` now, and what to wait on for more.
    fn read_now(&self, key: &StreamKey, after: u64) -> Option<(Stretch, Arc<Notify>)> {
        let now = Instant::now();
        let mut streams = lock(&self.inner);
        let entry = streams.map.get(key)?;
        if now.duration_since(entry.used) > self.ttl {
            streams.map.remove(key);
            return None;
        }
        let stretch = Stretch {
            events: entry
                .events
                .iter()
                .filter(|e| e.seq > after)
                .cloned()
                .collect(),
            writing: entry.lease_until.is_some_and(|until| until > now),
        };
        Some((stretch, entry.notify.clone()))
    }
}

impl Streams {
    /// Drops expired streams from the front, then the oldest while at the cap.
    fn make_room(&mut self, cap: usize, now: Instant, ttl: Duration) {
        while let Some(front) = self.order.front() {
            let expired = match self.map.get(front) {
                None => true,
                Some(entry) => now.duration_since(entry.used) > ttl,
            };
            if !expired && self.map.len() < cap {
                break;
            }
            if let Some(key) = self.order.pop_front() {
                self.map.remove(&key);
            }
        }
        // Keys whose streams expired on a read wait behind a long-lived stream: dropped once
        // they are half the queue (amortized O(1) per stream).
        if self.order.len() > 2 * self.map.len() + 16 {
            let map = &self.map;
            self.order.retain(|k| map.contains_key(k));
        }
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(
        &'a self,
        key: &'a StreamKey,
        event: StoredEvent,
        lease: Duration,
    ) -> StoreFuture<'a, ()> {
        self.append_now(key, event, lease);
        Box::pin(std::future::ready(Ok(())))
    }

    fn keep_alive<'a>(&'a self, key: &'a StreamKey, lease: Duration) -> StoreFuture<'a, ()> {
        if let Some(entry) = lock(&self.inner).map.get_mut(key)
            && entry.lease_until.is_some()
        {
            entry.lease_until = Some(Instant::now() + lease);
        }
        Box::pin(std::future::ready(Ok(())))
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
                let Some((stretch, notify)) = self.read_now(key, after) else {
                    return Ok(None);
                };
                if !stretch.events.is_empty() || tokio::time::Instant::now() >= deadline {
                    return Ok(Some(stretch));
                }
                // Registered before looking again, so that an append in between wakes it.
                let notified = notify.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                match self.read_now(key, after) {
                    Some((again, _)) if !again.events.is_empty() => return Ok(Some(again)),
                    None => return Ok(None),
                    Some(_) => {}
                }
                // Lease expiry wakes nobody: look again at the deadline at the latest.
                let _ = tokio::time::timeout_at(deadline, notified).await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, kind: EventKind, text: &str) -> StoredEvent {
        StoredEvent {
            seq,
            kind,
            text: text.into(),
        }
    }

    #[test]
    fn an_event_id_reads_back_and_anything_else_is_refused() {
        let id = EventId::parse("r0123abcd/42").unwrap();
        assert_eq!(id.stream, "r0123abcd");
        assert_eq!(id.seq, 42);
        assert_eq!(id.to_string(), "r0123abcd/42");
        assert_eq!(
            StreamKey::new("s", "r0123abcd").event_id(42),
            id.to_string()
        );
        assert_eq!(EventId::parse(" gff/1 ").unwrap().stream, "gff");
        for bad in [
            "",
            "/",
            "r/1",
            "x12/1",
            "r12",
            "r12/",
            "r12/x",
            "r12/-1",
            "R12/1",
            "r1G/1",
            "r12/1/2",
            "r12/99999999999999999999999",
        ] {
            assert_eq!(EventId::parse(bad), None, "{bad}");
        }
        let long = format!("r{}/1", "a".repeat(33));
        assert_eq!(EventId::parse(&long), None);
    }

    #[tokio::test]
    async fn a_stream_replays_after_a_cursor_and_keeps_the_newest_events() {
        let store = MemoryEventStore::new(3, 10, Duration::from_secs(60));
        let key = StreamKey::new("s", "r1");
        let lease = Duration::from_secs(5);
        store
            .append(&key, event(1, EventKind::Open, "7"), lease)
            .await
            .unwrap();
        for seq in 2..=4 {
            let e = event(seq, EventKind::Message, &seq.to_string());
            store.append(&key, e, lease).await.unwrap();
        }
        let read = store.read(&key, 2, Duration::ZERO).await.unwrap().unwrap();
        let seqs: Vec<u64> = read.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [3, 4]);
        assert!(read.writing);
        // Bounded: the open event went first.
        let all = store.read(&key, 0, Duration::ZERO).await.unwrap().unwrap();
        assert_eq!(all.events.first().unwrap().seq, 2);
        store
            .append(&key, event(5, EventKind::Answer, "{}"), lease)
            .await
            .unwrap();
        let done = store.read(&key, 4, Duration::ZERO).await.unwrap().unwrap();
        assert_eq!(done.events[0].kind, EventKind::Answer);
        assert!(!done.writing, "the answer releases the lease");
        let other = StreamKey::new("t", "r1");
        assert_eq!(store.read(&other, 0, Duration::ZERO).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_reader_waits_for_the_next_event_and_sees_a_lapsed_lease() {
        let store = Arc::new(MemoryEventStore::default());
        let key = StreamKey::new("s", "r2");
        let lease = Duration::from_millis(200);
        store
            .append(&key, event(1, EventKind::Open, "1"), lease)
            .await
            .unwrap();
        let writer = {
            let (store, key) = (store.clone(), key.clone());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let e = event(2, EventKind::Message, "{}");
                store.append(&key, e, lease).await.unwrap();
            })
        };
        let read = store.read(&key, 1, Duration::from_secs(10)).await.unwrap();
        assert_eq!(read.unwrap().events[0].seq, 2);
        writer.await.unwrap();
        // Nobody refreshes the lease: it lapses.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let read = store
            .read(&key, 2, Duration::from_millis(10))
            .await
            .unwrap();
        assert_eq!(read.unwrap(), Stretch::default());
    }

    #[tokio::test]
    async fn streams_are_capped_and_expire() {
        let store = MemoryEventStore::new(8, 2, Duration::from_millis(100));
        let lease = Duration::from_secs(1);
        for n in 0..3 {
            let key = StreamKey::new("s", format!("r{n}"));
            store
                .append(&key, event(1, EventKind::Open, ""), lease)
                .await
                .unwrap();
        }
        assert_eq!(store.len(), 2, "the oldest went");
        let first = StreamKey::new("s", "r0");
        assert_eq!(store.read(&first, 0, Duration::ZERO).await.unwrap(), None);
        tokio::time::sleep(Duration::from_millis(150)).await;
        let last = StreamKey::new("s", "r2");
        assert_eq!(store.read(&last, 0, Duration::ZERO).await.unwrap(), None);
    }
}
