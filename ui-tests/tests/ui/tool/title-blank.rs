use mcp_runtime::prelude::*;

/// Counts words.
#[tool(title = " ")]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _table = tools![count];
    let _ = count(String::new());
}
