use mcp_runtime::prelude::*;

struct Counter(std::cell::Cell<u32>);

/// Reads the counter.
#[tool]
fn read(counter: &Counter) -> u32 {
    counter.0.get()
}

fn main() {
    let _table = tools![read];
}
