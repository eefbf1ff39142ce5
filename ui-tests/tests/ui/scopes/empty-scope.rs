use mcp_runtime::prelude::*;

/// Closes a ticket.
#[tool(scopes = ["tickets:write", ""])]
fn close(id: u32) -> u32 {
    id
}

fn main() {
    let _table = tools![close];
}
