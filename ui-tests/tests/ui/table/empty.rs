use mcp_runtime::prelude::*;

fn main() {
    let table = tools![];
    assert!(table.is_empty());
}
