use mcp_runtime::prelude::*;

fn main() {
    let _table: PromptTable = prompts![];
}
