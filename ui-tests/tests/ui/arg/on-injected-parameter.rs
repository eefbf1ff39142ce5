use mcp_runtime::prelude::*;

struct Store(Vec<String>);

/// Counts tasks.
#[tool]
fn count(#[arg(description = "The store.")] store: &Store) -> usize {
    store.0.len()
}

fn main() {
    let _table = tools![count];
}
