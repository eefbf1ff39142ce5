use mcp_runtime::prelude::*;

#[prompt(description = "   ")]
fn shout(text: String) -> String {
    text.to_uppercase()
}

fn main() {
    let _ = shout(String::new());
    let _table = prompts![shout];
}
