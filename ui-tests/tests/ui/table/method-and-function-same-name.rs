use mcp_runtime::prelude::*;

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

struct Calculator;

#[toolbox]
impl Calculator {
    /// Adds two numbers, checked.
    #[tool(name = "add")]
    fn add_checked(a: i64, b: i64) -> Option<i64> {
        a.checked_add(b)
    }
}

fn main() {
    let _table = tools![add, Calculator];
}
