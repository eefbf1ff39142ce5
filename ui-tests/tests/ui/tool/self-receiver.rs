use mcp_runtime::prelude::*;

struct Tracker;

impl Tracker {
    /// Counts tasks.
    #[tool]
    fn count(&self) -> usize {
        0
    }
}

fn main() {
    let _ = Tracker.count();
}
