use mcp_runtime::prelude::*;

/// One note.
#[resource(uri = "notes://{title}", size = 12)]
fn note(title: String) -> String {
    title
}

fn main() {
    let _table = resources![note];
}
