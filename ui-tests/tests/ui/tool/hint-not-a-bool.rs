use mcp_runtime::prelude::*;

/// Counts words.
#[tool(read_only = "yes")]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _table = tools![count];
}
