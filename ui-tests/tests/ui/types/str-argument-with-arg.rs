use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(#[arg(min_length = 3)] title: &str) -> String {
    title.to_owned()
}

fn main() {
    let _table = tools![add];
}
