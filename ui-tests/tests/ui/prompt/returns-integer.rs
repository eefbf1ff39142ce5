use mcp_runtime::prelude::*;

/// Counts to a number.
#[prompt]
fn count(to: u32) -> u32 {
    to
}

fn main() {
    let _ = count(3);
    let _table = prompts![count];
}
