use mcp_runtime::prelude::*;

/// The readme.
#[resource(uri = "docs://readme")]
fn readme() -> String {
    "# Hello".into()
}

/// The readme again.
#[resource(uri = "docs://readme")]
fn readme_again() -> String {
    "# Hello again".into()
}

fn main() {
    let _table = resources![readme, readme_again];
}
