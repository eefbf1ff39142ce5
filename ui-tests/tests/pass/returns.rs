//! Every return shape, sync and async, with injected state and context.
#![deny(warnings, missing_docs, unused, nonstandard_style)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime::Contents;
use mcp_runtime::prelude::*;

/// A summary.
#[derive(Serialize, JsonSchema)]
pub struct Summary {
    /// How many.
    pub count: u64,
}

/// One state value.
#[derive(Default)]
pub struct Counter(AtomicU64);

/// Another state value.
#[derive(Default)]
pub struct Log(Mutex<Vec<String>>);

/// Returns a struct.
#[tool]
pub fn summary(counter: &Counter) -> Summary {
    Summary {
        count: counter.0.load(Ordering::Relaxed),
    }
}

/// Returns a string.
#[tool]
pub async fn text(ctx: &Context) -> String {
    ctx.tool_name().to_owned()
}

/// Returns a number.
#[tool]
pub fn number(counter: &Counter, log: &Log, ctx: &Context) -> u64 {
    log.0.lock().unwrap().push(ctx.tool_name().to_owned());
    counter.0.fetch_add(1, Ordering::Relaxed)
}

/// Returns a list.
#[tool]
pub async fn list(log: &Log) -> Vec<String> {
    let entries = log.0.lock().unwrap().clone();
    tokio::task::yield_now().await;
    entries
}

/// Returns an option.
#[tool]
pub fn maybe(n: Option<u8>) -> Option<u8> {
    n
}

/// Returns nothing.
#[tool]
pub async fn nothing() {}

/// Returns a result with a tool error.
#[tool]
pub fn checked(n: u32) -> Result<Summary, ToolError> {
    if n == 0 {
        return Err(ToolError::new("n must be positive"));
    }
    Ok(Summary {
        count: u64::from(n),
    })
}

/// Returns a result with an I/O error, hidden from the model.
#[tool]
pub async fn read(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

/// Returns one content block.
#[tool]
pub fn block() -> Content {
    Content::text("one")
}

/// Returns several content blocks.
#[tool]
pub fn blocks() -> Contents {
    Contents(vec![Content::text("one"), Content::text("two")])
}

/// Returns a whole call result.
#[tool]
pub async fn whole(ctx: &Context) -> CallToolResult {
    CallToolResult::success(vec![Content::text(ctx.tool_name())])
}

fn main() {
    let table = tools![
        summary, text, number, list, maybe, nothing, checked, read, block, blocks, whole
    ];
    assert_eq!(table.len(), 11);
    assert!(
        table
            .get("block")
            .unwrap()
            .to_json()
            .get("outputSchema")
            .is_none()
    );
    assert!(
        table
            .get("summary")
            .unwrap()
            .to_json()
            .get("outputSchema")
            .is_some()
    );
}
