//! The task tracker of seed 003 (list_tasks, add_task, complete_task): the server the Python
//! interop test talks to.

use std::sync::Mutex;

use mcp_runtime::prelude::*;

/// A task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Not done yet.
    Open,
    /// Done.
    Done,
}

/// How urgent a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Low.
    Low,
    /// Normal.
    Normal,
    /// High.
    High,
}

/// One task in the tracker.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// Task ID such as T-1.
    pub id: String,
    /// The title.
    pub title: String,
    /// The priority.
    pub priority: Priority,
    /// The status.
    pub status: Status,
}

/// The tasks that match a filter.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TaskList {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// How many.
    pub count: i64,
}

/// The tracker's tasks, in memory: every run starts from the same three.
pub struct TaskStore(Mutex<Vec<Task>>);

impl Default for TaskStore {
    fn default() -> Self {
        let t = |id: &str, title: &str, priority, status| Task {
            id: id.into(),
            title: title.into(),
            priority,
            status,
        };
        TaskStore(Mutex::new(vec![
            t(
                "T-1",
                "Write the release notes",
                Priority::Normal,
                Status::Open,
            ),
            t(
                "T-2",
                "Fix the login redirect bug",
                Priority::High,
                Status::Done,
            ),
            t("T-3", "Update the API docs", Priority::Low, Status::Open),
        ]))
    }
}

/// List the project's tasks. Pass status to return only open or only done tasks.
#[tool(read_only)]
pub fn list_tasks(store: &TaskStore, status: Option<Status>) -> TaskList {
    let tasks: Vec<Task> = store
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|t| status.is_none_or(|s| t.status == s))
        .cloned()
        .collect();
    let count = tasks.len() as i64;
    TaskList { tasks, count }
}

/// Add an open task and return it with its new ID.
#[tool]
pub fn add_task(
    store: &TaskStore,
    #[arg(min_length = 3, max_length = 80)] title: String,
    #[arg(default = Priority::Normal)] priority: Priority,
) -> Task {
    let mut tasks = store.0.lock().unwrap();
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
#[tool(idempotent)]
pub fn complete_task(
    store: &TaskStore,
    /// A task ID such as T-1, as returned by list_tasks.
    #[arg(pattern = r"^T-\d+$")]
    task_id: String,
) -> Result<Task, ToolError> {
    let mut tasks = store.0.lock().unwrap();
    let Some(task) = tasks.iter_mut().find(|t| t.id == task_id) else {
        return Err(ToolError::new(format!(
            "No task with ID {task_id}. Call list_tasks to see the valid IDs."
        )));
    };
    task.status = Status::Done;
    Ok(task.clone())
}

/// The task tracker server.
pub fn server() -> Server {
    Server::builder("tasks", "1.0.0")
        .instructions("Read and update the task tracker of one software project.")
        .tools(tools![list_tasks, add_task, complete_task])
        .state(TaskStore::default())
        .build()
        .expect("the tasks server builds")
}
