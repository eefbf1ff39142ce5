//! [`RedisTaskStore`] (feature `redis`): the task records of a fleet of replicas in one Redis, so
//! that a task started on one replica is read, listed, awaited and cancelled through any other.
//!
//! Keys, under a prefix (`mcp` by default, the session store's):
//!
//! | key | type | holds | expires |
//! |---|---|---|---|
//! | `{prefix}:task:{id}` | string | the record's JSON | at its creation plus its `ttl` (`PXAT`) |
//! | `{prefix}:tasks` | sorted set | every task id, scored by its expiry | with its last task |
//! | `{prefix}:tasks:owner:{owner}` | sorted set | one owner's task ids, scored by creation | with its last task |
//! | `{prefix}:task:{id}:answers` | hash | answers for a stateless task run by another replica: each key's JSON | with the record (a copy of its `PTTL`) |
//!
//! `create` is one Lua script: it drops expired ids from both sets, counts what is left against
//! [`TaskLimits`], and only then writes the record and indexes it, so two replicas racing for the
//! last place cannot both get it. `put` is a script too: it replaces a record only while the
//! stored one has not ended (`KEEPTTL`), so a replica that finishes a body after another
//! cancelled its task cannot turn it back to `completed`, and an expired record is never
//! revived. `get` is a `GET`; `list` reads the owner's set, drops the ids whose record expired,
//! and pages oldest first. Stateless (2026-07-28) tasks have no owner: they are counted in
//! `{prefix}:tasks` only, and not listed (that era has no `tasks/list`). `put_answers` is a
//! script that adds to the answers hash only while the record exists, and gives the hash the
//! record's remaining time; `take_answers` is `HGETALL` and `DEL` in one `MULTI`, which the
//! replica running a task sends every poll interval after the `GET` of its record (so two
//! commands per running task per poll interval, whether it asks anything or not) and once more
//! when the task ends. `create` reads records it builds the keys of from the prefix (the owner's
//! tasks), which Redis allows of keys in the script's slot.
//!
//! On a Redis Cluster (a `redis+cluster://` URL) the prefix is hash-tagged, `{mcp}:task:{id}`
//! and so on, so every key above shares one slot and each script and `MULTI` touches that slot
//! only: the limits stay exact across the fleet, at the cost of keeping the fleet's tasks on one
//! master (sessions and event streams spread over all of them).
//!
//! A command that fails (Redis unreachable, or slower than the connection's response timeout)
//! is a [`TaskStoreError::Backend`]; the request that needed it gets a JSON-RPC error. The
//! connection (`crate::redis_conn`) reconnects by itself, so requests work again once Redis is back (its
//! records lost, if it restarted empty).

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use super::{TaskLimits, TaskPage, TaskRecord, TaskStore, TaskStoreError, now_ms};
use crate::redis_conn::{RedisConnection, hash_tag};

/// Counts the unexpired tasks and, within the limits, stores and indexes the new one.
/// KEYS: the record, every task, the owner's tasks (absent for a stateless task). ARGV: now, the JSON,
/// its expiry, its creation, its id, the total limit, the per-owner limit, the record key prefix.
const CREATE: &str = r"
local now, expires = tonumber(ARGV[1]), tonumber(ARGV[3])
local function last_until(key, at)
  local pttl = redis.call('PTTL', key)
  if pttl < 0 or now + pttl < at then redis.call('PEXPIREAT', key, at) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'total' end
if KEYS[3] then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if redis.call('EXISTS', ARGV[8] .. id) == 0 then redis.call('ZREM', KEYS[3], id) end
  end
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return 'owner' end
end
redis.call('SET', KEYS[1], ARGV[2], 'PXAT', expires)
redis.call('ZADD', KEYS[2], expires, ARGV[5])
last_until(KEYS[2], expires)
if KEYS[3] then
  redis.call('ZADD', KEYS[3], tonumber(ARGV[4]), ARGV[5])
  last_until(KEYS[3], expires)
end
return 'ok'
";

/// Replaces the record at KEYS[1] with ARGV[1], keeping its expiry, unless it is gone or ended.
const PUT: &str = r"
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local status = cjson.decode(stored)['status']
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1
";

/// Adds ARGV (key, JSON, key, JSON…) to the hash KEYS[2] while the record KEYS[1] exists, and
/// makes the hash expire with it.
const PUT_ANSWERS: &str = r"
local pttl = redis.call('PTTL', KEYS[1])
if pttl == -2 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV))
if pttl > 0 then redis.call('PEXPIRE', KEYS[2], pttl) end
return 1
";

/// Task records in Redis: every replica that uses the same Redis and prefix sees every task.
#[derive(Clone)]
pub struct RedisTaskStore {
    conn: RedisConnection,
    /// The prefix of every key: hash-tagged on a cluster.
    prefix: String,
}

impl RedisTaskStore {
    /// Connects to `url` (`redis://host:port/db`, or `redis+cluster://host:port,host:port` for a
    /// Redis Cluster), keys under `mcp`. A command answers within 2 s and a connection opens
    /// within 1 s, or the request that needed it fails (and the next one reconnects). Fails when
    /// Redis cannot be reached now.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        let conn = RedisConnection::connect(url)
            .await
            .map_err(|e| TaskStoreError::Backend(format!("cannot reach Redis at `{url}`: {e}")))?;
        Ok(Self::with_connection(conn, "mcp"))
    }

    /// A store on a connection already open (the session store's, say), keys under `prefix`
    /// (`{prefix}` on a cluster).
    pub fn with_connection(conn: impl Into<RedisConnection>, prefix: impl Into<String>) -> Self {
        let (conn, prefix) = (conn.into(), prefix.into());
        let prefix = if conn.is_cluster() {
            hash_tag(&prefix)
        } else {
            prefix
        };
        RedisTaskStore { conn, prefix }
    }

    /// The Redis key of the record of `task_id`.
    pub fn key(&self, task_id: &str) -> String {
        format!("{}:task:{task_id}", self.prefix)
    }

    /// The key of the hash of answers waiting for `task_id`, which another replica runs.
    fn answers_key(&self, task_id: &str) -> String {
        format!("{}:task:{task_id}:answers", self.prefix)
    }

    /// The key of the sorted set of `owner`'s task ids (stateless tasks have none).
    fn owner_key(&self, owner: Option<&str>) -> String {
        owner.map_or_else(String::new, |o| format!("{}:tasks:owner:{o}", self.prefix))
    }

    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, TaskStoreError> {
        cmd.query_async(&mut self.conn.clone())
            .await
            .map_err(|e| TaskStoreError::Backend(format!("Redis: {e}")))
    }
}

fn encode(record: &TaskRecord) -> Result<String, TaskStoreError> {
    serde_json::to_string(record)
        .map_err(|e| TaskStoreError::Backend(format!("a task record is not JSON: {e}")))
}

fn decode(text: &str) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_str(text)
        .map_err(|e| TaskStoreError::Backend(format!("a stored task is not a record: {e}")))
}

/// `created_at_ms` and the id, zero-padded so that cursors compare in creation order (the
/// memory store's cursors have the same shape).
fn position(created_at_ms: u64, task_id: &str) -> String {
    format!("{created_at_ms:020}:{task_id}")
}

impl TaskStore for RedisTaskStore {
    fn create(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let expires = record.created_at_ms.saturating_add(record.ttl_ms);
            let mut cmd = redis::cmd("EVAL");
            let owned = record.owner.is_some();
            cmd.arg(CREATE)
                .arg(if owned { 3 } else { 2 })
                .arg(self.key(&record.task_id))
                .arg(format!("{}:tasks", self.prefix));
            if owned {
                cmd.arg(self.owner_key(record.owner.as_deref()));
            }
            cmd.arg(now_ms())
                .arg(encode(&record)?)
                .arg(expires)
                .arg(record.created_at_ms)
                .arg(&record.task_id)
                .arg(limits.total)
                .arg(limits.per_owner)
                .arg(self.key(""));
            match self.query::<String>(&cmd).await?.as_str() {
                "ok" => Ok(()),
                "total" => Err(TaskStoreError::Full(format!(
                    "the server keeps {} tasks at most",
                    limits.total
                ))),
                _ => Err(TaskStoreError::Full(format!(
                    "a session keeps {} tasks at most",
                    limits.per_owner
                ))),
            }
        })
    }

    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(PUT)
                .arg(1)
                .arg(self.key(&record.task_id))
                .arg(encode(&record)?);
            self.query::<i64>(&cmd).await.map(drop)
        })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("GET");
            cmd.arg(self.key(task_id));
            let Some(text) = self.query::<Option<String>>(&cmd).await? else {
                return Ok(None);
            };
            // Redis expires on its own clock; the record's own times decide too.
            let record = decode(&text)?;
            Ok((!record.expired(now_ms())).then_some(record))
        })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        Box::pin(async move {
            let limit = limit.max(1);
            let Some(owner_key) = owner.map(|o| self.owner_key(Some(o))) else {
                // Stateless tasks have no owner to list them by.
                return Ok(TaskPage::default());
            };
            let mut range = redis::cmd("ZRANGE");
            range.arg(&owner_key).arg(0).arg(-1).arg("WITHSCORES");
            let members: Vec<(String, u64)> = self.query(&range).await?;
            let mut after: Vec<(String, String)> = members
                .into_iter()
                .map(|(id, created)| (position(created, &id), id))
                .filter(|(p, _)| cursor.is_none_or(|c| p.as_str() > c))
                .collect();
            after.sort();
            if after.is_empty() {
                return Ok(TaskPage::default());
            }
            let mut get = redis::cmd("MGET");
            for (_, id) in &after {
                get.arg(self.key(id));
            }
            let texts: Vec<Option<String>> = self.query(&get).await?;
            let now = now_ms();
            let mut page = Vec::new();
            let mut gone = Vec::new();
            for ((position, id), text) in after.into_iter().zip(texts) {
                match text.as_deref().map(decode).transpose()? {
                    Some(record) if !record.expired(now) => page.push((position, record)),
                    _ => gone.push(id),
                }
            }
            if !gone.is_empty() {
                let mut prune = redis::cmd("ZREM");
                prune.arg(&owner_key).arg(gone);
                self.query::<i64>(&prune).await?;
            }
            let next_cursor = (page.len() > limit).then(|| page[limit - 1].0.clone());
            page.truncate(limit);
            let tasks = page.into_iter().map(|(_, r)| r).collect();
            Ok(TaskPage { tasks, next_cursor })
        })
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn put_answers<'a>(
        &'a self,
        task_id: &'a str,
        answers: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            if answers.is_empty() {
                return Ok(());
            }
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(PUT_ANSWERS)
                .arg(2)
                .arg(self.key(task_id))
                .arg(self.answers_key(task_id));
            for (key, answer) in answers {
                cmd.arg(key).arg(answer.to_string());
            }
            self.query::<i64>(&cmd).await.map(drop)
        })
    }

    fn take_answers<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Map<String, Value>, TaskStoreError>> {
        Box::pin(async move {
            let key = self.answers_key(task_id);
            let (stored,): (Vec<(String, String)>,) = redis::pipe()
                .atomic()
                .cmd("HGETALL")
                .arg(&key)
                .cmd("DEL")
                .arg(&key)
                .ignore()
                .query_async(&mut self.conn.clone())
                .await
                .map_err(|e| TaskStoreError::Backend(format!("Redis: {e}")))?;
            stored
                .into_iter()
                .map(|(k, text)| match serde_json::from_str(&text) {
                    Ok(answer) => Ok((k, answer)),
                    Err(e) => Err(TaskStoreError::Backend(format!(
                        "a stored answer is not JSON: {e}"
                    ))),
                })
                .collect()
        })
    }
}
