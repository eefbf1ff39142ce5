use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(title: String, #[arg(rename = "title")] name: String) -> String {
    title + &name
}

fn main() {
    let _table = tools![add];
}
