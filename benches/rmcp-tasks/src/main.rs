//! The seed's task tracker (list_tasks, add_task, complete_task) on rmcp 3.11, publishing the
//! same contract as `examples/tasks.rs`: a pattern on `task_id`, length bounds on `title`, the
//! `priority` enum with its default, and no unknown arguments.
//!
//! rmcp publishes that contract (through schemars attributes) but enforces only what serde
//! enforces: types, enum values, required fields and unknown fields. Length and pattern are not
//! checked at call time; a too-short title is stored, and `X-1` reaches the tool body.
//!
//! `rmcp-tasks` serves over `rmcp::transport::stdio()` (tokio's stdin/stdout, blocking pool);
//! `rmcp-tasks pipes` over `rmcp::transport::stdio_pipes()` (non-blocking pipes on the reactor).
//! Add `single` to either for a current-thread runtime instead of the multi-threaded one.
//!
//! `rmcp-tasks http [json] [progress] [ADDR]` serves Streamable HTTP at `http://ADDR/mcp` (default
//! `127.0.0.1:0`, any free port; the address is printed on stderr as `listening on ...`) with
//! rmcp's `StreamableHttpService` in axum, on the multi-threaded runtime. Without `json` it runs
//! rmcp's defaults: `legacy_session_mode` (a session per `initialize` for the handshake-era
//! versions; 2026-07-28 requests are served statelessly all the same) and SSE responses. With
//! `json`: `legacy_session_mode: false, json_response: true`, its stateless JSON-response mode.
//! Every session (and every stateless request) shares one task store, as ours does. With
//! `progress` it serves the SSE workload's one tool, `step`, instead of the tasks.

use std::sync::{Arc, Mutex};

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    Normal,
    High,
}

/// One task in the tracker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Task {
    /// Task ID such as T-1.
    pub id: String,
    pub title: String,
    pub priority: Priority,
    pub status: Status,
}

/// The tasks that match a filter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskList {
    pub tasks: Vec<Task>,
    pub count: i64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTasksArgs {
    #[serde(default)]
    pub status: Option<Status>,
}

fn normal() -> Priority {
    Priority::Normal
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddTaskArgs {
    #[schemars(length(min = 3, max = 80))]
    pub title: String,
    #[serde(default = "normal")]
    pub priority: Priority,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompleteTaskArgs {
    /// A task ID such as T-1, as returned by list_tasks.
    #[schemars(regex(pattern = r"^T-\d+$"))]
    pub task_id: String,
}

#[derive(Clone)]
pub struct Tasks {
    tasks: Arc<Mutex<Vec<Task>>>,
}

impl Tasks {
    fn new() -> Self {
        let task = |id: &str, title: &str, priority, status| Task {
            id: id.into(),
            title: title.into(),
            priority,
            status,
        };
        Tasks {
            tasks: Arc::new(Mutex::new(vec![
                task(
                    "T-1",
                    "Write the release notes",
                    Priority::Normal,
                    Status::Open,
                ),
                task(
                    "T-2",
                    "Fix the login redirect bug",
                    Priority::High,
                    Status::Done,
                ),
                task("T-3", "Update the API docs", Priority::Low, Status::Open),
            ])),
        }
    }
}

#[tool_handler(
    name = "tasks",
    version = "1.0.0",
    instructions = "Read and update the task tracker of one software project."
)]
impl ServerHandler for Tasks {}

#[tool_router]
impl Tasks {
    /// List the project's tasks. Pass status to return only open or only done tasks.
    #[tool(annotations(read_only_hint = true))]
    fn list_tasks(&self, Parameters(args): Parameters<ListTasksArgs>) -> Json<TaskList> {
        let tasks: Vec<Task> = self
            .tasks
            .lock()
            .unwrap()
            .iter()
            .filter(|t| args.status.is_none_or(|s| t.status == s))
            .cloned()
            .collect();
        Json(TaskList {
            count: tasks.len() as i64,
            tasks,
        })
    }

    /// Add an open task and return it with its new ID.
    #[tool]
    fn add_task(&self, Parameters(args): Parameters<AddTaskArgs>) -> Json<Task> {
        let mut tasks = self.tasks.lock().unwrap();
        let task = Task {
            id: format!("T-{}", tasks.len() + 1),
            title: args.title,
            priority: args.priority,
            status: Status::Open,
        };
        tasks.push(task.clone());
        Json(task)
    }

    /// Mark one task as done and return it.
    #[tool(annotations(idempotent_hint = true))]
    fn complete_task(
        &self,
        Parameters(args): Parameters<CompleteTaskArgs>,
    ) -> Result<Json<Task>, String> {
        let mut tasks = self.tasks.lock().unwrap();
        let task = tasks
            .iter_mut()
            .find(|t| t.id == args.task_id)
            .ok_or_else(|| {
                format!(
                    "No task with ID {}. Call list_tasks to see the valid IDs.",
                    args.task_id
                )
            })?;
        task.status = Status::Done;
        Ok(Json(task.clone()))
    }
}

/// The SSE workload's tool (`rmcp-tasks http progress`): `step` reports progress once and
/// answers, so that the answer is an event stream; the same tool as `benches/ours-progress`.
#[derive(Clone)]
pub struct Progress;

#[tool_handler(name = "progress", version = "1.0.0")]
impl ServerHandler for Progress {}

#[tool_router]
impl Progress {
    /// Report progress once (1 of 1), then answer.
    #[tool]
    async fn step(
        &self,
        meta: rmcp::model::RequestMetaObject,
        client: rmcp::Peer<rmcp::RoleServer>,
    ) -> String {
        if let Some(token) = meta.get_progress_token() {
            let progress = rmcp::model::ProgressNotificationParam::new(token, 1.0).with_total(1.0);
            let _ = client.notify_progress(progress).await;
        }
        "done".into()
    }
}

/// Streamable HTTP in axum: the stateful default, or (`json`) stateless with JSON responses.
async fn serve_http(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let json = args.iter().any(|a| a == "json");
    let addr = args
        .iter()
        .find(|a| a.contains(':'))
        .map_or("127.0.0.1:0", String::as_str);
    let mut config = StreamableHttpServerConfig::default();
    if json {
        config.legacy_session_mode = false;
        config.json_response = true;
    }
    let sessions = std::sync::Arc::new(LocalSessionManager::default());
    let app = if args.iter().any(|a| a == "progress") {
        let service = StreamableHttpService::new(|| Ok(Progress), sessions, config);
        axum::Router::new().nest_service("/mcp", service)
    } else {
        let tasks = Tasks::new();
        let service = StreamableHttpService::new(move || Ok(tasks.clone()), sessions, config);
        axum::Router::new().nest_service("/mcp", service)
    };
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pipes = args.iter().any(|a| a == "pipes");
    // `single`: a current-thread runtime, the one our stdio example runs on; by default the
    // multi-threaded runtime `#[tokio::main]` gives.
    let runtime = if args.iter().any(|a| a == "single") {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
    };
    runtime.block_on(async {
        if args.iter().any(|a| a == "http") {
            return serve_http(&args).await;
        }
        let service = if pipes {
            Tasks::new().serve(rmcp::transport::stdio_pipes()).await?
        } else {
            Tasks::new().serve(rmcp::transport::stdio()).await?
        };
        service.waiting().await?;
        Ok(())
    })
}
