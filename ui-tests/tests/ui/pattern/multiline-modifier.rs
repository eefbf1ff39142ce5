use mcp_runtime::prelude::*;

/// Finds a task.
#[tool]
fn find(#[arg(pattern = "(?m:^T-\\d+$)")] id: String) -> String {
    id
}

fn main() {
    let _table = tools![find];
}
