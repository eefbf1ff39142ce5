use mcp_runtime::prelude::*;

/// Sorts tasks.
#[tool]
fn sort(#[arg(one_of = ["asc", "desc", "asc"])] order: String) -> String {
    order
}

fn main() {
    let _table = tools![sort];
    let _ = sort(String::new());
}
