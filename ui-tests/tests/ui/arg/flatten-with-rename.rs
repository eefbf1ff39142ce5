use mcp_runtime::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Page {
    offset: u32,
}

/// Lists items.
#[tool]
fn list(#[arg(flatten, rename = "page", min = 1)] page: Page) -> u32 {
    page.offset
}

fn main() {
    let _table = tools![list];
}
