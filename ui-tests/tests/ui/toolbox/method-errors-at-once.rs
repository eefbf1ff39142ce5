use mcp_runtime::prelude::*;

struct Counter(u32);

#[toolbox]
impl Counter {
    /// Reads the count.
    #[tool(read_onyl)]
    fn read(&self, #[arg(max = 300)] scale: u8) -> u32 {
        self.0 * u32::from(scale)
    }

    /// Resets nothing: a second tool that is fine.
    #[tool]
    fn peek(&self) -> u32 {
        self.0
    }
}

fn main() {
    let _table = tools![Counter];
    let _ = (Counter(0).read(1), Counter(0).peek());
}
