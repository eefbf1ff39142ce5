use mcp_runtime::prelude::*;

/// Counts words.
#[tool(name = count_words)]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _table = tools![count];
}
