use mcp_runtime::prelude::*;

fn titles(_prefix: &str) -> Vec<String> {
    vec![]
}

/// One note.
#[resource(uri = "notes://{title}", complete(name = titles))]
fn note(title: String) -> String {
    title
}

fn main() {
    let _table = resources![note];
}
