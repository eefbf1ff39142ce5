use mcp_runtime::prelude::*;

/// The readme.
#[resource(uri = "docs://readme", annotations(audience = ["robots"], priority = 2))]
fn readme() -> String {
    "# Hello".into()
}

fn main() {
    let _table = resources![readme];
}
