use mcp_runtime::prelude::*;

/// Parses a number.
#[tool]
fn parse(text: String) -> Result<u32, i32> {
    text.parse().map_err(|_| -1)
}

fn main() {
    let _table = tools![parse];
}
