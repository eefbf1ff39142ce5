//! The cost of one message on the server's side of the wire, with the task tracker's tools (the
//! workload of `benches/run.sh`): decoding a JSON-RPC line, encoding a response, one request
//! through `Server::handle` (valid call, invalid call, `tools/list`), and building the server,
//! which generates every schema and compiles every validator once.

use std::hint::black_box;
use std::sync::Mutex;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_util::FutureExt;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{Incoming, RequestId, result_response};
use mcp_runtime::transport::stdio::encode_message;
use mcp_runtime::{Connection, Server};
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    Normal,
    High,
}

/// One task in the tracker.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Task {
    /// Task ID such as T-1.
    id: String,
    title: String,
    priority: Priority,
    status: Status,
}

/// The tasks that match a filter.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct TaskList {
    tasks: Vec<Task>,
    count: i64,
}

struct Store(Mutex<Vec<Task>>);

/// List the project's tasks.
#[tool(read_only)]
fn list_tasks(store: &Store, status: Option<Status>) -> TaskList {
    let tasks: Vec<Task> = store
        .0
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
#[tool]
fn add_task(
    #[arg(min_length = 3, max_length = 80)] title: String,
    #[arg(default = Priority::Normal)] priority: Priority,
) -> Task {
    // Not stored: the benchmark must not grow the list it measures.
    Task {
        id: "T-4".into(),
        title,
        priority,
        status: Status::Open,
    }
}

/// Mark one task as done and return it.
#[tool(idempotent)]
fn complete_task(
    store: &Store,
    /// A task ID such as T-1, as returned by list_tasks.
    #[arg(pattern = r"^T-\d+$")]
    task_id: String,
) -> Result<Task, ToolError> {
    let mut tasks = store.0.lock().unwrap();
    let task = tasks
        .iter_mut()
        .find(|t| t.id == task_id)
        .ok_or_else(|| ToolError::new(format!("No task with ID {task_id}.")))?;
    task.status = Status::Done;
    Ok(task.clone())
}

fn build_server() -> Server {
    let task = |id: &str, title: &str| Task {
        id: id.into(),
        title: title.into(),
        priority: Priority::Normal,
        status: Status::Open,
    };
    Server::builder("tasks", "1.0.0")
        .instructions("Read and update the task tracker of one software project.")
        .state(Store(Mutex::new(vec![
            task("T-1", "Write the release notes"),
            task("T-2", "Fix the login redirect bug"),
            task("T-3", "Update the API docs"),
        ])))
        .tools(tools![list_tasks, add_task, complete_task])
        .build()
        .expect("the store is given")
}

const VALID: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_task","arguments":{"title":"Tag the release","priority":"high"}}}"#;
const INVALID: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_task","arguments":{"title":"ab","priority":"urgent"}}}"#;
const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}"#;

/// A connection past its handshake.
fn connected(server: &Server) -> Connection {
    let (conn, _outgoing) = Connection::new();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}});
    let response = server.handle_value(init, &conn).now_or_never().flatten();
    assert!(response.is_some_and(|r| r.protocol_error().is_none()));
    // Dropping the receiver is fine: `Connection::send` ignores a closed channel.
    conn
}

fn bench(c: &mut Criterion) {
    let server = build_server();
    let conn = connected(&server);

    c.bench_function("jsonrpc/decode tools/call", |b| {
        b.iter(|| black_box(Incoming::parse(black_box(VALID)).unwrap()))
    });
    let response = result_response(
        &RequestId::from(7),
        json!({
            "content": [{"type": "text", "text": "{\"id\":\"T-4\",\"title\":\"Tag the release\",\"priority\":\"high\",\"status\":\"open\"}"}],
            "structuredContent": {"id": "T-4", "title": "Tag the release", "priority": "high", "status": "open"}
        }),
    );
    let mut buf = Vec::with_capacity(1024);
    c.bench_function("jsonrpc/encode tools/call result", |b| {
        b.iter(|| {
            buf.clear();
            encode_message(&mut buf, black_box(&response)).unwrap();
            black_box(buf.len())
        })
    });

    // Every tool here is synchronous, so the future `handle` returns is ready on its first poll,
    // as the stdio transport polls it.
    let mut handle = |name: &str, line: &'static [u8], expect_error: bool| {
        let run = || {
            let message = Incoming::parse(line).unwrap();
            server.handle(message, &conn).now_or_never().flatten()
        };
        let first = run().expect("a response").into_json();
        let is_error = first["result"]["isError"] == json!(true);
        assert_eq!(is_error, expect_error, "{first}");
        c.bench_function(name, |b| b.iter(|| black_box(run())));
    };
    handle(
        "server/handle tools/call valid (decode + dispatch)",
        VALID,
        false,
    );
    handle(
        "server/handle tools/call invalid (decode + dispatch)",
        INVALID,
        true,
    );
    handle("server/handle tools/list (decode + dispatch)", LIST, false);

    // The table builds its tools on first use; the first `iter` is that use.
    c.bench_function("server/build: schemas and validators of 3 tools", |b| {
        b.iter(|| {
            let server = build_server();
            black_box(server.tools().iter().count());
            server
        })
    });
    c.bench_function(
        "server/build: the server alone (tools built on first use)",
        |b| b.iter(|| black_box(build_server())),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
