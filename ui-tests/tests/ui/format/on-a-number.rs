use mcp_runtime::prelude::*;

/// Finds a task.
#[tool]
fn find(#[arg(format = "uuid")] id: u64) -> u64 {
    id
}

fn main() {
    let _table = tools![find];
    let _ = find(7);
}
