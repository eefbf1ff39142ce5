//! What the fuzz targets share: a server whose tools cover every argument shape the `#[tool]`
//! macro publishes, a current-thread runtime, and a panic hook that makes a contained panic
//! (one the runtime would turn into an internal error) a crash the fuzzer reports.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Once, OnceLock};

use mcp_runtime::prelude::*;
use serde_json::Value;

// A nested struct argument (`Address`) and a recursive one, published with a `$ref` to itself
// (`Tree`): the workspace's tests use the same types (this crate is its own workspace, so it
// includes the file by path).
#[path = "../../test-support/src/shapes.rs"]
mod shapes;
pub use shapes::{Address, Tree};

/// An internally tagged enum.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    Circle { radius: f64 },
    Square { side: u16 },
    Empty,
}

/// A unit enum (an `enum` of strings).
#[derive(Debug, Deserialize, JsonSchema, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Low,
    High,
}

/// Echo a name: a bounded, patterned string and an optional one.
#[tool(inline)]
pub fn text(
    #[arg(min_length = 1, max_length = 16, pattern = "^[a-z][a-z0-9_-]*$")] name: String,
    #[arg(max_length = 8)] note: Option<String>,
    level: Level,
) -> String {
    format!("{name} {note:?} {level:?}")
}

/// Add integers of several widths.
#[tool(inline)]
pub fn ints(
    a: i8,
    b: u8,
    #[arg(min = -1000, max = 1000)] c: i32,
    d: u64,
    #[arg(exclusive_min = 0)] e: i64,
    f: u16,
    #[arg(one_of = [1, 2, 3])] g: i16,
    h: Option<usize>,
) -> i128 {
    a as i128
        + b as i128
        + c as i128
        + d as i128
        + e as i128
        + f as i128
        + g as i128
        + h.unwrap_or(0) as i128
}

/// Floats and a bool, on the blocking pool.
#[tool]
pub fn floats(
    x: f64,
    #[arg(min = 0.0, max = 1.0)] y: f32,
    #[arg(exclusive_min = -1.5, exclusive_max = 1e10)] z: f64,
    flag: bool,
) -> Result<f64, ToolError> {
    if flag && x.is_nan() {
        return Err(ToolError::new("NaN"));
    }
    Ok(x * y as f64 + z)
}

/// Lists, sets and maps.
#[tool(inline)]
pub fn lists(
    #[arg(min_items = 1, max_items = 4)] items: Vec<u32>,
    tags: Option<Vec<String>>,
    set: std::collections::BTreeSet<i16>,
    map: HashMap<String, i32>,
    ordered: BTreeMap<String, Vec<bool>>,
) -> usize {
    items.len() + tags.map_or(0, |t| t.len()) + set.len() + map.len() + ordered.len()
}

/// A nested struct, a recursive one, a tagged enum and any JSON value.
#[tool]
pub async fn nested(
    address: Address,
    tree: Option<Tree>,
    shape: Shape,
    anything: Value,
    pair: (u8, String),
) -> Result<String, ToolError> {
    fn depth(t: &Tree) -> usize {
        1 + t.children.iter().map(depth).max().unwrap_or(0)
    }
    let _ = (&address.street_name, &address.zip, &address.tags, &pair);
    if matches!(shape, Shape::Empty) && anything.is_null() {
        return Err(ToolError::new("empty"));
    }
    Ok(format!("{}", tree.as_ref().map_or(0, depth)))
}

/// Defaults, and the request's context: progress, logs, cancellation.
#[tool]
pub async fn with_context(
    ctx: &Context,
    #[arg(default = 60, one_of = [30, 60, 120])] minutes: i64,
    #[arg(default = false)] shout: bool,
    #[arg(default = 3, min = 0, max = 5)] steps: u8,
) -> Result<String, ToolError> {
    for i in 0..steps {
        ctx.progress(i as f64, Some(steps as f64), Some("step"));
        ctx.log(LogLevel::Info, format!("step {i}"));
        tokio::task::yield_now().await;
        if ctx.is_cancelled() {
            return Err(ToolError::new("cancelled"));
        }
    }
    let _ = (
        ctx.tool_name(),
        ctx.request_id(),
        ctx.client_info(),
        ctx.protocol_version(),
    );
    let out = format!("{minutes} minutes");
    Ok(if shout { out.to_uppercase() } else { out })
}

/// No arguments at all.
#[tool(read_only, idempotent)]
pub fn nothing() -> Content {
    Content::text("nothing")
}

/// Names of the tools, for targets that pick one by index.
pub const TOOL_NAMES: &[&str] = &[
    "text",
    "ints",
    "floats",
    "lists",
    "nested",
    "with_context",
    "nothing",
    "missing",
];

/// The server, built once.
pub fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        Server::builder("fuzz", "0.0.0")
            .tools(tools![
                text,
                ints,
                floats,
                lists,
                nested,
                with_context,
                nothing
            ])
            .build()
            .expect("the fuzz server builds")
    })
}

/// The current-thread runtime, built once (timers enabled for the per-input timeout).
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
    })
}

/// Installs, once and after the runtime's own containment hook exists, a hook that aborts on
/// every panic. The runtime catches panics in message handling and in tool bodies and answers
/// an internal error; the fuzz tools never panic, so any panic at all is a runtime bug, and
/// libFuzzer sees it only if the process dies.
pub fn abort_on_any_panic() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Handling any message installs the runtime's hook first; ours then wraps it.
        let (conn, _rx) = mcp_runtime::Connection::new();
        let ping = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let _ = runtime().block_on(server().handle_value(ping, &conn));
        std::panic::set_hook(Box::new(|info| {
            eprintln!("PANIC (contained or not): {info}");
            eprintln!("{}", std::backtrace::Backtrace::force_capture());
            std::process::abort();
        }));
    });
}
