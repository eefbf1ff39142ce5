use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(title: String) -> impl Serialize {
    title
}

fn main() {
    let _table = tools![add];
}
