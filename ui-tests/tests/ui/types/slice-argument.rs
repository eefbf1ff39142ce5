use mcp_runtime::prelude::*;

/// Sums numbers.
#[tool]
fn sum(values: &[u32]) -> u32 {
    values.iter().sum()
}

fn main() {
    let _table = tools![sum];
}
