use mcp_runtime::prelude::*;

/// The readme.
#[resource(uri = "docs://readme", mime_typ = "text/markdown")]
fn readme() -> String {
    "# Hello".into()
}

fn main() {
    let _table = resources![readme];
}
