use mcp_runtime::prelude::*;

/// Parses a number.
#[tool]
fn parse(text: String) -> Result<u32, String> {
    text.parse().map_err(|_| format!("`{text}` is not a number"))
}

fn main() {
    let _table = tools![parse];
}
