use mcp_runtime::prelude::*;

/// Rebuilds the search index.
#[tool(task = true)]
async fn reindex(full: bool) -> String {
    format!("reindexed (full: {full})")
}

fn main() {
    let _table = tools![reindex];
}
