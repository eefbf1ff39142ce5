use mcp_runtime::prelude::*;

/// Deletes a task.
#[tool(read_only, destructive)]
fn delete(id: String) -> bool {
    id.is_empty()
}

fn main() {
    let _table = tools![delete];
}
