use mcp_runtime::prelude::*;

/// Sets the log level.
#[tool]
fn set_level(#[arg(exclusive_maximum = 0)] level: Option<u8>) -> u8 {
    level.unwrap_or(0)
}

fn main() {
    let _table = tools![set_level];
    let _ = set_level(None);
}
