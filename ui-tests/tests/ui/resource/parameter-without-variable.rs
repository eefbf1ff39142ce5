use mcp_runtime::prelude::*;

/// One note.
#[resource(uri = "notes://{title}")]
fn note(title: String, name: String) -> String {
    format!("{title} {name}")
}

fn main() {
    let _table = resources![note];
}
