use mcp_runtime::prelude::*;

#[resource(uri = "docs://readme", description = "  ")]
fn readme() -> String {
    "# Hello".into()
}

fn main() {
    let _table = resources![readme];
}
