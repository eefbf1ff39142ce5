use mcp_runtime::prelude::*;

/// The readme.
#[resource(mime_type = "text/markdown")]
fn readme() -> String {
    "# Hello".into()
}

fn main() {
    let _table = resources![readme];
}
