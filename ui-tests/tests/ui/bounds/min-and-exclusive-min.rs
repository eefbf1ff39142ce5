use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(min = 1, exclusive_min = 0)] limit: i32) -> i32 {
    limit
}

fn main() {
    let _table = tools![list];
}
