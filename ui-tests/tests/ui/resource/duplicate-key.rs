use mcp_runtime::prelude::*;

/// The readme.
#[resource(uri = "docs://readme", uri = "docs://other")]
fn readme() -> String {
    "# Hello".into()
}

fn main() {
    let _table = resources![readme];
}
