use mcp_runtime::prelude::*;

struct Store(Vec<String>);

/// Adds a task.
#[tool]
fn add(store: &mut Store, title: String) -> usize {
    store.0.push(title);
    store.0.len()
}

fn main() {
    let _table = tools![add];
}
