use mcp_runtime::prelude::*;

/// Lists tasks.
#[tool]
fn list(#[arg(min = 0.5, max = -0.5)] limit: f64) -> f64 {
    limit
}

fn main() {
    let _table = tools![list];
}
