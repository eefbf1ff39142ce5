use mcp_runtime::prelude::*;

/// One ticket.
#[resource(uri = "tickets://{id}", scopes = ["tickets:read", "tickets:read"])]
fn ticket(id: String) -> String {
    id
}

fn main() {
    let _table = resources![ticket];
}
