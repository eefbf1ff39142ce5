use mcp_runtime::prelude::*;

/// Ignores its argument.
#[tool]
fn ignore(_: u32) -> bool {
    true
}

fn main() {
    let _table = tools![ignore];
}
