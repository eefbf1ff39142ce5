use mcp_runtime::prelude::*;

/// Echoes a value.
#[tool]
fn echo<T: Clone>(value: u32) -> u32 {
    value
}

fn main() {
    let _table = tools![echo];
}
