use mcp_runtime::prelude::*;
use std::rc::Rc;

/// Counts to n, slowly.
#[tool]
async fn count(n: u32) -> u32 {
    let step = Rc::new(1);
    tokio::task::yield_now().await;
    n + *step
}

fn main() {
    let _table = tools![count];
    let _future = count(1);
}
