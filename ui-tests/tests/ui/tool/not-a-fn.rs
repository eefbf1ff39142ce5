use mcp_runtime::prelude::*;

/// A task.
#[tool]
struct Task {
    id: String,
}

fn main() {
    let _ = Task { id: String::new() };
}
