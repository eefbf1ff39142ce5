use mcp_runtime::prelude::*;

struct Counter(u32);

#[toolbox]
impl Counter {
    /// Reads the count.
    #[tool]
    fn read(self) -> u32 {
        self.0
    }
}

fn main() {
    let _table = tools![Counter];
    let _ = Counter(0).read();
}
