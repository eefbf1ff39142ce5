use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(#[arg(max_length = -1)] title: String) -> String {
    title
}

fn main() {
    let _table = tools![add];
}
