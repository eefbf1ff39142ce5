use mcp_runtime::prelude::*;

/// Counts words.
#[tool(read_onyl)]
fn count(#[arg(max_items = 3)] text: String, #[arg(min = 3, max = 2)] limit: u32) -> usize {
    text.split_whitespace().count().min(limit as usize)
}

fn main() {
    let _table = tools![count];
    let _ = count(String::new(), 1);
}
