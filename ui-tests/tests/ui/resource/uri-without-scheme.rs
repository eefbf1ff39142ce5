use mcp_runtime::prelude::*;

/// The readme.
#[resource(uri = "readme.md")]
fn readme() -> String {
    "# Hello".into()
}

fn main() {
    let _table = resources![readme];
}
