use mcp_runtime::prelude::*;

const SKU_DIGITS: u32 = 4;

/// Looks a product up.
#[tool]
fn lookup(#[arg(pattern = SKU_DIGITS)] sku: String) -> String {
    sku
}

fn main() {}
