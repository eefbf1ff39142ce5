use mcp_runtime::prelude::*;

/// One note.
#[resource(uri = "notes://{title}")]
fn note() -> String {
    "a note".into()
}

fn main() {
    let _table = resources![note];
}
