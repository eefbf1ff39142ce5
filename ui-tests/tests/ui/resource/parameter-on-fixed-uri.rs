use mcp_runtime::prelude::*;

/// The readme.
#[resource(uri = "docs://readme")]
fn readme(section: String) -> String {
    section
}

fn main() {
    let _table = resources![readme];
}
