use mcp_runtime::prelude::*;

/// Lists tasks, a page at a time.
#[tool]
fn list(
    /// How many tasks a page holds.
    #[arg(default = 10)]
    page_size: Option<u32>,
) -> u32 {
    page_size.unwrap_or(10)
}

fn main() {
    assert_eq!(list(None), 10);
    let _table = tools![list];
}
