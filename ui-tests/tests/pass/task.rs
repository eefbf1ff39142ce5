//! Every form of the `task` key, on free fns and on a `#[toolbox]` method.

use mcp_runtime::prelude::*;

/// Optional: a task when the client can take one.
#[tool(task)]
async fn optional(seconds: u64) -> String {
    format!("{seconds}")
}

/// Only ever a task.
#[tool(task = "required")]
async fn required() -> String {
    String::new()
}

/// Never a task, said explicitly (a sync fn may say it).
#[tool(task = "forbidden")]
fn forbidden() -> String {
    String::new()
}

struct Jobs;

#[toolbox]
impl Jobs {
    /// A method that runs as a task.
    #[tool(task = "optional")]
    async fn run(&self) -> String {
        String::new()
    }
}

fn main() {
    let table = tools![optional, required, forbidden, Jobs];
    let support: Vec<_> = table.iter().map(|t| t.task_support()).collect();
    use mcp_runtime::tool::TaskSupport::*;
    assert_eq!(support, [Optional, Required, Forbidden, Optional]);
}
