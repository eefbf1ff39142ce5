use mcp_runtime::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Page {
    offset: u32,
}

/// Lists items.
#[tool]
fn list(#[arg(flatten)] from: Page, #[arg(flatten)] to: Page) -> u32 {
    to.offset - from.offset
}

fn main() {
    let _table = tools![list];
}
