use mcp_runtime::prelude::*;

struct Store<T>(Vec<T>);

#[toolbox]
impl<T: Send + Sync + 'static> Store<T> {
    /// Counts the items.
    #[tool]
    fn count(&self) -> usize {
        self.0.len()
    }
}

fn main() {
    let _table = tools![Store<u8>];
    let _ = Store::<u8>(Vec::new()).count();
}
