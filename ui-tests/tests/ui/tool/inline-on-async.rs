use mcp_runtime::prelude::*;

/// Fetches a page.
#[tool(inline)]
async fn fetch(url: String) -> String {
    url
}

fn main() {
    let _table = tools![fetch];
}
