use mcp_runtime::prelude::*;

/// Counts words.
#[tool]
fn zählen(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _table = tools![zählen];
}
