use mcp_runtime::prelude::*;

/// Doubles a number.
#[tool]
unsafe fn double(n: u32) -> u32 {
    n * 2
}

fn main() {
    let _table = tools![double];
}
