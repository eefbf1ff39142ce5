use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(title: impl Into<String>) -> String {
    title.into()
}

fn main() {
    let _table = tools![add];
}
