use mcp_runtime::prelude::*;

/// Summarizes a note.
#[prompt]
fn summarize(#[arg(complete = "titles")] title: String) -> String {
    format!("Summarize {title}.")
}

fn main() {
    let _ = summarize(String::new());
    let _table = prompts![summarize];
}
