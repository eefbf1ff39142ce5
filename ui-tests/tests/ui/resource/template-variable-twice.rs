use mcp_runtime::prelude::*;

/// A pair.
#[resource(uri = "pair://{a}/{a}")]
fn pair(a: String) -> String {
    a
}

fn main() {
    let _table = resources![pair];
}
