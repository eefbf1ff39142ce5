//! Long-running tool calls: a tool marked `#[tool(task)]` can be called as a task, which the
//! client then polls (`tasks/get`), answers (`tasks/update`, or requests over the connection),
//! cancels (`tasks/cancel`), and, in the 2025-11-25 era, lists (`tasks/list`) and waits on
//! (`tasks/result`).
//!
//! A task's state is a [`TaskRecord`]: plain data, serializable, kept behind the [`TaskStore`]
//! trait ([`MemoryTaskStore`] by default). What cannot be serialized (the running future, the
//! questions waiting for an answer) stays with the process that runs the task.
//!
//! With a store shared by several replicas (`RedisTaskStore`, feature `redis`), a task runs on
//! the replica that started it and is seen from all of them: `tasks/get` and `tasks/list` read
//! the store, `tasks/result` on another replica polls it every poll interval until the record
//! ends, and `tasks/cancel` on another replica marks the record cancelled in the store. The
//! replica running the task re-reads its record every poll interval while the body runs
//! ([`TaskStore::is_shared`]) and stops the body once it finds it cancelled; the store never
//! replaces an ended record, so the body's own end cannot undo the cancellation. (Re-reading the
//! store rather than sending a message between replicas: the store is already the one place
//! every replica agrees on, a record read cannot be lost the way a pub/sub message published
//! while a listener reconnects is, and it works with any shared store, not only Redis. The cost
//! is one read per running task per poll interval, and a cancellation that takes effect within
//! one poll interval.) A handshake-era task asks its questions over the session, whose answers
//! the HTTP transport relays to the replica that asked. A stateless task's questions are answered
//! by `tasks/update`: on the replica running the task, the answers go straight to the body; on
//! another, they are kept in the store ([`TaskStore::put_answers`]) and the replica running the
//! task takes them at its next poll interval ([`TaskStore::take_answers`]) and delivers them
//! as a local `tasks/update` would (answers to a question the task does not wait on are
//! dropped). That is one more store command per running task per poll interval, again only
//! with a shared store, and an answer that reaches the body within one poll interval.
//!
//! | file | what it holds |
//! |---|---|
//! | this file | [`TaskRecord`], [`TaskStatus`], [`TaskStore`], [`TaskOptions`] and their defaults |
//! | `memory.rs` | [`MemoryTaskStore`]: the default store, with expiry and limits |
//! | `redis.rs` | `RedisTaskStore` (feature `redis`): records shared by replicas through Redis |
//! | `run.rs` | the tasks of one server: the running ones, their input flow, their ends |
//! | `wire.rs` | a record as each era writes it |

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod memory;
#[cfg(feature = "redis")]
mod redis;
pub(crate) mod run;
pub(crate) mod wire;

pub use memory::MemoryTaskStore;
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;

/// The default `ttl` of a task whose client asked for none: 1 hour.
#[doc(hidden)]
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);
/// The default cap on a requested `ttl`: 24 hours.
#[doc(hidden)]
pub const DEFAULT_MAX_TASK_TTL: Duration = Duration::from_secs(24 * 3600);
/// The default poll interval suggested to clients: 500 ms.
#[doc(hidden)]
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_millis(500);
/// The default limit on live tasks across the server: 1,024.
#[doc(hidden)]
pub const DEFAULT_MAX_TASKS: usize = 1024;
/// The default limit on live tasks of one session (handshake era): 64.
#[doc(hidden)]
pub const DEFAULT_MAX_TASKS_PER_SESSION: usize = 64;

/// The limits and timings of tasks, set on the server's builder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskOptions {
    /// The `ttl` of a task whose client asked for none (capped by `max_ttl` too).
    pub default_ttl: Duration,
    /// The longest `ttl` granted; a longer request is capped to it.
    pub max_ttl: Duration,
    /// The poll interval suggested to clients (`pollInterval` / `pollIntervalMs`).
    pub poll_interval: Duration,
    /// How many unexpired tasks the server keeps at once.
    pub max_tasks: usize,
    /// How many unexpired tasks one session keeps at once (stateless requests count against
    /// [`TaskOptions::max_tasks`] only).
    pub max_tasks_per_session: usize,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            default_ttl: DEFAULT_TASK_TTL,
            max_ttl: DEFAULT_MAX_TASK_TTL,
            poll_interval: DEFAULT_TASK_POLL_INTERVAL,
            max_tasks: DEFAULT_MAX_TASKS,
            max_tasks_per_session: DEFAULT_MAX_TASKS_PER_SESSION,
        }
    }
}

impl TaskOptions {
    /// The problems of these options, for [`crate::ServerBuilder::build`].
    pub(crate) fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.default_ttl.is_zero() || self.max_ttl.is_zero() {
            out.push("task_ttl and max_task_ttl must be above zero".into());
        }
        if self.poll_interval.is_zero() {
            out.push("task_poll_interval must be above zero".into());
        }
        if self.max_tasks == 0 || self.max_tasks_per_session == 0 {
            out.push("max_tasks and max_tasks_per_session must be at least 1".into());
        }
        out
    }

    /// The `ttl` granted for a request of `requested` milliseconds.
    pub(crate) fn ttl_ms(&self, requested: Option<u64>) -> u64 {
        let max = self.max_ttl.as_millis() as u64;
        requested
            .filter(|&ms| ms > 0)
            .unwrap_or(self.default_ttl.as_millis() as u64)
            .min(max)
    }
}

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client's answer to a question.
    InputRequired,
    /// Ended with a tool result (an `isError` one included).
    Completed,
    /// Ended with a protocol error.
    Failed,
    /// Cancelled by the client.
    Cancelled,
}

impl TaskStatus {
    /// The status as published.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// True for the statuses a task never leaves.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// Everything known about one task, as plain data a store can keep anywhere. Timestamps and
/// durations are milliseconds (since the Unix epoch for `created_at_ms` and
/// `last_updated_at_ms`); `ttl_ms` counts from the creation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The id the client names it by: 128 random bits, so that knowing it is the right to it.
    pub task_id: String,
    /// The session that created it (handshake era); `None` for a stateless request.
    #[serde(default)]
    pub owner: Option<String>,
    /// Where it is.
    pub status: TaskStatus,
    /// What the tool last said about its progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Created at.
    pub created_at_ms: u64,
    /// Last changed at.
    pub last_updated_at_ms: u64,
    /// Kept this long after its creation.
    pub ttl_ms: u64,
    /// The poll interval suggested to the client.
    pub poll_interval_ms: u64,
    /// `completed`: the `tools/call` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `failed`: the JSON-RPC error object (`code`, `message`, `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// `input_required`: the questions waiting for an answer, by key.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_requests: Map<String, Value>,
}

impl TaskRecord {
    /// True once `now_ms` is past its creation plus its `ttl`.
    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.created_at_ms.saturating_add(self.ttl_ms)
    }
}

/// Why a store refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// A limit of [`TaskLimits`] is reached; the text says which.
    #[error("too many tasks: {0}")]
    Full(String),
    /// The store itself failed (a lost connection to a shared store).
    #[error("task store failed: {0}")]
    Backend(String),
}

/// The limits [`TaskStore::create`] enforces atomically with the insertion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// Unexpired tasks in the whole store.
    pub total: usize,
    /// Unexpired tasks with the new record's owner (when it has one).
    pub per_owner: usize,
}

/// One page of [`TaskStore::list`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskPage {
    /// The tasks, oldest first.
    pub tasks: Vec<TaskRecord>,
    /// The cursor of the next page, if there is one.
    pub next_cursor: Option<String>,
}

/// Where task records live. Every method is async and the trait is object-safe, so a store
/// shared between server processes (Redis) can implement it; records are serializable with
/// serde. A store never returns an expired record ([`TaskRecord::expired`] at [`now_ms`]) and
/// may drop it at any time.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record, unless that would break `limits`.
    fn create(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// Replaces the record with the same id (the task changed). A record that has ended
    /// ([`TaskStatus::is_terminal`]) stays as it is: the first end stored is the task's end,
    /// whichever replica stored it.
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The record of `task_id`, if it exists and has not expired.
    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// The unexpired records of `owner`, oldest first, `limit` at most, after `cursor` (from a
    /// previous page).
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>>;

    /// True when other processes change these records too (a store shared by replicas): a
    /// running task then re-reads its record every poll interval, to stop once another replica
    /// cancelled it, and takes the answers another replica kept for it
    /// ([`TaskStore::take_answers`]). False by default.
    fn is_shared(&self) -> bool {
        false
    }

    /// Keeps `answers` (the `inputResponses` of a stateless `tasks/update`, by key) for the task
    /// `task_id`, which another process runs: that process takes them
    /// ([`TaskStore::take_answers`]) at its next poll interval. They last no longer than the
    /// task's record. Called only when [`TaskStore::is_shared`]; a shared store that cannot
    /// keep answers fails (the default), so that a `tasks/update` is refused rather than lost.
    fn put_answers<'a>(
        &'a self,
        task_id: &'a str,
        answers: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let _ = (task_id, answers);
        Box::pin(async {
            Err(TaskStoreError::Backend(
                "this task store cannot hand answers to another replica".into(),
            ))
        })
    }

    /// Takes (reads and removes, at once) the answers waiting for `task_id`
    /// ([`TaskStore::put_answers`]); none by default.
    fn take_answers<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Map<String, Value>, TaskStoreError>> {
        let _ = task_id;
        Box::pin(async { Ok(Map::new()) })
    }
}

/// Now, in milliseconds since the Unix epoch: the clock records and expiry use.
#[doc(hidden)]
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_ttls_are_capped_and_defaulted() {
        let options = TaskOptions {
            default_ttl: Duration::from_secs(60),
            max_ttl: Duration::from_secs(120),
            ..TaskOptions::default()
        };
        assert_eq!(options.ttl_ms(None), 60_000);
        assert_eq!(options.ttl_ms(Some(0)), 60_000);
        assert_eq!(options.ttl_ms(Some(5_000)), 5_000);
        assert_eq!(options.ttl_ms(Some(10_000_000)), 120_000);
        let bad = TaskOptions {
            max_ttl: Duration::ZERO,
            ..options
        };
        assert_eq!(bad.problems().len(), 1);
    }
}
