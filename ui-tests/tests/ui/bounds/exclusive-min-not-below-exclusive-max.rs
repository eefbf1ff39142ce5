use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(exclusive_min = 5, exclusive_max = 5)] limit: i32) -> i32 {
    limit
}

fn main() {
    let _table = tools![list];
}
