use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(max = 10, exclusive_max = 11)] limit: i32) -> i32 {
    limit
}

fn main() {
    let _table = tools![list];
}
