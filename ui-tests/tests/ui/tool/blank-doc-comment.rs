use mcp_runtime::prelude::*;

///
///
#[tool]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _table = tools![count];
}
