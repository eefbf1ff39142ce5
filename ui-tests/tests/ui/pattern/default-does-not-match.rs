use mcp_runtime::prelude::*;

/// Finds a task.
#[tool]
fn find(#[arg(pattern = "^T-[0-9]+$", default = String::from("T-one"))] id: String) -> String {
    id
}

fn main() {
    let _table = tools![find];
    let _ = find(String::new());
}
