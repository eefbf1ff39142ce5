use mcp_runtime::prelude::*;

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

struct Calculator;

impl Calculator {
    /// Subtracts, but the impl block has no `#[toolbox]`.
    fn sub(a: i64, b: i64) -> i64 {
        a - b
    }
}

fn main() {
    let _table = tools![add, Calculator];
    let _ = Calculator::sub(1, 2);
}
