use mcp_runtime::prelude::*;

/// Counts words.
#[tool(nmae = "count", read_only = 1, title = 3)]
fn count(#[arg(min_length = -1, max_len = 4)] text: String, #[arg(min = 3, max = 2)] limit: u32) -> usize {
    text.split_whitespace().count().min(limit as usize)
}

fn main() {
    let _table = tools![count];
}
