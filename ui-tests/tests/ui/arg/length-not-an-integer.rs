use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(#[arg(min_length = "3")] title: String) -> String {
    title
}

fn main() {
    let _table = tools![add];
}
