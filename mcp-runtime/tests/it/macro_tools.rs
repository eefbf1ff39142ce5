//! Tools of every shape through `#[tool]`, called the way `tools/call` calls them, and their
//! published contracts compared with golden files (`UPDATE_GOLDEN=1` rewrites them).
#![deny(missing_docs)]

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use mcp_runtime::prelude::*;
use mcp_runtime::{Contents, Tool};
use serde_json::{Value, json};
use test_support::call_detached as call;
use test_support::tasks::{Priority, Store, Task};

// ---- shared types ------------------------------------------------------------------------------

/// Which tasks to return.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Filter {
    min_priority: Priority,
    #[serde(rename = "q")]
    query: Option<String>,
    kind: Kind,
}

/// How a filter matches.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Kind {
    Exact,
    Prefix { len: u8 },
}

// ---- tools ---------------------------------------------------------------------------------------

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Add an open task and return it with its new ID.
///
/// The ID is `T-` followed by a counter.
#[tool(title = "Add task", idempotent = false)]
async fn add_task(
    store: &Store,
    /// The task's title.
    #[arg(min_length = 3, max_length = 80)]
    title: String,
    #[arg(default = Priority::Normal)] priority: Priority,
    /// A note kept with the task.
    note: Option<String>,
) -> Result<Task, ToolError> {
    if title == "nope" {
        return Err(ToolError::new("no nope"));
    }
    let _ = note;
    Ok(store.add(title, priority))
}

/// Search the tracker.
#[tool(
    name = "tracker.search",
    read_only,
    destructive = false,
    idempotent = true,
    open_world = false
)]
fn search(
    /// Words to look for.
    #[arg(pattern = "^[a-z ]+$", min_length = 1, max_length = 40, rename = "q")]
    query: String,
    #[arg(min = 1, max = 100, default = 10)] limit: u32,
    #[arg(
        exclusive_min = 0.0,
        exclusive_maximum = 1.0,
        description = "Share to keep."
    )]
    ratio: f64,
    #[arg(minimum = -5, maximum = 5)] offset: Option<i32>,
    #[arg(min_items = 1, max_items = 3)] tags: Vec<String>,
    #[arg(one_of = ["asc", "desc"], default = "asc".to_string())] order: String,
    #[arg(one_of = [1, 2, 3])] level: Option<u8>,
) -> String {
    format!("{query}|{limit}|{ratio}|{offset:?}|{tags:?}|{order}|{level:?}")
}

/// Every number type.
#[tool]
#[allow(clippy::too_many_arguments)]
fn numbers(
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: isize,
    f: u8,
    g: u16,
    h: u32,
    i: u64,
    j: usize,
    x: f32,
    y: f64,
    flag: bool,
) -> f64 {
    let ints = a as f64 + b as f64 + c as f64 + d as f64 + e as f64;
    let uints = f as f64 + g as f64 + h as f64 + i as f64 + j as f64;
    let total = ints + uints + x as f64 + y;
    if flag { -total } else { total }
}

/// Collections and free-form JSON.
#[tool]
fn collections(
    list: Vec<u32>,
    sorted: BTreeSet<String>,
    unique: HashSet<u8>,
    counts: HashMap<String, i64>,
    extra: Value,
) -> Vec<String> {
    vec![
        list.iter().sum::<u32>().to_string(),
        sorted.into_iter().collect::<Vec<_>>().join(","),
        unique.len().to_string(),
        counts.values().sum::<i64>().to_string(),
        extra.to_string(),
    ]
}

/// Filter tasks with a nested filter.
#[tool]
fn filter_tasks(filter: Filter) -> Vec<Task> {
    let len = match filter.kind {
        Kind::Exact => 0,
        Kind::Prefix { len } => len,
    };
    vec![Task {
        id: format!("T-{len}"),
        title: filter.query.unwrap_or_default(),
        priority: filter.min_priority,
    }]
}

/// Which tool is this?
#[tool]
async fn whoami(ctx: &Context) -> String {
    ctx.tool_name().to_owned()
}

/// Count the tasks.
#[tool(read_only)]
fn count_tasks(store: &Store, _: &Context) -> u32 {
    store.0.lock().unwrap().len() as u32
}

/// Find a task.
#[tool]
fn find_task(store: &Store, id: String) -> Option<Task> {
    store.0.lock().unwrap().iter().find(|t| t.id == id).cloned()
}

/// Read a file that is never there.
#[tool]
fn read_missing() -> Result<String, std::io::Error> {
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "secret path /etc/x",
    ))
}

/// A picture.
#[tool]
fn picture() -> Content {
    Content::image("aGk=", "image/png")
}

/// Two blocks.
#[tool]
fn two_blocks() -> Contents {
    Contents(vec![Content::text("one"), Content::text("two")])
}

/// A raw result.
#[tool]
fn raw_result() -> CallToolResult {
    CallToolResult::error_text("raw failure")
}

/// Do nothing.
#[tool]
fn nothing() {}

/// Ignored doc comment.
#[tool(description = "The attribute wins.")]
fn described(r#type: String) -> String {
    r#type
}

#[doc = concat!("Built ", "from a macro.")]
#[tool]
fn macro_doc() -> bool {
    true
}

mod rt {
    pub use mcp_runtime::*;
}

/// Uses a re-exported runtime.
#[tool(crate = rt)]
fn reexported() -> u8 {
    7
}

/// Public tools stay documented under `#![deny(missing_docs)]`.
pub mod public {
    use mcp_runtime::prelude::*;

    /// Ping the server.
    #[tool]
    pub fn ping() -> String {
        "pong".into()
    }
}

// ---- harness -----------------------------------------------------------------------------------

fn table() -> ToolTable {
    tools![
        add,
        add_task,
        search,
        numbers,
        collections,
        filter_tasks,
        whoami,
        count_tasks,
        find_task,
        read_missing,
        picture,
        two_blocks,
        raw_result,
        nothing,
        described,
        macro_doc,
        reexported,
        public::ping,
    ]
}

fn state() -> Arc<StateMap> {
    let mut state = StateMap::new();
    state.insert(Store::default());
    Arc::new(state)
}

// ---- calls ---------------------------------------------------------------------------------------

#[tokio::test]
async fn sync_tool_returns_a_wrapped_number() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "add", json!({"a": 2, "b": 40})).await;
    assert!(!r.is_error);
    assert_eq!(r.first_text(), Some("42"));
    assert_eq!(r.structured_content, Some(json!({"result": 42})));
}

#[tokio::test]
async fn async_tool_with_state_default_and_option() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "add_task", json!({"title": "Tag v1.2"})).await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(
        r.structured_content,
        Some(json!({"id": "T-1", "title": "Tag v1.2", "priority": "normal"}))
    );
    let r = call(
        &t,
        &s,
        "add_task",
        json!({"title": "Ship", "priority": "high", "note": null}),
    )
    .await;
    assert_eq!(r.structured_content.unwrap()["priority"], "high");

    let r = call(&t, &s, "count_tasks", json!({})).await;
    assert_eq!(r.structured_content, Some(json!({"result": 2})));

    let r = call(&t, &s, "find_task", json!({"id": "T-2"})).await;
    assert_eq!(r.structured_content.unwrap()["result"]["title"], "Ship");
    let r = call(&t, &s, "find_task", json!({"id": "T-9"})).await;
    assert_eq!(r.structured_content, Some(json!({"result": null})));
    assert_eq!(r.first_text(), Some("null"));
}

#[tokio::test]
async fn visible_and_hidden_errors() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "add_task", json!({"title": "nope"})).await;
    assert!(r.is_error);
    assert_eq!(
        r.first_text(),
        Some("Error executing tool add_task: no nope")
    );

    let r = call(&t, &s, "read_missing", json!({})).await;
    assert!(r.is_error);
    assert_eq!(r.first_text(), Some("Error executing tool read_missing"));
    assert!(r.meta.unwrap()["errorId"].is_string());
}

#[tokio::test]
async fn every_arg_key_reaches_the_function() {
    let (t, s) = (table(), state());
    let r = call(
        &t,
        &s,
        "tracker.search",
        json!({"q": "release notes", "ratio": 0.5, "tags": ["a"], "level": 2}),
    )
    .await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(
        r.first_text(),
        Some("release notes|10|0.5|None|[\"a\"]|asc|Some(2)")
    );
    // A string result: the text block is the string, structured content wraps it.
    assert_eq!(
        r.structured_content.unwrap()["result"],
        "release notes|10|0.5|None|[\"a\"]|asc|Some(2)"
    );
    let r = call(
        &t,
        &s,
        "tracker.search",
        json!({"q": "x", "limit": 3, "ratio": 0.25, "offset": -5, "tags": ["a", "b"], "order": "desc"}),
    )
    .await;
    assert_eq!(
        r.first_text(),
        Some("x|3|0.25|Some(-5)|[\"a\", \"b\"]|desc|None")
    );
}

#[tokio::test]
async fn every_number_type() {
    let (t, s) = (table(), state());
    let args = json!({
        "a": -1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10,
        "x": 0.5, "y": 0.25, "flag": true
    });
    let r = call(&t, &s, "numbers", args).await;
    assert_eq!(r.structured_content, Some(json!({"result": -53.75})));
}

#[tokio::test]
async fn collections_and_json_values() {
    let (t, s) = (table(), state());
    let args = json!({
        "list": [1, 2, 3],
        "sorted": ["b", "a"],
        "unique": [1, 2],
        "counts": {"x": 4, "y": -1},
        "extra": {"k": [true]}
    });
    let r = call(&t, &s, "collections", args).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"result": ["6", "a,b", "2", "3", "{\"k\":[true]}"]}))
    );
}

#[tokio::test]
async fn nested_struct_and_enum_with_serde_renames() {
    let (t, s) = (table(), state());
    let args =
        json!({"filter": {"minPriority": "low", "q": "abc", "kind": {"type": "prefix", "len": 3}}});
    let r = call(&t, &s, "filter_tasks", args).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"result": [{"id": "T-3", "title": "abc", "priority": "low"}]}))
    );
}

#[tokio::test]
async fn context_is_injected() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "whoami", json!({})).await;
    assert_eq!(r.first_text(), Some("whoami"));
    assert_eq!(r.structured_content, Some(json!({"result": "whoami"})));
}

#[tokio::test]
async fn content_return_types() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "picture", json!({})).await;
    assert_eq!(r.content, vec![Content::image("aGk=", "image/png")]);
    assert_eq!(r.structured_content, None);

    let r = call(&t, &s, "two_blocks", json!({})).await;
    assert_eq!(r.content, vec![Content::text("one"), Content::text("two")]);

    let r = call(&t, &s, "raw_result", json!({})).await;
    assert!(r.is_error);
    assert_eq!(r.first_text(), Some("raw failure"));

    let r = call(&t, &s, "nothing", json!({})).await;
    assert_eq!(r.structured_content, Some(json!({"result": null})));
}

#[tokio::test]
async fn names_descriptions_and_reexported_root() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "described", json!({"type": "raw ident"})).await;
    assert_eq!(r.first_text(), Some("raw ident"));
    let tool = t.get("described").unwrap();
    assert_eq!(tool.description(), "The attribute wins.");
    assert_eq!(
        t.get("macro_doc").unwrap().description(),
        "Built from a macro."
    );
    assert_eq!(
        t.get("add_task").unwrap().description(),
        "Add an open task and return it with its new ID.\n\nThe ID is `T-` followed by a counter."
    );
    let r = call(&t, &s, "reexported", json!({})).await;
    assert_eq!(r.structured_content, Some(json!({"result": 7})));
    let r = call(&t, &s, "ping", json!({})).await;
    assert_eq!(r.first_text(), Some("pong"));
}

#[test]
fn state_requirements_come_from_injected_parameters() {
    let t = table();
    let reqs = |name: &str| {
        t.get(name)
            .unwrap()
            .state_requirements()
            .iter()
            .map(|r| r.type_name)
            .collect::<Vec<_>>()
    };
    assert_eq!(reqs("add_task"), [std::any::type_name::<Store>()]);
    assert_eq!(reqs("count_tasks"), [std::any::type_name::<Store>()]);
    assert!(reqs("whoami").is_empty(), "the context is not state");
    assert!(reqs("add").is_empty());
}

#[test]
fn functions_stay_callable() {
    assert_eq!(add(1, 2), 3);
    assert_eq!(described("t".into()), "t");
    nothing();
    assert_eq!(public::ping(), "pong");
}

// ---- golden contracts ------------------------------------------------------------------------------

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares a tool's published JSON with `tests/golden/<name>.json`; a mismatch prints a diff.
fn check_golden(tool: &Tool) -> Result<(), String> {
    let path = golden_dir().join(format!("{}.json", tool.name()));
    let actual = serde_json::to_string_pretty(tool.to_json()).unwrap() + "\n";
    test_support::golden::check(&path, &actual, "UPDATE_GOLDEN=1")
}

#[test]
fn published_contracts_match_golden_files() {
    let failures: Vec<String> = table()
        .iter()
        .filter_map(|tool| check_golden(tool).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
