use mcp_runtime::prelude::*;

/// Counts words.
#[tool(read_onyl)]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _ = count(String::new());
    let _table = tools![count];
}
