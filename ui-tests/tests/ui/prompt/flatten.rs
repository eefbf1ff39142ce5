use mcp_runtime::prelude::*;

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
struct Letter {
    to: String,
    from: String,
}

/// Writes a letter.
#[prompt]
fn write(#[arg(flatten)] letter: Letter) -> String {
    format!("From {} to {}.", letter.from, letter.to)
}

fn main() {
    let _ = write(Letter { to: String::new(), from: String::new() });
    let _table = prompts![write];
}
