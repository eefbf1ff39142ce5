use mcp_runtime::prelude::*;

fn titles(prefix: String) -> Vec<String> {
    vec![prefix]
}

/// Summarizes a note.
#[prompt]
fn summarize(#[arg(complete = titles)] title: String) -> String {
    format!("Summarize {title}.")
}

fn main() {
    let _ = titles(String::new());
    let _ = summarize(String::new());
    let _table = prompts![summarize];
}
