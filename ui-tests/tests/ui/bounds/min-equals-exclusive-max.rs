use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(minimum = 3, exclusive_maximum = 3)] limit: i32) -> i32 {
    limit
}

fn main() {
    let _table = tools![list];
}
