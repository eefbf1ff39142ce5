//! The default task store: a map in this process, swept of expired records on each use.

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::{TaskLimits, TaskPage, TaskRecord, TaskStore, TaskStoreError, now_ms};

/// Task records in memory. Records vanish with the process; use a shared store when several
/// processes serve one client.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    records: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The map with its expired records dropped.
    fn swept(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let now = now_ms();
        records.retain(|_, r| !r.expired(now));
        records
    }
}

/// `created_at_ms` and the id, zero-padded so that cursors compare in creation order.
fn position(record: &TaskRecord) -> String {
    format!("{:020}:{}", record.created_at_ms, record.task_id)
}

impl TaskStore for MemoryTaskStore {
    fn create(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let mut records = self.swept();
        let result = if records.len() >= limits.total {
            Err(TaskStoreError::Full(format!(
                "the server keeps {} tasks at most",
                limits.total
            )))
        } else if record.owner.is_some()
            && records.values().filter(|r| r.owner == record.owner).count() >= limits.per_owner
        {
            Err(TaskStoreError::Full(format!(
                "a session keeps {} tasks at most",
                limits.per_owner
            )))
        } else {
            records.insert(record.task_id.clone(), record);
            Ok(())
        };
        futures_util::future::ready(result).boxed()
    }

    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let mut records = self.swept();
        if !records
            .get(&record.task_id)
            .is_some_and(|r| r.status.is_terminal())
        {
            records.insert(record.task_id.clone(), record);
        }
        drop(records);
        futures_util::future::ready(Ok(())).boxed()
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let found = self.swept().get(task_id).cloned();
        futures_util::future::ready(Ok(found)).boxed()
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        let mut mine: Vec<(String, TaskRecord)> = self
            .swept()
            .values()
            .filter(|r| r.owner.as_deref() == owner)
            .map(|r| (position(r), r.clone()))
            .filter(|(p, _)| cursor.is_none_or(|c| p.as_str() > c))
            .collect();
        mine.sort_by(|a, b| a.0.cmp(&b.0));
        let next_cursor = (mine.len() > limit).then(|| mine[limit - 1].0.clone());
        mine.truncate(limit);
        let tasks = mine.into_iter().map(|(_, r)| r).collect();
        futures_util::future::ready(Ok(TaskPage { tasks, next_cursor })).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::TaskStatus;

    fn record(id: &str, owner: Option<&str>, created: u64, ttl: u64) -> TaskRecord {
        TaskRecord {
            task_id: id.into(),
            owner: owner.map(Into::into),
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: created,
            last_updated_at_ms: created,
            ttl_ms: ttl,
            poll_interval_ms: 100,
            result: None,
            error: None,
            input_requests: Default::default(),
        }
    }

    #[tokio::test]
    async fn limits_expiry_and_pages() {
        let store = MemoryTaskStore::new();
        let now = now_ms();
        let limits = TaskLimits {
            total: 3,
            per_owner: 2,
        };
        store
            .create(record("a", Some("s"), now, 60_000), limits)
            .await
            .unwrap();
        store
            .create(record("b", Some("s"), now + 1, 60_000), limits)
            .await
            .unwrap();
        assert!(matches!(
            store
                .create(record("c", Some("s"), now + 2, 60_000), limits)
                .await,
            Err(TaskStoreError::Full(_))
        ));
        store
            .create(record("d", None, now + 3, 60_000), limits)
            .await
            .unwrap();
        assert!(matches!(
            store
                .create(record("e", None, now + 4, 60_000), limits)
                .await,
            Err(TaskStoreError::Full(_))
        ));
        // An expired record is gone, and frees its place.
        store
            .put(record("old", None, now - 10_000, 1))
            .await
            .unwrap();
        assert_eq!(store.get("old").await.unwrap(), None);
        let first = store.list(Some("s"), None, 1).await.unwrap();
        assert_eq!(first.tasks[0].task_id, "a");
        let cursor = first.next_cursor.expect("a second page");
        let second = store.list(Some("s"), Some(&cursor), 1).await.unwrap();
        assert_eq!(second.tasks[0].task_id, "b");
        assert_eq!(second.next_cursor, None);
        // Records round-trip through JSON, as a shared store keeps them.
        let r = store.get("d").await.unwrap().unwrap();
        let back: TaskRecord = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        // An ended record stays ended.
        let ended = TaskRecord {
            status: TaskStatus::Cancelled,
            ..r.clone()
        };
        store.put(ended.clone()).await.unwrap();
        store.put(r).await.unwrap();
        assert_eq!(store.get("d").await.unwrap(), Some(ended));
    }
}
