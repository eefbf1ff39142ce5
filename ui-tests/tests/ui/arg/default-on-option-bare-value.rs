use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(default = 10)] limit: Option<u32>) -> u32 {
    limit.unwrap_or(10)
}

fn main() {
    let _table = tools![list];
    let _ = list(None);
}
