use mcp_runtime::prelude::*;

struct Store(Vec<String>);

/// The store under another name.
type Tasks = Store;

/// Counts tasks.
#[tool]
fn count(store: &Store, tasks: &Tasks) -> usize {
    store.0.len() + tasks.0.len()
}

fn main() {
    let _table = tools![count];
}
