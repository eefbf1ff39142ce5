use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(min = 10, max = 1)] limit: i32) -> i32 {
    limit
}

fn main() {
    let _table = tools![list];
}
