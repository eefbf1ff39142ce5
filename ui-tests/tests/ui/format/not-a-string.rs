use mcp_runtime::prelude::*;

/// Sends a note.
#[tool]
fn notify(#[arg(format = email)] to: String) -> String {
    to
}

fn main() {
    let _table = tools![notify];
}
