use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(min = -1)] limit: u32) -> u32 {
    limit
}

fn main() {
    let _table = tools![list];
    let _ = list(3);
}
