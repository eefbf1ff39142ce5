use mcp_runtime::prelude::*;

// uuid is a dependency of its own here, and mcp-runtime's `uuid1` feature is off: `Uuid` has no
// `JsonSchema`, and the note names the feature.

/// Closes an incident.
#[tool]
fn close(id: uuid::Uuid) -> String {
    id.to_string()
}

fn main() {
    let _table = tools![close];
}
