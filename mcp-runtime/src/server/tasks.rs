//! Tasks on the wire: which `tools/call` becomes a task, and the `tasks/*` methods of both eras.
//!
//! - 2025-11-25 (handshake): the client asks with `params.task` (`{ttl}`); the answer is
//!   `{task}`; `tasks/get`, `tasks/result` (waits for the end), `tasks/list`, `tasks/cancel`;
//!   `notifications/tasks/status` on each change; the `tasks` capability.
//! - 2026-07-28 (stateless): the client declares the `io.modelcontextprotocol/tasks` extension and
//!   the server decides: a task tool's call runs inline until it first waits, then becomes a task
//!   (`resultType: "task"`); `tasks/get` inlines the result, `tasks/update` answers questions,
//!   `tasks/cancel` acknowledges; `tasks/result` and `tasks/list` do not exist.

use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use super::route::Method;
use super::scope::{Scope, input_required};
use super::{Outcome, Server};
use crate::context::RequestScope;
use crate::context::connection::{Connection, Peer};
use crate::error::ProtocolError;
use crate::error::codes;
use crate::protocol::Params;
use crate::protocol::Request;
use crate::task::run::{LiveTask, Tasks};
use crate::task::wire::{RELATED_TASK_KEY, created_2026, detailed_2026, task_2025};
use crate::task::{TaskRecord, TaskStatus};
use crate::tool::TaskSupport;
use crate::tool::output::ToolOutput;

/// The extension's id, under `capabilities.extensions`.
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How a `tools/call` of a task tool runs.
pub(super) enum Plan {
    /// 2025-11-25: the client asked for a task (with this `ttl`, if any).
    Asked(Option<u64>),
    /// 2026-07-28: the client takes tasks; the call becomes one once it waits, or at once when
    /// the tool's support is `required` (`true`).
    Decided(bool),
}

impl Server {
    /// The capabilities declared to a client of `version`: tasks as the 2025-11-25 capability, or
    /// as the 2026-07-28 extension.
    pub(super) fn capabilities_for(&self, version: &str) -> std::borrow::Cow<'_, Value> {
        let caps = &self.inner.capabilities;
        if self.inner.tasks.is_none() {
            return std::borrow::Cow::Borrowed(caps);
        }
        let mut caps = caps.clone();
        match version {
            "2025-11-25" => {
                caps["tasks"] =
                    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
            }
            v if crate::protocol::STATELESS_VERSIONS.contains(&v) => {
                caps["extensions"] = json!({ TASKS_EXTENSION: {} });
            }
            _ => {}
        }
        std::borrow::Cow::Owned(caps)
    }

    /// This server with its task records in `store` (the same tools, state and options): how a
    /// binary that chooses its store from its command line (`--redis URL`) installs it after
    /// building. Call it before serving; tasks already started stay with `self`. A server
    /// without task tools is returned as it is.
    pub fn with_task_store(&self, store: Arc<dyn crate::task::TaskStore>) -> Server {
        let mut inner = (*self.inner).clone();
        if let Some(tasks) = &inner.tasks {
            let tasks = Arc::new(Tasks::new(store, tasks.options));
            #[cfg(feature = "metrics")]
            if let Some(recorder) = &inner.options.metrics {
                tasks.watched_by(recorder);
            }
            inner.tasks = Some(tasks);
        }
        Server {
            inner: Arc::new(inner),
        }
    }

    /// Whether this call of `name` runs as a task, or is refused because it must.
    pub(super) fn task_plan(
        &self,
        name: &str,
        params: Option<&Params>,
        scope: &Scope,
    ) -> Result<Option<Plan>, ProtocolError> {
        // Without a tool that can be a task, no call is one: no lookup of the name.
        if self.inner.tasks.is_none() {
            return Ok(None);
        }
        let support = self.inner.tools.get(name).map(|t| t.task_support());
        let Some(support @ (TaskSupport::Optional | TaskSupport::Required)) = support else {
            return Ok(None);
        };
        if scope.stateless.is_some() {
            if takes_tasks(&scope.peer) {
                return Ok(Some(Plan::Decided(support == TaskSupport::Required)));
            }
            if support == TaskSupport::Required {
                return Err(missing_extension());
            }
            return Ok(None);
        }
        let asked = params.and_then(|p| p.get("task")).filter(|t| t.is_object());
        match asked {
            Some(task) if scope.version == "2025-11-25" => {
                Ok(Some(Plan::Asked(task.get("ttl").and_then(Value::as_u64))))
            }
            _ if support == TaskSupport::Required => Err(ProtocolError::new(
                codes::METHOD_NOT_FOUND,
                format!("Method not found: tool `{name}` runs only as a task; call it with `task`"),
            )),
            _ => Ok(None),
        }
    }

    /// A task about to run for `conn`, not stored yet.
    pub(super) fn prepare_task(&self, plan: &Plan, conn: &Connection) -> Option<Arc<LiveTask>> {
        let tasks = self.inner.tasks.as_ref()?;
        let timeout = self.inner.options.client_request_timeout;
        Some(match plan {
            Plan::Asked(ttl) => tasks.prepare(
                Some(task_owner(tasks, conn)),
                *ttl,
                Some(conn.clone()),
                timeout,
            ),
            Plan::Decided(_) => tasks.prepare(principal_owner(conn), None, None, timeout),
        })
    }

    /// Runs a call that may become a task. 2025-11-25: it is one at once. 2026-07-28: polled
    /// once here; what ends at once (a result, an error, an `input_required` round trip) is
    /// answered as usual, anything else becomes a task that goes on in the background.
    pub(super) async fn call_as_task(
        &self,
        plan: Plan,
        live: Arc<LiveTask>,
        mut call: BoxFuture<'static, Result<ToolOutput, ProtocolError>>,
        scope: &RequestScope,
    ) -> Outcome {
        let Some(tasks) = self.inner.tasks.clone() else {
            return Outcome::Answer(Err(ProtocolError::internal("tasks are not served")));
        };
        if let Plan::Decided(required) = plan {
            // A noop waker: the task's own poll registers the real one again.
            match (&mut call).now_or_never() {
                // The spec's immediate-result shortcut, for a tool that may also run inline.
                Some(Ok(output)) if !required => return Outcome::Called(output, None),
                Some(done @ Ok(_)) => call = futures_util::future::ready(done).boxed(),
                Some(Err(e)) => return Outcome::Answer(Err(e)),
                None if scope.input_needed.as_ref().is_some_and(|n| n.is_raised()) => {
                    return Outcome::Answer(Ok(input_required(scope)));
                }
                None => {}
            }
        }
        let record = match tasks.start(&live).await {
            Ok(r) => r,
            Err(e) => return Outcome::Answer(Err(e)),
        };
        tasks.spawn(live, call);
        Outcome::Answer(Ok(match plan {
            Plan::Asked(_) => json!({ "task": task_2025(&record) }),
            Plan::Decided(_) => created_2026(&record),
        }))
    }

    /// `tasks/*` of a handshake-era session.
    pub(super) async fn tasks_session(
        &self,
        method: Method,
        req: &Request,
        conn: &Connection,
    ) -> Outcome {
        let (Some(tasks), Some("2025-11-25")) = (&self.inner.tasks, conn.negotiated_version())
        else {
            return Outcome::Answer(Err(ProtocolError::method_not_found(&req.method)));
        };
        let owner = task_owner(tasks, conn);
        let owner = Some(owner.as_str());
        let answer = async {
            match method {
                Method::TaskList => {
                    let cursor = req.params.as_ref().and_then(|p| p.get("cursor"));
                    let cursor = cursor.and_then(Value::as_str);
                    let limit = self.inner.options.page_size.unwrap_or(100);
                    let page = tasks.store.list(owner, cursor, limit).await;
                    let page = page.map_err(|e| ProtocolError::internal(e.to_string()))?;
                    let list: Vec<Value> = page.tasks.iter().map(task_2025).collect();
                    let mut result = json!({ "tasks": list });
                    if let Some(c) = page.next_cursor {
                        result["nextCursor"] = c.into();
                    }
                    Ok(result)
                }
                Method::TaskGet | Method::TaskCancel | Method::TaskResult => {
                    let id = task_id(req)?;
                    match method {
                        Method::TaskGet => Ok(task_2025(&tasks.get(id, owner).await?)),
                        Method::TaskCancel => {
                            let before = tasks.get(id, owner).await?;
                            if before.status.is_terminal() {
                                return Err(ProtocolError::invalid_params(format!(
                                    "Invalid params: task `{id}` is already {}",
                                    before.status.as_str()
                                )));
                            }
                            Ok(task_2025(&tasks.cancel(id, owner).await?))
                        }
                        _ => task_result(&tasks.finished(id, owner).await?),
                    }
                }
                _ => Err(ProtocolError::method_not_found(&req.method)),
            }
        };
        Outcome::Answer(answer.await)
    }

    /// `tasks/*` of a stateless request.
    pub(super) async fn tasks_stateless(
        &self,
        method: Method,
        req: &Request,
        peer: Peer,
        conn: &Connection,
    ) -> Outcome {
        let peer = &peer;
        // Behind auth, a task is its principal's: another one's is answered as unknown.
        let owner = principal_owner(conn);
        let owner = owner.as_deref();
        let Some(tasks) = self.inner.tasks.as_ref().filter(|_| {
            matches!(
                method,
                Method::TaskGet | Method::TaskUpdate | Method::TaskCancel
            )
        }) else {
            return Outcome::Answer(Err(ProtocolError::method_not_found(&req.method)));
        };
        if !takes_tasks(peer) {
            return Outcome::Answer(Err(missing_extension()));
        }
        let answer = async {
            let id = task_id(req)?;
            match method {
                Method::TaskGet => Ok(detailed_2026(&tasks.get(id, owner).await?)),
                Method::TaskCancel => tasks.cancel(id, owner).await.map(|_| json!({})),
                _ => {
                    tasks.get(id, owner).await?;
                    let responses = req.params.as_ref().and_then(|p| p.get("inputResponses"));
                    let Some(responses) = responses.and_then(Value::as_object) else {
                        return Err(ProtocolError::invalid_params(
                            "Invalid params: tasks/update needs an object `inputResponses`",
                        ));
                    };
                    tasks.update(id, responses).await.map(|()| json!({}))
                }
            }
        };
        Outcome::Answer(answer.await)
    }
}

/// True when a stateless request declared the tasks extension.
fn takes_tasks(peer: &Peer) -> bool {
    peer.capabilities
        .0
        .get("extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some()
}

/// -32021, naming the extension the request needs.
fn missing_extension() -> ProtocolError {
    ProtocolError::new(
        codes::MISSING_CAPABILITY,
        format!("Missing required client capability: the `{TASKS_EXTENSION}` extension"),
    )
    .with_data(json!({"requiredCapabilities": {"extensions": { TASKS_EXTENSION: {} }}}))
}

fn task_id(req: &Request) -> Result<&str, ProtocolError> {
    req.params
        .as_ref()
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| ProtocolError::invalid_params("Invalid params: a string `taskId` is needed"))
}

/// The session a handshake-era task belongs to: an HTTP session's id, which every replica
/// serving the session knows (so a task started through one is found through another), or a
/// fresh unguessable id for a connection without one (stdio, in memory).
fn task_owner(tasks: &Tasks, conn: &Connection) -> String {
    conn.inner
        .task_owner
        .get_or_init(|| match &conn.lock_session().session_id {
            Some(id) => format!("session:{id}"),
            None => tasks.next_id(),
        })
        .clone()
}

/// The owner of a stateless task: the principal that started it when the HTTP endpoint checks
/// access tokens (feature `auth`), else none (the task id alone names it).
fn principal_owner(conn: &Connection) -> Option<String> {
    #[cfg(feature = "auth")]
    if let Some(principal) = &conn.inner.principal {
        return Some(format!("principal:{}", principal.owner_key()));
    }
    let _ = conn;
    None
}

/// `tasks/result`: the call's own result (tied to the task), or its error.
fn task_result(record: &TaskRecord) -> Result<Value, ProtocolError> {
    let related = json!({ RELATED_TASK_KEY: {"taskId": record.task_id} });
    match (record.status, &record.result, &record.error) {
        (TaskStatus::Completed, Some(result), _) => {
            let mut result = result.clone();
            let meta = result
                .as_object_mut()
                .map(|r| r.entry("_meta").or_insert_with(|| json!({})));
            if let Some(Value::Object(meta)) = meta {
                meta.insert(RELATED_TASK_KEY.into(), related[RELATED_TASK_KEY].clone());
            }
            Ok(result)
        }
        (TaskStatus::Failed, _, Some(error)) => Err(ProtocolError {
            code: error["code"].as_i64().unwrap_or(codes::INTERNAL_ERROR),
            message: error["message"]
                .as_str()
                .unwrap_or("task failed")
                .to_owned(),
            data: error.get("data").cloned(),
        }),
        _ => Err(ProtocolError::invalid_params(format!(
            "Invalid params: task `{}` was {}",
            record.task_id,
            record.status.as_str()
        ))
        .with_data(related)),
    }
}
