use mcp_runtime::prelude::*;
use mcp_runtime::serde::Deserialize;

// A foreign type in a field of the user's own struct: schemars' derive asks for its
// `JsonSchema`, which only mcp-runtime's feature for its crate (`uuid1`) provides. The error is
// schemars' own (no note of ours can reach inside its derive); docs/compile-errors.md and the
// guide name the feature.

/// An incident.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
struct Incident {
    /// Its id.
    id: uuid::Uuid,
}

/// Closes an incident.
#[tool]
fn close(incident: Incident) -> String {
    incident.id.to_string()
}

fn main() {
    let _table = tools![close];
}
