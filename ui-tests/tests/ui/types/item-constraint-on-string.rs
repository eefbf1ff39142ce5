use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(#[arg(max_items = 3)] title: String) -> String {
    title
}

fn main() {
    let _table = tools![add];
}
