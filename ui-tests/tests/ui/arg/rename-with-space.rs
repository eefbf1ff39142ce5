use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(#[arg(rename = "task title")] title: String) -> String {
    title
}

fn main() {
    let _table = tools![add];
}
