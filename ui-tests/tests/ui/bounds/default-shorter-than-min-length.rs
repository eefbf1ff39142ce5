use mcp_runtime::prelude::*;

/// Adds a task.
#[tool]
fn add(#[arg(min_length = 3, default = "ab".to_string())] title: String) -> String {
    title
}

fn main() {
    let _table = tools![add];
    let _ = add(String::new());
}
