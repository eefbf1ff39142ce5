use mcp_runtime::prelude::*;

/// Doubles a number.
#[tool]
fn double(n: u32) -> u32
where
    u32: Copy,
{
    n * 2
}

fn main() {
    let _table = tools![double];
}
