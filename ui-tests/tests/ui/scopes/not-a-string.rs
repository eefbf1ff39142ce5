use mcp_runtime::prelude::*;

const READ: &str = "tickets:read";

/// Drafts a reply.
#[prompt(scopes = [READ])]
fn draft(id: String) -> String {
    id
}

fn main() {
    let _ = READ;
    let _table = prompts![draft];
}
