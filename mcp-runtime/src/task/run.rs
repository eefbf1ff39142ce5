//! The tasks of one server: each running task's record in memory (written through to the
//! store on every change), its cancellation, the questions it waits on, and its end. With a
//! shared store, the replica running a task follows the store while the body runs
//! ([`Tasks::follow_store`]): a cancellation and the answers that other replicas stored.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio::sync::{oneshot, watch};

use super::wire::{RELATED_TASK_KEY, task_2025};
use super::{TaskLimits, TaskOptions, TaskRecord, TaskStatus, TaskStore, TaskStoreError, now_ms};
use crate::context::ClientRequestError;
use crate::context::connection::{CancelToken, Connection, PeerRequestError, lock};
use crate::context::task::TaskInput;
use crate::error::ProtocolError;
use crate::protocol::notification_message;
use crate::tool::output::ToolOutput;

/// The metrics' view of the tasks (feature `metrics`): their counts by status.
#[cfg(feature = "metrics")]
mod metrics;

/// The tasks of one server.
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) options: TaskOptions,
    running: Mutex<HashMap<String, Arc<LiveTask>>>,
    /// Two secret SipHash keys: ids are a keyed hash of a counter, so no one can guess them.
    keys: (std::hash::RandomState, std::hash::RandomState),
    counter: AtomicU64,
    /// The tasks that ended, by final status (the metrics' `mcp.server.finished_tasks`).
    #[cfg(feature = "metrics")]
    ends: crate::metrics::TaskEnds,
}

/// One task run by this process.
pub(crate) struct LiveTask {
    record: Mutex<TaskRecord>,
    /// Orders the writes to the store, so that the last change is the one stored.
    write: tokio::sync::Mutex<()>,
    stored: AtomicBool,
    store: Arc<dyn TaskStore>,
    pub(crate) cancel: CancelToken,
    /// Stateless era: the questions waiting for `tasks/update`, by key.
    waiters: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    seq: AtomicU64,
    /// Handshake era: the session's connection (questions, `notifications/tasks/status`).
    conn: Option<Connection>,
    client_request_timeout: Duration,
    changed: watch::Sender<u64>,
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, options: TaskOptions) -> Self {
        Tasks {
            store,
            options,
            running: Mutex::new(HashMap::new()),
            keys: Default::default(),
            counter: AtomicU64::new(0),
            #[cfg(feature = "metrics")]
            ends: Default::default(),
        }
    }

    /// A fresh unguessable id (32 hex digits).
    pub(crate) fn next_id(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let (a, b) = (self.keys.0.hash_one(n), self.keys.1.hash_one(n));
        format!("{a:016x}{b:016x}")
    }

    /// A task about to run, not stored yet: `tasks/get` finds it once [`Tasks::start`] ran.
    pub(crate) fn prepare(
        &self,
        owner: Option<String>,
        ttl_ms: Option<u64>,
        conn: Option<Connection>,
        client_request_timeout: Duration,
    ) -> Arc<LiveTask> {
        let now = now_ms();
        let record = TaskRecord {
            task_id: self.next_id(),
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            last_updated_at_ms: now,
            ttl_ms: self.options.ttl_ms(ttl_ms),
            poll_interval_ms: self.options.poll_interval.as_millis() as u64,
            result: None,
            error: None,
            input_requests: Map::new(),
        };
        Arc::new(LiveTask {
            record: Mutex::new(record),
            write: tokio::sync::Mutex::new(()),
            stored: AtomicBool::new(false),
            store: self.store.clone(),
            cancel: CancelToken::new(),
            waiters: Mutex::new(HashMap::new()),
            seq: AtomicU64::new(0),
            conn,
            client_request_timeout,
            changed: watch::Sender::new(0),
        })
    }

    /// Stores the task (within the limits) and returns its record as stored.
    pub(crate) async fn start(&self, live: &Arc<LiveTask>) -> Result<TaskRecord, ProtocolError> {
        let _write = live.write.lock().await;
        let record = lock(&live.record).clone();
        let limits = TaskLimits {
            total: self.options.max_tasks,
            per_owner: self.options.max_tasks_per_session,
        };
        self.store
            .create(record.clone(), limits)
            .await
            .map_err(store_error)?;
        live.stored.store(true, Ordering::Release);
        lock(&self.running).insert(record.task_id.clone(), live.clone());
        Ok(record)
    }

    /// Runs `call` to its end (or its cancellation, or its expiry) on a task of its own.
    pub(crate) fn spawn(
        self: &Arc<Self>,
        live: Arc<LiveTask>,
        call: BoxFuture<'static, Result<ToolOutput, ProtocolError>>,
    ) {
        let tasks = self.clone();
        let ttl = Duration::from_millis(lock(&live.record).ttl_ms);
        tokio::spawn(async move {
            let outcome = tokio::select! {
                biased;
                _ = live.cancel.cancelled() => None,
                _ = tokio::time::sleep(ttl) => None,
                _ = tasks.follow_store(&live) => None,
                r = call => Some(r),
            };
            live.change(|r| {
                if r.status.is_terminal() {
                    return false;
                }
                r.input_requests.clear();
                match outcome {
                    Some(Ok(output)) => {
                        r.status = TaskStatus::Completed;
                        r.result = Some(output.into_call_result().into_json());
                    }
                    Some(Err(e)) => {
                        r.status = TaskStatus::Failed;
                        r.error = Some(error_json(&e));
                    }
                    None => r.status = TaskStatus::Cancelled,
                }
                true
            })
            .await;
            let id = lock(&live.record).task_id.clone();
            lock(&tasks.running).remove(&id);
            #[cfg(feature = "metrics")]
            tasks.ended(lock(&live.record).status);
            if tasks.store.is_shared() {
                // Answers stored for it after the last poll: gone now rather than at its expiry.
                if let Err(e) = tasks.store.take_answers(&id).await {
                    tracing::warn!(task = %id, error = %e, "answers to an ended task not dropped");
                }
            }
        });
    }

    /// The tasks this process runs.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn running(&self) -> usize {
        lock(&self.running).len()
    }

    /// Ends every task this process still runs as `failed` with `error` (stored before the body
    /// is stopped), for a drain whose deadline passed: a task is never left `working` in a
    /// shared store until its TTL by a replica that is gone.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) async fn fail_running(&self, error: &ProtocolError) {
        let running: Vec<Arc<LiveTask>> = lock(&self.running).values().cloned().collect();
        for live in running {
            live.change(|r| {
                if r.status.is_terminal() {
                    return false;
                }
                r.status = TaskStatus::Failed;
                r.status_message = Some(error.message.clone());
                r.error = Some(error_json(error));
                r.input_requests.clear();
                true
            })
            .await;
            live.cancel.cancel();
        }
    }

    /// The record of `task_id`, when it exists, has not expired, and belongs to `owner`.
    pub(crate) async fn get(
        &self,
        task_id: &str,
        owner: Option<&str>,
    ) -> Result<TaskRecord, ProtocolError> {
        match self.store.get(task_id).await.map_err(store_error)? {
            Some(r) if r.owner.as_deref() == owner => Ok(r),
            _ => Err(ProtocolError::invalid_params(format!(
                "Invalid params: no task `{task_id}`"
            ))),
        }
    }

    /// Cancels a task that has not ended, and returns its record; a task that has ended is
    /// returned as it is.
    pub(crate) async fn cancel(
        &self,
        task_id: &str,
        owner: Option<&str>,
    ) -> Result<TaskRecord, ProtocolError> {
        let mut record = self.get(task_id, owner).await?;
        if record.status.is_terminal() {
            return Ok(record);
        }
        let running = lock(&self.running).get(task_id).cloned();
        match running {
            Some(live) => {
                live.change(|r| {
                    if r.status.is_terminal() {
                        return false;
                    }
                    r.status = TaskStatus::Cancelled;
                    r.input_requests.clear();
                    true
                })
                .await;
                live.cancel.cancel();
                record = lock(&live.record).clone();
            }
            None => {
                // Run by another replica (or by a process that is gone): the record says it is
                // over, and the replica running it stops the body when it next reads the record
                // (see `follow_store`). The store keeps whichever end came first.
                record.status = TaskStatus::Cancelled;
                record.input_requests.clear();
                record.last_updated_at_ms = now_ms();
                self.store.put(record).await.map_err(store_error)?;
                record = self.get(task_id, owner).await?;
            }
        }
        Ok(record)
    }

    /// What other replicas did to `live` through a shared store, read every poll interval while
    /// the body runs: delivers the answers they stored for it ([`TaskStore::take_answers`]),
    /// and resolves once the record says it was cancelled. Never resolves with a store only
    /// this process uses, where `tasks/update` and `tasks/cancel` reach the task directly. A
    /// failed command is logged and tried again at the next interval.
    async fn follow_store(&self, live: &LiveTask) {
        if !self.store.is_shared() {
            return std::future::pending().await;
        }
        let id = lock(&live.record).task_id.clone();
        loop {
            tokio::time::sleep(self.options.poll_interval).await;
            match self.store.get(&id).await {
                Ok(Some(r)) if r.status == TaskStatus::Cancelled => return,
                Ok(_) => {}
                Err(e) => tracing::warn!(task = %id, error = %e, "task record not read"),
            }
            match self.store.take_answers(&id).await {
                Ok(answers) if !answers.is_empty() => live.deliver(&answers).await,
                Ok(_) => {}
                Err(e) => tracing::warn!(task = %id, error = %e, "task answers not read"),
            }
        }
    }

    /// `tasks/update`: delivers the answers among `responses` whose key the task waits on;
    /// other keys are ignored. A task that another replica runs (a shared store) gets them
    /// through the store, at that replica's next poll interval.
    pub(crate) async fn update(
        &self,
        task_id: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), ProtocolError> {
        let record = self.get(task_id, None).await?;
        let running = lock(&self.running).get(task_id).cloned();
        if let Some(live) = running {
            live.deliver(responses).await;
        } else if self.store.is_shared() && !record.status.is_terminal() {
            // Only the questions the record shows open: the replica running the task would
            // drop the others anyway.
            let open: Map<String, Value> = responses
                .iter()
                .filter(|(k, _)| record.input_requests.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !open.is_empty() {
                let stored = self.store.put_answers(task_id, &open).await;
                stored.map_err(store_error)?;
            }
        }
        Ok(())
    }

    /// Waits until the task ends, and returns its last record (`tasks/result`).
    pub(crate) async fn finished(
        &self,
        task_id: &str,
        owner: Option<&str>,
    ) -> Result<TaskRecord, ProtocolError> {
        loop {
            let mut changed = lock(&self.running)
                .get(task_id)
                .map(|l| l.changed.subscribe());
            let record = self.get(task_id, owner).await?;
            if record.status.is_terminal() {
                return Ok(record);
            }
            match &mut changed {
                Some(rx) => {
                    let _ = rx.changed().await;
                }
                None => tokio::time::sleep(self.options.poll_interval).await,
            }
        }
    }
}

impl LiveTask {
    /// Hands the answers among `responses` to the questions of this task waiting on their key
    /// (a `tasks/update` made here, or one stored by another replica); other keys are ignored.
    async fn deliver(&self, responses: &Map<String, Value>) {
        let answered: Vec<(String, oneshot::Sender<Value>)> = {
            let mut waiters = lock(&self.waiters);
            responses
                .keys()
                .filter_map(|k| waiters.remove(k).map(|tx| (k.clone(), tx)))
                .collect()
        };
        if answered.is_empty() {
            return;
        }
        // The record drops the answered questions before the tool goes on, so that a
        // `tasks/get` right after this ack shows only those still open.
        self.change(|r| {
            for (key, _) in &answered {
                r.input_requests.remove(key);
            }
            if r.input_requests.is_empty() && r.status == TaskStatus::InputRequired {
                r.status = TaskStatus::Working;
            }
            true
        })
        .await;
        for (key, tx) in answered {
            let _ = tx.send(responses[&key].clone());
        }
    }

    /// Applies `f` to the record; when it changed something, stores the record and tells the
    /// waiters (and the session, in the handshake era).
    async fn change(&self, f: impl FnOnce(&mut TaskRecord) -> bool) {
        let _write = self.write.lock().await;
        let snapshot = {
            let mut record = lock(&self.record);
            if !f(&mut record) {
                return;
            }
            record.last_updated_at_ms = now_ms();
            record.clone()
        };
        if !self.stored.load(Ordering::Acquire) {
            return;
        }
        if let Err(e) = self.store.put(snapshot.clone()).await {
            tracing::warn!(task = %snapshot.task_id, error = %e, "task not stored");
        }
        self.changed.send_modify(|n| *n += 1);
        if let Some(conn) = &self.conn {
            conn.send(notification_message(
                "notifications/tasks/status",
                task_2025(&snapshot),
            ));
        }
    }

    /// The handshake era's question: a request over the session, the task `input_required`
    /// until it is answered.
    async fn ask_session(
        &self,
        conn: &Connection,
        request: Value,
    ) -> Result<Value, ClientRequestError> {
        let method = request["method"].as_str().unwrap_or_default().to_owned();
        let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        let task_id = lock(&self.record).task_id.clone();
        params["_meta"] = json!({ RELATED_TASK_KEY: {"taskId": task_id} });
        self.set_status(TaskStatus::Working, TaskStatus::InputRequired)
            .await;
        let asked = conn.request(&method, params);
        let answer = match tokio::time::timeout(self.client_request_timeout, asked).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(PeerRequestError::Error(e))) => Err(ClientRequestError::Client(e)),
            Ok(Err(PeerRequestError::Closed)) => Err(ClientRequestError::Disconnected),
            Err(_) => Err(ClientRequestError::TimedOut(self.client_request_timeout)),
        };
        self.set_status(TaskStatus::InputRequired, TaskStatus::Working)
            .await;
        answer
    }

    async fn set_status(&self, from: TaskStatus, to: TaskStatus) {
        self.change(|r| {
            let applies = r.status == from;
            if applies {
                r.status = to;
            }
            applies
        })
        .await;
    }
}

impl TaskInput for LiveTask {
    fn ask(
        self: Arc<Self>,
        request: Value,
    ) -> BoxFuture<'static, Result<Value, ClientRequestError>> {
        async move {
            if let Some(conn) = self.conn.clone() {
                return self.ask_session(&conn, request).await;
            }
            let key = format!("input-{}", self.seq.fetch_add(1, Ordering::Relaxed));
            let (tx, rx) = oneshot::channel();
            lock(&self.waiters).insert(key.clone(), tx);
            self.change(|r| {
                r.input_requests.insert(key, request);
                r.status = TaskStatus::InputRequired;
                true
            })
            .await;
            rx.await.map_err(|_| ClientRequestError::Disconnected)
        }
        .boxed()
    }

    fn status_message(self: Arc<Self>, message: &str) {
        let message = message.to_owned();
        tokio::spawn(async move {
            self.change(|r| {
                r.status_message = Some(message);
                true
            })
            .await;
        });
    }

    fn is_task(&self) -> bool {
        self.stored.load(Ordering::Acquire)
    }
}

/// A protocol error as the JSON-RPC error object a failed task inlines.
pub(crate) fn error_json(e: &ProtocolError) -> Value {
    let mut error = json!({"code": e.code, "message": e.message});
    if let Some(data) = &e.data {
        error["data"] = data.clone();
    }
    error
}

fn store_error(e: TaskStoreError) -> ProtocolError {
    match e {
        TaskStoreError::Full(_) => ProtocolError::invalid_request(format!("Invalid Request: {e}")),
        TaskStoreError::Backend(_) => ProtocolError::internal(format!("Internal error: {e}")),
    }
}
