use mcp_runtime::prelude::*;

/// Greets someone.
#[tool]
fn greet(#[arg(pattern = "^\\p{L}+$")] name: String) -> String {
    name
}

fn main() {
    let _table = tools![greet];
    let _ = greet(String::new());
}
