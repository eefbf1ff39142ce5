use mcp_runtime::prelude::*;

/// Looks a product up.
#[tool]
fn lookup(#[arg(pattern = 5)] sku: String) -> String {
    sku
}

fn main() {}
