use mcp_runtime::prelude::*;

/// Tags a task.
#[tool]
fn tag(#[arg(min_items = 1, default = vec![])] tags: Vec<String>) -> usize {
    tags.len()
}

fn main() {
    let _table = tools![tag];
    let _ = tag(Vec::new());
}
