use mcp_runtime::prelude::*;

/// One page.
#[resource(uri = "pages://{number}")]
fn page(number: u32) -> String {
    number.to_string()
}

fn main() {
    let _table = resources![page];
}
