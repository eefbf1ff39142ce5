use mcp_runtime::prelude::*;

/// Sorts tasks.
#[tool]
fn sort(#[arg(one_of = "asc")] order: String) -> String {
    order
}

fn main() {
    let _table = tools![sort];
}
