use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(max = "10")] limit: u32) -> u32 {
    limit
}

fn main() {
    let _table = tools![list];
}
