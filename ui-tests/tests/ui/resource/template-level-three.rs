use mcp_runtime::prelude::*;

/// A search.
#[resource(uri = "search://items{?q}")]
fn search(q: String) -> String {
    q
}

fn main() {
    let _table = resources![search];
}
