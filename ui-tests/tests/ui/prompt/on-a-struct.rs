use mcp_runtime::prelude::*;

/// A greeting.
#[prompt]
struct Greeting {
    name: String,
}

fn main() {
    let _ = Greeting { name: String::new() };
}
