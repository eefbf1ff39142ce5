use mcp_runtime::prelude::*;

/// Greets someone.
#[prompt(read_only)]
fn greet(name: String) -> String {
    format!("Say hello to {name}.")
}

fn main() {
    let _ = greet(String::new());
    let _table = prompts![greet];
}
