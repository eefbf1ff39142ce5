use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(min = 0.5, exclusive_max = 9.5)] offset: i32) -> i32 {
    offset
}

fn main() {
    let _table = tools![list];
    let _ = list(3);
}
