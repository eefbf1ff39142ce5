use mcp_runtime::prelude::*;

/// Names the tool twice.
#[tool]
fn names(first: &Context, second: &Context) -> String {
    format!("{} {}", first.tool_name(), second.tool_name())
}

fn main() {
    let _table = tools![names];
}
