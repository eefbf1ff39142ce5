use mcp_runtime::prelude::*;

/// Adds a task.
#[tool(rename_all = "camelcase")]
fn add(task_title: String) -> String {
    task_title
}

fn main() {
    let _table = tools![add];
    let _ = add(String::new());
}
