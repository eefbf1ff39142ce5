use mcp_runtime::prelude::*;

/// Counts words.
#[tool(crate = 1)]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _table = tools![count];
    let _ = count(String::new());
}
