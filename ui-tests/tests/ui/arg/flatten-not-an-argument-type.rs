use mcp_runtime::prelude::*;

struct Page {
    offset: u32,
}

/// Lists items.
#[tool]
fn list(#[arg(flatten)] page: Page) -> u32 {
    page.offset
}

fn main() {
    let _table = tools![list];
}
