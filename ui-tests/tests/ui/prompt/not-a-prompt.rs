use mcp_runtime::prelude::*;

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let _ = add(1, 2);
    let _table = prompts![add];
}
