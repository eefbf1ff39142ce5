use mcp_runtime::prelude::*;

/// The readme.
#[resource(uri = "docs://read me")]
fn readme() -> String {
    "# Hello".into()
}

fn main() {
    let _table = resources![readme];
}
