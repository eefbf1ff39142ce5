use mcp_runtime::prelude::*;

/// Greets someone.
#[prompt(name = "say hello")]
fn hello(who: Option<String>) -> PromptMessage {
    PromptMessage::user(who.unwrap_or_default())
}

fn main() {
    let _ = hello(None);
    let _table = prompts![hello];
}
