use mcp_runtime::prelude::*;

/// Sets the log level.
#[tool]
fn set_level(#[arg(maximum = 300)] level: u8) -> u8 {
    level
}

fn main() {
    let _table = tools![set_level];
    let _ = set_level(3);
}
