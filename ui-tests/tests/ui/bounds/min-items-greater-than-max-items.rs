use mcp_runtime::prelude::*;

/// Tags a task.
#[tool]
fn tag(#[arg(min_items = 3, max_items = 1)] tags: Vec<String>) -> usize {
    tags.len()
}

fn main() {
    let _table = tools![tag];
}
