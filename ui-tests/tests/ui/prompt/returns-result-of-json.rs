use mcp_runtime::prelude::*;

/// Returns JSON, which is not a message.
#[prompt]
fn json(text: String) -> Result<serde_json::Value, ToolError> {
    Ok(serde_json::json!({ "text": text }))
}

fn main() {
    let _ = json(String::new());
    let _table = prompts![json];
}
