//! Every example binary over stdio, in both protocol eras (the `initialize` handshake and the
//! stateless 2026-07-28 era):
//!
//! - its published `tools/list` equals the committed golden file
//!   `examples/golden/<example>.tools.json`; a change fails with a line diff, and
//!   `UPDATE_GOLDEN=1 cargo test -p examples --test it contracts::` rewrites the files, so a contract
//!   change is reviewed like code;
//! - its seed's scenario runs end to end: valid calls, violated constraints, the ToolError path,
//!   the hidden crash, an unknown tool, a nameless `tools/call`, state after a rejected call, and
//!   for atrium the elicitation answers.
//!
//! - its contract snapshot (`examples/contract/<example>.json`, `mcp_runtime::contract`) is the
//!   one committed: a breaking change fails unless the example's major version was raised, a
//!   compatible one unless its minor was, and `MCP_CONTRACT_UPDATE=1` records it; the goldens
//!   above keep pinning the wire byte for byte, the snapshot classifies what changed.
//!
//! The official Python client drives the same scenarios, against the Python reference servers
//! too, in `tests/it/python.rs`.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use mcp_runtime::client::{ElicitationAnswer, ElicitationRequest};
use mcp_runtime::contract;
use mcp_runtime::{CallToolResult, Client};
use serde_json::{Value, json};
use test_support::golden;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

const EXAMPLES: [&str; 4] = ["tasks", "shop", "notes", "atrium"];

fn binary(example: &str) -> &'static str {
    match example {
        "tasks" => env!("CARGO_BIN_EXE_tasks"),
        "shop" => env!("CARGO_BIN_EXE_shop"),
        "notes" => env!("CARGO_BIN_EXE_notes"),
        "atrium" => env!("CARGO_BIN_EXE_atrium"),
        "conformance" => env!("CARGO_BIN_EXE_conformance"),
        "review" => env!("CARGO_BIN_EXE_review"),
        other => panic!("no example {other}"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Handshake,
    Stateless,
}

const ERAS: [Era; 2] = [Era::Handshake, Era::Stateless];

/// The user's scripted answers to elicitation requests, and the questions asked.
#[derive(Default)]
struct User {
    answers: Mutex<VecDeque<ElicitationAnswer>>,
    asked: Mutex<Vec<ElicitationRequest>>,
}

impl User {
    fn will(&self, answer: ElicitationAnswer) {
        self.answers.lock().unwrap().push_back(answer);
    }

    fn asked(&self) -> Vec<ElicitationRequest> {
        std::mem::take(&mut *self.asked.lock().unwrap())
    }
}

/// An example binary running as a child process, with a client on its stdio.
struct Served {
    client: Client,
    child: Child,
    stderr: JoinHandle<String>,
}

impl Served {
    async fn start(example: &str, era: Era, user: Option<Arc<User>>) -> Served {
        let mut child = Command::new(binary(example))
            .env("RUST_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("start {example}: {e}"));
        let mut err = child.stderr.take().unwrap();
        let stderr = tokio::spawn(async move {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text).await;
            text
        });
        let mut builder = Client::builder();
        if era == Era::Stateless {
            builder = builder.stateless();
        }
        if let Some(user) = user {
            builder = builder.elicitation_handler(move |request| {
                let user = user.clone();
                async move {
                    user.asked.lock().unwrap().push(request);
                    user.answers
                        .lock()
                        .unwrap()
                        .pop_front()
                        .expect("the scenario planned an answer")
                }
            });
        }
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take().unwrap();
        let client = builder
            .over_io(stdout, stdin)
            .await
            .unwrap_or_else(|e| panic!("connect to {example} ({era:?}): {e}"));
        let expected = match era {
            Era::Handshake => "2025-11-25",
            Era::Stateless => "2026-07-28",
        };
        assert_eq!(client.protocol_version(), Some(expected), "{example}");
        Served {
            client,
            child,
            stderr,
        }
    }

    /// Closes stdin, waits for the server to exit and returns what it logged.
    async fn stop(mut self) -> String {
        self.client.close().await;
        let status = self.child.wait().await.expect("wait for the server");
        assert!(status.success(), "the server exited with {status}");
        self.stderr.await.expect("the stderr reader")
    }

    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.client
            .call_tool(tool, args)
            .await
            .unwrap_or_else(|e| panic!("{tool}: {e}"))
    }

    /// A successful call's structuredContent; its one text block carries the same JSON.
    async fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args).await;
        assert!(!result.is_error, "{tool}: {result:?}");
        let structured = result.structured_content.clone().expect("structured");
        let text = result.first_text().expect("a text block");
        let inner = match structured.as_object() {
            Some(m) if m.len() == 1 && m.contains_key("result") => &m["result"],
            _ => &structured,
        };
        match inner {
            Value::String(s) => assert_eq!(text, s),
            other => assert_eq!(&serde_json::from_str::<Value>(text).unwrap(), other),
        }
        structured
    }

    /// A failed call's text (its only text block, no structuredContent).
    async fn error(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args).await;
        assert!(result.is_error, "{tool}: {result:?}");
        assert_eq!(result.structured_content, None, "{tool}");
        assert_eq!(result.content.len(), 1, "{tool}: {result:?}");
        result.first_text().unwrap().to_owned()
    }

    /// Calls each `(tool, args, expected)` in order: `Ok` with the structured result [`Served::ok`]
    /// reads, `Err` with the error text [`Served::error`] reads.
    async fn steps<const N: usize>(&self, steps: [(&str, Value, Result<Value, String>); N]) {
        for (tool, args, expected) in steps {
            match expected {
                Ok(value) => assert_eq!(self.ok(tool, args).await, value, "{tool}"),
                Err(text) => assert_eq!(self.error(tool, args).await, text, "{tool}"),
            }
        }
    }

    /// A request that must fail as a JSON-RPC error: its code and message.
    async fn protocol_error(&self, method: &str, params: Value) -> (i64, String) {
        match self.client.request(method, params).await {
            Ok(result) => panic!("{method}: expected an error, got {result}"),
            Err(e) => {
                let e = e.protocol().unwrap_or_else(|| panic!("{method}: {e}"));
                (e.code, e.message.clone())
            }
        }
    }

    /// `delete_task` is no tool of any example: the Python SDK's text, then the valid names.
    async fn unknown_tool(&self, valid: &str) {
        let result = self.call("delete_task", json!({"task_id": "T-1"})).await;
        assert!(result.is_error);
        let texts: Vec<String> = result
            .to_json()
            .get("content")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .map(|c| c["text"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(
            texts,
            [
                "Unknown tool: delete_task",
                &format!("Valid tools: {valid}")
            ]
        );
    }

    async fn nameless_call(&self) {
        assert_eq!(
            self.protocol_error("tools/call", json!({"arguments": {}}))
                .await,
            (-32602, "Invalid request parameters".to_owned())
        );
    }
}

fn invalid(tool: &str, what: &str) -> String {
    format!("Invalid arguments for tool {tool}: {what}")
}

// ---- golden contracts ---------------------------------------------------------------------------

fn golden_path(example: &str, list: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(format!("{example}.{list}.json"))
}

/// Compares what `example` publishes in `era` with its golden file (the handshake era writes it
/// under `UPDATE_GOLDEN`): its tools, or with `list` = `prompts`, `resources` or `templates` its
/// prompts, resources or resource templates.
async fn check_golden(example: &str, era: Era) -> Result<(), String> {
    check_golden_list(example, era, "tools").await
}

async fn check_golden_list(example: &str, era: Era, list: &str) -> Result<(), String> {
    let served = Served::start(example, era, None).await;
    let items = match list {
        "tools" => served.client.list_tools().await.expect("tools/list"),
        "prompts" => served.client.list_prompts().await.expect("prompts/list"),
        "resources" => served
            .client
            .list_resources()
            .await
            .expect("resources/list"),
        "templates" => {
            let templates = served.client.list_resource_templates();
            templates.await.expect("resources/templates/list")
        }
        other => panic!("no list {other}"),
    };
    served.stop().await;
    let actual = serde_json::to_string_pretty(&Value::Array(items)).unwrap() + "\n";
    let path = golden_path(example, list);
    if golden::updating() && era == Era::Handshake {
        golden::write(&path, &actual);
        return Ok(());
    }
    golden::compare(
        &path,
        &actual,
        "UPDATE_GOLDEN=1 cargo test -p examples --test it contracts::",
    )
    .map_err(|e| format!("{example} ({era:?}) no longer publishes its contract: {e}"))
}

#[tokio::test]
async fn review_publishes_its_golden_contract_in_both_eras() {
    // Its scenario is its own (tests/it/review.rs): it asks the client's model and roots.
    for era in ERAS {
        check_golden("review", era).await.unwrap();
    }
}

#[tokio::test]
async fn every_example_publishes_its_golden_contract_in_both_eras() {
    let mut failures = Vec::new();
    for example in EXAMPLES {
        for era in ERAS {
            if let Err(e) = check_golden(example, era).await {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn notes_publishes_its_golden_prompt_and_summarizes_in_both_eras() {
    for era in ERAS {
        check_golden_list("notes", era, "prompts").await.unwrap();
        let s = Served::start("notes", era, None).await;
        let c = s
            .client
            .complete("summarize_note", "title", "gro", [])
            .await;
        assert_eq!(c.unwrap().values, ["groceries"], "{era:?}");
        let none = s.client.complete("summarize_note", "title", "x", []).await;
        assert!(none.unwrap().values.is_empty(), "{era:?}");
        let got = s
            .client
            .get_prompt_raw("summarize_note", [("title", "groceries")]);
        let got = got.await.unwrap();
        assert_eq!(
            got["messages"][0]["content"]["resource"]["text"],
            "milk, eggs"
        );
        assert_eq!(
            got["messages"][0]["content"]["resource"]["uri"],
            "notes://groceries"
        );
        let missing = s.client.get_prompt("summarize_note", [("title", "todo")]);
        let e = missing.await.unwrap_err();
        assert_eq!(
            e.protocol().map(|p| (p.code, p.message.as_str())),
            Some((-32602, "No note 'todo'"))
        );
        s.stop().await;
    }
}

#[tokio::test]
async fn notes_publishes_each_note_as_a_resource_in_both_eras() {
    for era in ERAS {
        check_golden_list("notes", era, "resources").await.unwrap();
        check_golden_list("notes", era, "templates").await.unwrap();
        let s = Served::start("notes", era, None).await;
        let read = s.client.read_resource("notes://groceries").await.unwrap();
        assert_eq!(read[0].as_text(), Some("milk, eggs"), "{era:?}");
        let index = s.client.read_resource("notes://index").await.unwrap();
        assert_eq!(index[0].as_text(), Some("groceries"), "{era:?}");
        let c = s
            .client
            .complete_resource("notes://{title}", "title", "g", []);
        assert_eq!(c.await.unwrap().values, ["groceries"], "{era:?}");
        // A title that names no note is the era's "resource not found", the URI in `data`.
        let missing = s.client.read_resource("notes://todo").await.unwrap_err();
        let p = missing.protocol().expect("a JSON-RPC error");
        let code = if era == Era::Handshake {
            -32002
        } else {
            -32602
        };
        assert_eq!((p.code, p.message.as_str()), (code, "Resource not found"));
        assert_eq!(p.data.as_ref().unwrap()["uri"], "notes://todo", "{era:?}");
        // The tools' contract is unchanged by the resources beside them.
        assert_eq!(s.client.list_tools().await.unwrap().len(), 1);
        s.stop().await;
    }
}

/// The conformance server's prompt that asks the user for its context, over stdio: an
/// `elicitation/create` request in the middle of `prompts/get` (handshake era), an
/// `input_required` result answered and retried (stateless era).
#[tokio::test]
async fn a_prompt_asks_the_user_mid_get_over_stdio_in_both_eras() {
    for era in ERAS {
        let user = Arc::new(User::default());
        user.will(ElicitationAnswer::Accept(json!({"context": "tides"})));
        let s = Served::start("conformance", era, Some(user.clone())).await;
        let got = s.client.get_prompt("test_input_required_result_prompt", []);
        let text = got.await.unwrap().messages[0].content.clone();
        let expected = mcp_runtime::Content::text("Write with this context in mind: tides");
        assert_eq!(text, expected, "{era:?}");
        let asked: Vec<String> = user.asked().into_iter().map(|r| r.message).collect();
        assert_eq!(asked, ["What context should the prompt use?"], "{era:?}");
        s.stop().await;
    }
}

// ---- contract snapshots --------------------------------------------------------------------------

fn snapshot_path(example: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("contract")
        .join(format!("{example}.json"))
}

async fn snapshot_of(example: &str, era: Era) -> contract::Snapshot {
    let served = Served::start(example, era, None).await;
    let snapshot = contract::Snapshot::from_client(&served.client).await;
    served.stop().await;
    snapshot.unwrap_or_else(|e| panic!("{example}: {e}"))
}

/// Each example's contract, taken over stdio, is its committed snapshot; the stateless era
/// publishes the same entries. `review` (no Python reference) is gated the same way.
#[tokio::test]
async fn every_example_keeps_its_contract_snapshot() {
    for example in EXAMPLES.into_iter().chain(["review"]) {
        let handshake = snapshot_of(example, Era::Handshake).await;
        contract::assert_snapshot(&handshake, snapshot_path(example));
        let mut stateless = snapshot_of(example, Era::Stateless).await;
        assert_eq!(stateless.server.protocol_version, "2026-07-28");
        stateless.server.protocol_version = handshake.server.protocol_version.clone();
        assert_eq!(stateless, handshake, "{example}");
    }
}

/// shop's get_order as a careless change would publish it: `maximum` lowered from 9999 to 999.
mod tightened_shop {
    use mcp_runtime::prelude::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(crate = "mcp_runtime::serde", rename_all = "lowercase")]
    pub enum OrderStatus {
        Paid,
        Shipped,
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(crate = "mcp_runtime::serde")]
    pub struct Order {
        pub id: String,
        pub status: OrderStatus,
        pub total: f64,
    }

    /// Look up one order by id.
    #[tool]
    pub fn get_order(
        /// Order id like 1042
        #[arg(minimum = 0, maximum = 999)]
        order_id: u32,
        #[arg(default = false)] verbose: bool,
    ) -> Result<Order, ToolError> {
        let _ = verbose;
        Err(ToolError::new(format!("no order with id {order_id}")))
    }

    /// Cancel an unshipped order.
    #[tool(title = "Cancel an order", destructive, idempotent)]
    pub fn cancel_order(order_id: i64) -> String {
        format!("order {order_id} cancelled")
    }

    pub fn server(version: &str) -> Server {
        Server::builder("shop", version)
            .tools(tools![get_order, cancel_order])
            .build()
            .unwrap()
    }
}

/// The helper refuses shop's contract with a tightened bound, naming the change and its witness,
/// until the major version is raised.
#[tokio::test]
async fn a_tightened_bound_fails_the_contract_check_with_its_witness() {
    let path = snapshot_path("shop");
    let changed = contract::snapshot(&tightened_shop::server("1.0.0"))
        .await
        .unwrap();
    let e = contract::check(&changed, &path, false).unwrap_err();
    let report = e.report.clone().expect("a comparison");
    assert_eq!(report.changes.len(), 1, "{e}");
    assert!(e.message.contains("needs a major version raise"), "{e}");
    assert!(
        e.message.contains(
            "BREAKING   tool get_order /inputSchema/properties/order_id/maximum \
             [input.maximum-tightened]: maximum 9999 became maximum 999"
        ),
        "{e}"
    );
    assert!(
        e.message
            .contains(r#"witness (old accepts, new refuses): {"order_id":9999}"#),
        "{e}"
    );
    // A minor raise does not allow it; a major one does (once recorded, which this test never does).
    let minor = contract::snapshot(&tightened_shop::server("1.1.0"))
        .await
        .unwrap();
    assert!(
        contract::check(&minor, &path, false)
            .unwrap_err()
            .message
            .contains("major")
    );
    let major = contract::snapshot(&tightened_shop::server("2.0.0"))
        .await
        .unwrap();
    let e = contract::check(&major, &path, false).unwrap_err();
    assert!(
        e.message.contains("is not updated; MCP_CONTRACT_UPDATE=1"),
        "{e}"
    );
}

// ---- the seeds' scenarios -----------------------------------------------------------------------

fn seed_tasks() -> Vec<Value> {
    vec![
        json!({"id": "T-1", "title": "Write the release notes", "priority": "normal", "status": "open"}),
        json!({"id": "T-2", "title": "Fix the login redirect bug", "priority": "high", "status": "done"}),
        json!({"id": "T-3", "title": "Update the API docs", "priority": "low", "status": "open"}),
    ]
}

#[tokio::test]
async fn tasks_scenario_in_both_eras() {
    for era in ERAS {
        let s = Served::start("tasks", era, None).await;
        let info = s.client.server_info().unwrap();
        assert_eq!(
            (info.name.as_str(), info.version.as_str()),
            ("tasks", "1.0.0")
        );
        assert_eq!(
            s.client.instructions(),
            Some("Read and update the task tracker of one software project.")
        );
        let all = json!({"tasks": seed_tasks(), "count": 3});
        assert_eq!(s.ok("list_tasks", json!({})).await, all);
        assert_eq!(
            s.ok("list_tasks", json!({"status": "open"})).await,
            json!({"tasks": [seed_tasks()[0], seed_tasks()[2]], "count": 2})
        );
        for (args, what) in [
            (
                json!({"title": "v2"}),
                "/title: must be at least 3 characters (got 2)",
            ),
            (
                json!({"title": "x".repeat(81)}),
                "/title: must be at most 80 characters (got 81)",
            ),
            (
                json!({"title": "Tag v1.2", "priority": "urgent"}),
                r#"/priority: must be one of "low", "normal", "high" (got "urgent")"#,
            ),
            (json!({"title": 5}), "/title: must be a string (got number)"),
            (
                json!({"title": "Tag v1.2", "due": "friday"}),
                r#"/: unknown argument "due" (allowed: title, priority)"#,
            ),
            (json!({}), r#"/: missing required argument "title""#),
        ] {
            assert_eq!(
                s.error("add_task", args).await,
                invalid("add_task", what),
                "{era:?}"
            );
        }
        assert_eq!(
            s.error("complete_task", json!({"task_id": "X-1"})).await,
            invalid("complete_task", r"/task_id: must match the pattern ^T-\d+$")
        );
        assert_eq!(s.ok("list_tasks", json!({})).await, all, "state unchanged");
        assert_eq!(
            s.ok("add_task", json!({"title": "Tag v1.2", "priority": "high"}))
                .await,
            json!({"id": "T-4", "title": "Tag v1.2", "priority": "high", "status": "open"})
        );
        assert_eq!(
            s.ok("add_task", json!({"title": "abc"})).await,
            json!({"id": "T-5", "title": "abc", "priority": "normal", "status": "open"})
        );
        let mut done = seed_tasks()[0].clone();
        done["status"] = json!("done");
        for _ in 0..2 {
            assert_eq!(s.ok("complete_task", json!({"task_id": "T-1"})).await, done);
        }
        assert_eq!(
            s.error("complete_task", json!({"task_id": "T-9"})).await,
            "Error executing tool complete_task: No task with ID T-9. Call list_tasks to see the valid IDs."
        );
        s.unknown_tool("list_tasks, add_task, complete_task").await;
        s.nameless_call().await;
        assert_eq!(
            s.ok("list_tasks", json!({"status": "done"})).await["count"],
            2
        );
        s.stop().await;
    }
}

#[tokio::test]
async fn shop_scenario_in_both_eras() {
    for era in ERAS {
        let s = Served::start("shop", era, None).await;
        let a1042 = json!({"id": "A1042", "status": "paid", "total": 59.9});
        assert_eq!(s.ok("get_order", json!({"order_id": 1042})).await, a1042);
        assert_eq!(
            s.ok("get_order", json!({"order_id": 1042, "verbose": true}))
                .await,
            a1042
        );
        assert_eq!(
            s.error("get_order", json!({"order_id": 7})).await,
            "Error executing tool get_order: no order with id 7"
        );
        let crash = s
            .client
            .call_tool_raw("get_order", json!({"order_id": 13}))
            .await
            .unwrap();
        assert_eq!(
            crash["content"],
            json!([{"type": "text", "text": "Error executing tool get_order"}])
        );
        assert_eq!(crash["isError"], true);
        assert_eq!(crash.get("structuredContent"), None);
        let sent = crash.to_string();
        assert!(
            !sent.contains("hunter2") && !sent.contains("10.0.0.5"),
            "{sent}"
        );
        // The result may carry an id that finds the logged error.
        let error_id = crash["_meta"]["errorId"].as_str().map(str::to_owned);
        for (args, what) in [
            (
                json!({"order_id": 10000}),
                "/order_id: must be <= 9999 (got 10000)",
            ),
            (json!({"order_id": -1}), "/order_id: must be >= 0 (got -1)"),
            (
                json!({"order_id": "5"}),
                "/order_id: must be an integer (got string)",
            ),
            (
                json!({"order_id": true}),
                "/order_id: must be an integer (got boolean)",
            ),
            (
                json!({"order_id": 1042, "verbose": "yes"}),
                "/verbose: must be a boolean (got string)",
            ),
        ] {
            assert_eq!(
                s.error("get_order", args).await,
                invalid("get_order", what),
                "{era:?}"
            );
        }
        assert_eq!(
            s.ok("cancel_order", json!({"order_id": 1042})).await,
            json!({"result": "order 1042 cancelled"})
        );
        s.unknown_tool("get_order, cancel_order").await;
        s.nameless_call().await;
        let logged = s.stop().await;
        let line = logged
            .lines()
            .find(|l| l.contains("db at 10.0.0.5 refused password 'hunter2'"))
            .unwrap_or_else(|| panic!("the crash is logged on stderr: {logged}"));
        if let Some(id) = error_id {
            assert!(line.contains(&id), "{id} in {line}");
        }
    }
}

#[tokio::test]
async fn notes_scenario_in_both_eras() {
    for era in ERAS {
        let s = Served::start("notes", era, None).await;
        assert_eq!(s.client.server_info().unwrap().name, "Notes");
        assert_eq!(
            s.ok("get_note", json!({"title": "groceries"})).await,
            json!({"title": "groceries", "body": "milk, eggs", "words": 2})
        );
        assert_eq!(
            s.error("get_note", json!({"title": "nope"})).await,
            "Error executing tool get_note: No note 'nope'. Known titles: ['groceries']"
        );
        assert_eq!(
            s.error("get_note", json!({"title": "it's"})).await,
            r#"Error executing tool get_note: No note "it's". Known titles: ['groceries']"#
        );
        assert_eq!(
            s.error("get_note", json!({})).await,
            invalid("get_note", r#"/: missing required argument "title""#)
        );
        s.unknown_tool("get_note").await;
        s.nameless_call().await;
        s.stop().await;
    }
}

const DAY: &str = "2026-09-17";
const ROOMS: &str = "Studio A (studio-a), Studio B (studio-b), Great Hall (great-hall)";

fn slots(room: &str, starts: std::ops::Range<i64>, minutes: i64) -> Value {
    let slots: Vec<Value> = starts
        .map(|h| {
            let end = h * 60 + minutes;
            json!({"room_id": room, "day": DAY, "start": format!("{h:02}:00"),
                   "end": format!("{:02}:{:02}", end / 60, end % 60)})
        })
        .collect();
    json!({ "result": slots })
}

fn booking(n: u32, room_id: &str, room: &str, hour: i64) -> Value {
    json!({"id": format!("bk_{n}"), "room_id": room_id, "room": room, "day": DAY, "hour": hour})
}

#[tokio::test]
async fn atrium_scenario_in_both_eras() {
    for era in ERAS {
        let user = Arc::new(User::default());
        let s = Served::start("atrium", era, Some(user.clone())).await;
        s.steps([
            (
                "find_slots",
                json!({"room_id": "studio-b", "day": DAY}),
                Ok(slots("studio-b", 10..17, 60)),
            ),
            (
                "find_slots",
                json!({"room_id": "studio-b", "day": DAY, "minutes": 30}),
                Ok(slots("studio-b", 10..17, 30)),
            ),
            (
                "find_slots",
                json!({"room_id": "studio-b", "day": DAY, "minutes": 45}),
                Err(invalid(
                    "find_slots",
                    "/minutes: must be one of 30, 60, 120 (got 45)",
                )),
            ),
            (
                "book_room",
                json!({"day": DAY, "hour": "11", "room_hint": "studio-a"}),
                Err(invalid(
                    "book_room",
                    "/hour: must be an integer (got string)",
                )),
            ),
            (
                "find_slots",
                json!({"room_id": "attic", "day": DAY}),
                Err(format!(
                    "Error executing tool find_slots: Unknown room 'attic'. Rooms: {ROOMS}."
                )),
            ),
            (
                "book_room",
                json!({"day": DAY, "hour": 9, "room_hint": "studio b"}),
                Err(format!(
                    "Error executing tool book_room: Studio B is already booked at 09:00 on {DAY}."
                )),
            ),
            (
                "book_room",
                json!({"day": DAY, "hour": 10, "room_hint": "the big room"}),
                Ok(booking(2, "great-hall", "Great Hall", 10)),
            ),
        ])
        .await;

        // No hint: the user is asked, and picks the Great Hall.
        user.will(ElicitationAnswer::Accept(json!({"room_id": "great-hall"})));
        assert_eq!(
            s.ok("book_room", json!({"day": DAY, "hour": 11})).await,
            booking(3, "great-hall", "Great Hall", 11)
        );
        let asked = user.asked();
        assert_eq!(asked.len(), 1, "{era:?}");
        assert_eq!(
            asked[0].message,
            format!("Which room for {DAY} at 11:00? Options: {ROOMS}.")
        );
        assert_eq!(
            asked[0].requested_schema["properties"]["room_id"]["type"],
            "string"
        );
        assert_eq!(asked[0].requested_schema["required"], json!(["room_id"]));
        // An ambiguous hint, and the user's answer is not a room.
        for (answer, expected) in [
            // The user declines: nothing is booked.
            (
                ElicitationAnswer::Decline,
                "Error executing tool book_room: No room was chosen, so nothing was booked.",
            ),
            // An answer that does not fit the form: a hidden error, as the reference's.
            (
                ElicitationAnswer::Accept(json!({})),
                "Error executing tool book_room",
            ),
        ] {
            user.will(answer);
            let args = json!({"day": DAY, "hour": 12, "room_hint": "studio"});
            assert_eq!(s.error("book_room", args).await, expected);
            assert_eq!(user.asked().len(), 1);
        }
        s.steps([
            (
                "find_slots",
                json!({"room_id": "studio-a", "day": DAY}),
                Ok(slots("studio-a", 9..17, 60)),
            ),
            (
                "cancel_booking",
                json!({"booking_id": "bk_3"}),
                Ok(json!({"result": "Cancelled bk_3."})),
            ),
            (
                "cancel_booking",
                json!({"booking_id": "bk_3"}),
                Ok(json!({"result": "No booking called bk_3 — nothing to cancel."})),
            ),
        ])
        .await;
        assert_eq!(
            s.protocol_error(
                "tools/call",
                json!({"name": "cancel_booking", "arguments": {"booking_id": "42"}})
            )
            .await,
            (
                -32602,
                "malformed booking id: '42' (expected bk_<number>)".to_owned()
            )
        );
        s.unknown_tool("find_slots, book_room, cancel_booking")
            .await;
        s.nameless_call().await;
        s.stop().await;

        // A client that cannot be asked is told to call again with a hint.
        let s = Served::start("atrium", era, None).await;
        assert_eq!(
            s.error("book_room", json!({"day": DAY, "hour": 11})).await,
            format!(
                "Error executing tool book_room: Which room? {ROOMS}. Call book_room again with \
                 room_hint set to one of them."
            )
        );
        s.stop().await;
    }
}
