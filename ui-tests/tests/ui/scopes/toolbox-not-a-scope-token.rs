use mcp_runtime::prelude::*;

struct Desk;

#[toolbox(scopes = ["tickets:réad"])]
impl Desk {
    /// Counts the open tickets.
    #[tool]
    fn open_count(&self) -> u32 {
        3
    }
}

fn main() {
    let _table = tools![Desk];
}
