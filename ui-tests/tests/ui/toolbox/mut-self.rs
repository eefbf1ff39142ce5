use mcp_runtime::prelude::*;

struct Counter(u32);

#[toolbox]
impl Counter {
    /// Adds one.
    #[tool]
    fn bump(&mut self) -> u32 {
        self.0 += 1;
        self.0
    }
}

fn main() {
    let _table = tools![Counter];
    let _ = Counter(0).bump();
}
