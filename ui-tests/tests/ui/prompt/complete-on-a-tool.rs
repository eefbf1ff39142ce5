use mcp_runtime::prelude::*;

fn titles(_request: &CompleteRequest) -> Vec<String> {
    Vec::new()
}

/// Reads a note.
#[tool]
fn read(#[arg(complete = titles)] title: String) -> String {
    title
}

fn main() {
    let _ = titles(&CompleteRequest::new("title", ""));
    let _ = read(String::new());
    let _table = tools![read];
}
