use mcp_runtime::prelude::*;

/// Counts.
#[toolbox]
fn count() -> u32 {
    0
}

fn main() {
    let _ = count();
}
