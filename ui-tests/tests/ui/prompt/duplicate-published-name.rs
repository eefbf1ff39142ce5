use mcp_runtime::prelude::*;

/// Greets someone.
#[prompt]
fn greet(name: String) -> String {
    format!("Say hello to {name}.")
}

/// Greets someone else.
#[prompt(name = "greet")]
fn greet_again(name: String) -> String {
    format!("Say hello again to {name}.")
}

fn main() {
    let _ = greet(String::new());
    let _ = greet_again(String::new());
    let _table = prompts![greet, greet_again];
}
