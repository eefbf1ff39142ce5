//! The task tracker of seed 003: list_tasks, add_task, complete_task.
//!
//! Run over stdio: `cargo run -p examples --bin tasks`; see it work: `cargo run -p examples --bin tasks -- demo`.

use std::sync::Mutex;

use mcp_runtime::cli::clap;
use mcp_runtime::prelude::*;

// A task's state. (No doc comment: it would be published as a description the reference does not have.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Done,
}

// How urgent a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    Normal,
    High,
}

/// One task in the tracker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// Task ID such as T-1.
    pub id: String,
    pub title: String,
    pub priority: Priority,
    pub status: Status,
}

/// The tasks that match a filter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskList {
    pub tasks: Vec<Task>,
    pub count: i64,
}

/// The tracker's tasks, in ID order. Lives in memory so every run starts from the same three.
pub struct TaskStore {
    tasks: Mutex<Vec<Task>>,
}

impl TaskStore {
    /// The seed's three tasks.
    pub fn new() -> Self {
        let task = |id: &str, title: &str, priority, status| Task {
            id: id.into(),
            title: title.into(),
            priority,
            status,
        };
        TaskStore {
            tasks: Mutex::new(vec![
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
            ]),
        }
    }
}

impl Default for TaskStore {
    fn default() -> Self {
        Self::new()
    }
}

/// List the project's tasks. Pass status to return only open or only done tasks.
#[tool(read_only, inline, scopes = ["tasks:read"])]
pub fn list_tasks(store: &TaskStore, status: Option<Status>) -> TaskList {
    let tasks: Vec<Task> = store
        .tasks
        .lock()
        .unwrap()
        .iter()
        .filter(|t| status.is_none_or(|s| t.status == s))
        .cloned()
        .collect();
    TaskList {
        count: tasks.len() as i64,
        tasks,
    }
}

/// Add an open task and return it with its new ID.
#[tool(inline, scopes = ["tasks:write"])]
pub fn add_task(
    store: &TaskStore,
    #[arg(min_length = 3, max_length = 80)] title: String,
    #[arg(default = Priority::Normal)] priority: Priority,
) -> Task {
    let mut tasks = store.tasks.lock().unwrap();
    let task = Task {
        id: format!("T-{}", tasks.len() + 1),
        title,
        priority,
        status: Status::Open,
    };
    tasks.push(task.clone());
    task
}

/// Mark one task as done and return it.
#[tool(idempotent, inline, scopes = ["tasks:write"])]
pub fn complete_task(
    store: &TaskStore,
    /// A task ID such as T-1, as returned by list_tasks.
    #[arg(pattern = r"^T-\d+$")]
    task_id: String,
) -> Result<Task, ToolError> {
    let mut tasks = store.tasks.lock().unwrap();
    let task = tasks.iter_mut().find(|t| t.id == task_id).ok_or_else(|| {
        ToolError::new(format!(
            "No task with ID {task_id}. Call list_tasks to see the valid IDs."
        ))
    })?;
    task.status = Status::Done;
    Ok(task.clone())
}

/// The server: the seed's name, version and instructions, the three tools, a fresh task list.
pub fn server() -> Server {
    Server::builder("tasks", "1.0.0")
        .instructions("Read and update the task tracker of one software project.")
        .state(TaskStore::new())
        .tools(tools![list_tasks, add_task, complete_task])
        // The tools' scopes and this hierarchy are checked over HTTP with `--auth-issuer` (see
        // docs/auth.md); stdio ignores them.
        .scope_implies("tasks:write", "tasks:read")
        .build()
        .unwrap_or_else(|e| panic!("the server cannot be built: {e}"))
}

/// Starts the server in-process, lists the tools with their contracts and makes the seed's four
/// calls, printing what the model would see (the seed's client.py).
async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    let client = mcp_runtime::Client::in_process(&server()).await?;
    for tool in client.list_tools().await? {
        let args: Vec<&str> = tool["inputSchema"]["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        println!(
            "tool   {}({}) -> {}",
            tool["name"].as_str().unwrap_or_default(),
            args.join(", "),
            tool["outputSchema"]["title"].as_str().unwrap_or("-")
        );
    }
    let result = client
        .call_tool(
            "add_task",
            serde_json::json!({"title": "Tag v1.2", "priority": "high"}),
        )
        .await?;
    println!("ok     {}", result.structured_content.unwrap_or_default());
    for (name, arguments) in [
        ("add_task", serde_json::json!({"title": "v2"})),
        ("complete_task", serde_json::json!({"task_id": "T-9"})),
    ] {
        let result = client.call_tool(name, arguments).await?;
        println!(
            "error  {} {}",
            result.is_error,
            result.first_text().unwrap_or_default()
        );
    }
    // A tools/call request with no tool name breaks the protocol, not the tool.
    match client
        .request("tools/call", serde_json::json!({"arguments": {}}))
        .await
    {
        Ok(result) => println!("unexpected result {result}"),
        Err(error) => match error.protocol() {
            Some(e) => println!("raised ProtocolError {} {}", e.code, e.message),
            None => println!("raised {error}"),
        },
    }
    Ok(())
}

/// A task tracker over MCP: list_tasks, add_task, complete_task.
#[derive(clap::Args)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: mcp_runtime::cli::ServeArgs,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Run a scripted session against the server in memory and print it.
    Demo,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = server();
    let cli: Cli = mcp_runtime::cli::parse(&server);
    if let Some(Command::Demo) = cli.command {
        return examples::runtime().block_on(demo());
    }
    examples::init_logging();
    Ok(cli.serve.run(server)?)
}
