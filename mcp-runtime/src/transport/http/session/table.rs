//! The sessions this replica holds live, by id and by last use: opening, finding and ending one
//! cost O(log N) under the table's lock, never a scan of every session.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Session;
use crate::transport::http::store::SessionStore;

/// How many of the sessions idle the longest a new session over the cap looks at before giving
/// up (`503`) when they are all busy: each one busy is moved to the back, so the next look finds
/// others, and opening a session stays cheap however many are busy.
const EVICTION_TRIES: usize = 16;

/// The sessions by id, and their ids by last use.
pub(super) struct Table {
    by_id: HashMap<Arc<str>, Entry>,
    /// The sequence number of each session's last use, oldest first. The ids are the keys of
    /// `by_id`, shared: one allocation per session id, none per request.
    by_use: BTreeMap<u64, Arc<str>>,
    next_use: u64,
    /// Told of each session this table stops holding ([`SessionStore::released`]).
    store: Arc<dyn SessionStore>,
}

struct Entry {
    session: Arc<Session>,
    last_seen: Instant,
    use_seq: u64,
}

impl Table {
    pub(super) fn new(store: Arc<dyn SessionStore>) -> Self {
        Table {
            by_id: HashMap::new(),
            by_use: BTreeMap::new(),
            next_use: 0,
            store,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.by_id.len()
    }

    pub(super) fn insert(&mut self, id: String, session: Arc<Session>) {
        let id: Arc<str> = id.into();
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
    pub(super) fn touch(&mut self, id: &str) -> Option<Arc<Session>> {
        let use_seq = self.next_use();
        let entry = self.by_id.get_mut(id)?;
        let key = self
            .by_use
            .remove(&entry.use_seq)
            .unwrap_or_else(|| id.into());
        entry.use_seq = use_seq;
        entry.last_seen = Instant::now();
        self.by_use.insert(use_seq, key);
        Some(entry.session.clone())
    }

    /// The session named `id`, its use not recorded.
    /// The sessions whose `GET` stream this replica holds.
    pub(super) fn streaming(&self) -> Vec<(String, Arc<Session>)> {
        self.by_id
            .iter()
            .filter(|(_, e)| {
                e.session
                    .streaming
                    .load(std::sync::atomic::Ordering::SeqCst)
            })
            .map(|(id, e)| (id.to_string(), e.session.clone()))
            .collect()
    }

    pub(super) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.by_id.get(id).map(|e| e.session.clone())
    }

    pub(super) fn remove(&mut self, id: &str) -> Option<Arc<Session>> {
        let entry = self.by_id.remove(id)?;
        self.by_use.remove(&entry.use_seq);
        Some(entry.session)
    }

    /// Removes `id` if it is still `session` (not one a later request put in its place).
    pub(super) fn remove_this(&mut self, id: &str, session: &Arc<Session>) {
        if self
            .by_id
            .get(id)
            .is_some_and(|e| Arc::ptr_eq(&e.session, session))
        {
            self.remove(id);
        }
    }

    /// The session used the longest ago: its id, when it was last seen, and whether it is busy.
    fn oldest(&self) -> Option<(String, Instant, bool)> {
        let (_, id) = self.by_use.first_key_value()?;
        let entry = &self.by_id[id];
        Some((id.to_string(), entry.last_seen, entry.session.busy()))
    }

    /// Ends the session `id` as if its client had sent `DELETE`.
    fn end(&mut self, id: &str, why: &str) {
        if let Some(session) = self.remove(id) {
            tracing::info!(session = %id, "{why}");
            session.conn.close();
            self.store.released(id);
        }
    }

    /// Ends every session idle for longer than `limit`, oldest first, stopping at the first one
    /// used within it. A busy one met on the way is moved to the back as if used now, so each
    /// session costs a sweep at most one step per `limit`; their ids are returned, for the store
    /// to keep them alive too.
    pub(super) fn sweep(&mut self, limit: Duration) -> Vec<String> {
        let mut busy_ones = Vec::new();
        while let Some((id, last_seen, busy)) = self.oldest() {
            if last_seen.elapsed() <= limit {
                break;
            }
            if busy {
                self.touch(&id);
                busy_ones.push(id);
            } else {
                self.end(&id, "session expired after going idle");
            }
        }
        busy_ones
    }

    /// Makes room for one more session under `cap` by ending the session idle the longest;
    /// false when the [`EVICTION_TRIES`] oldest are all busy.
    pub(super) fn make_room(&mut self, cap: usize) -> bool {
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::context::connection::{Connection, lock};
    use crate::transport::http::store::MemorySessionStore;
    use crate::transport::http::store::tests::record;

    fn table() -> Table {
        Table::new(Arc::new(MemorySessionStore::default()))
    }

    /// A session last seen `idle_for` ago, with its stream open or not.
    pub(in super::super) fn add(
        table: &mut Table,
        id: &str,
        idle_for: Duration,
        stream_open: bool,
    ) -> Arc<Session> {
        let (conn, outgoing) = Connection::new();
        let session = Session::new(conn, outgoing, Arc::new(record()));
        if stream_open {
            lock(&session.outgoing).take();
        }
        table.insert(id.to_owned(), session.clone());
        table.by_id.get_mut(id).unwrap().last_seen = Instant::now() - idle_for;
        session
    }

    fn ids(table: &Table) -> Vec<&str> {
        let mut ids: Vec<&str> = table.by_id.keys().map(|k| &**k).collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn sweeping_ends_idle_sessions_without_a_stream() {
        let mut table = table();
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
        let mut table = table();
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
}
