use mcp_runtime::prelude::*;

// uuid is a dependency of its own here, and mcp-runtime's `uuid1` feature is off: `Uuid` is no
// template variable, and the note names the feature.

/// One incident.
#[resource(uri = "incidents://{id}")]
fn incident(id: uuid::Uuid) -> String {
    id.to_string()
}

fn main() {
    let _table = resources![incident];
}
