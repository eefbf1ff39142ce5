//! Shapes that must compile without a warning, under strict lints.
#![deny(warnings, missing_docs, unused, nonstandard_style)]

use std::sync::Mutex;

use mcp_runtime::prelude::*;

/// A task.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// Its id.
    pub id: String,
}

/// The store.
#[derive(Default)]
pub struct Store(Mutex<Vec<Task>>);

/// Adds two numbers.
#[tool]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Adds a task.
#[tool(title = "Add task", idempotent = false, open_world = false)]
pub async fn add_task(
    store: &Store,
    ctx: &Context,
    /// The title.
    #[arg(min_length = 1, max_length = 80, pattern = "^[^\\n]+$")]
    title: String,
    #[arg(min = 1, max = 5, default = 3)] priority: u8,
    #[arg(one_of = ["a", "b"])] lane: Option<String>,
    mut tags: Vec<String>,
) -> Result<Task, ToolError> {
    tags.sort();
    let _ = (ctx.tool_name(), priority, lane, tags);
    let mut v = store.0.lock().unwrap();
    let t = Task {
        id: format!("{}-{}", title, v.len()),
    };
    v.push(t.clone());
    Ok(t)
}

/// Takes no arguments and returns nothing.
#[tool(read_only)]
pub fn noop() {}

/// Takes only the context.
#[tool]
async fn context_only(_: &Context) -> CallToolResult {
    CallToolResult::success(vec![Content::text("ok")])
}

/// Raw identifiers are published without `r#`.
#[tool(name = "type")]
fn r#type(r#match: String) -> String {
    r#match
}

mod nested {
    pub mod deeper {
        use mcp_runtime::prelude::*;

        /// A tool two modules down.
        #[tool]
        pub(crate) fn deep(#[arg(exclusive_min = -1.5, exclusive_max = 1e3)] x: f64) -> f64 {
            x
        }
    }
}

mod rt {
    pub use mcp_runtime::*;
}

/// A tool for a re-exported runtime.
#[tool(crate = rt)]
fn through_reexport(
    #[arg(min_items = 0, max_items = 2)] xs: std::collections::BTreeSet<u8>,
) -> usize {
    xs.len()
}

/// Type aliases are seen through by the type system, not by the macro.
type MaybeText = Option<String>;

/// An aliased optional argument.
#[tool]
fn aliased(#[arg(max_length = 3)] text: MaybeText) -> bool {
    text.is_some()
}

fn main() {
    /// A tool declared inside a function.
    #[tool]
    fn local(n: u32) -> u32 {
        n
    }

    let table = tools![
        add,
        add_task,
        noop,
        context_only,
        r#type,
        nested::deeper::deep,
        local,
        aliased,
    ];
    assert_eq!(table.len(), 8);
    assert!(table.get("type").is_some());
    let props = &table.get("type").unwrap().input_schema()["properties"];
    assert!(props.get("match").is_some());
    let aliased = &table.get("aliased").unwrap().input_schema();
    assert!(
        aliased.get("required").is_none(),
        "an aliased Option is optional"
    );
    let table = tools![crate = rt; through_reexport];
    assert_eq!(table.names(), ["through_reexport"]);
    assert_eq!(add(1, 2), 3);
    noop();
}
