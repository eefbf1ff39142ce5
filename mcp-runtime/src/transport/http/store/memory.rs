//! [`MemorySessionStore`]: the records of this process's sessions, in a map. The session table
//! of the router that uses it bounds it and ends idle sessions (sparing those with a stream open
//! or a call in flight, as it always has): its idle sweep and its cap end sessions through
//! [`SessionStore::released`], which removes their records here, so the store keeps no clock of
//! its own. One store serves one router: replicas need a shared store (`RedisSessionStore`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{SessionRecord, SessionStore, StoreFuture};
use crate::context::connection::lock;

/// The default [`SessionStore`]: records in this process, O(1) per operation.
#[derive(Default)]
pub struct MemorySessionStore {
    records: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    record: Arc<SessionRecord>,
    last_used: Instant,
}

impl MemorySessionStore {
    /// How many sessions it holds.
    pub fn len(&self) -> usize {
        lock(&self.records).len()
    }

    /// True when it holds no session.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// When the session `id` was last used, if it is held.
    pub fn last_used(&self, id: &str) -> Option<Instant> {
        lock(&self.records).get(id).map(|e| e.last_used)
    }
}

impl SessionStore for MemorySessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: Arc<SessionRecord>,
        _ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        let entry = Entry {
            record,
            last_used: Instant::now(),
        };
        lock(&self.records).insert(id.to_owned(), entry);
        Box::pin(std::future::ready(Ok(())))
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        _ttl: Duration,
    ) -> StoreFuture<'a, Option<Arc<SessionRecord>>> {
        let found = lock(&self.records).get_mut(id).map(|entry| {
            entry.last_used = Instant::now();
            entry.record.clone()
        });
        Box::pin(std::future::ready(Ok(found)))
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        record: Arc<SessionRecord>,
        _ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        let saved = match lock(&self.records).get_mut(id) {
            Some(entry) => {
                entry.record = record;
                entry.last_used = Instant::now();
                true
            }
            None => false,
        };
        Box::pin(std::future::ready(Ok(saved)))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        lock(&self.records).remove(id);
        Box::pin(std::future::ready(Ok(())))
    }

    fn released(&self, id: &str) {
        lock(&self.records).remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn a_record_lives_until_removed_or_released() {
        let store = MemorySessionStore::default();
        let record = Arc::new(record());
        store.create("a", record.clone(), HOUR).await.unwrap();
        store.create("b", record.clone(), HOUR).await.unwrap();
        let created = store.last_used("a").unwrap();
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(store.touch("a", HOUR).await.unwrap(), Some(record.clone()));
        assert!(store.last_used("a").unwrap() > created, "a use is recorded");
        store.remove("a").await.unwrap();
        store.released("b");
        assert_eq!(store.touch("a", HOUR).await.unwrap(), None);
        assert_eq!(store.touch("b", HOUR).await.unwrap(), None);
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn saving_replaces_a_live_record_and_never_revives_an_ended_one() {
        let store = MemorySessionStore::default();
        let first = Arc::new(record());
        store.create("a", first.clone(), HOUR).await.unwrap();
        let before = store.last_used("a").unwrap();
        let changed = Arc::new(SessionRecord {
            log_level: None,
            ..record()
        });
        assert!(store.save("a", changed.clone(), HOUR).await.unwrap());
        assert!(store.last_used("a").unwrap() >= before);
        assert_eq!(store.touch("a", HOUR).await.unwrap(), Some(changed.clone()));
        store.remove("a").await.unwrap();
        assert!(!store.save("a", changed, HOUR).await.unwrap());
        assert_eq!(store.len(), 0);
    }
}
