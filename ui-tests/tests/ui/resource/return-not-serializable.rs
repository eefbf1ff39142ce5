use mcp_runtime::prelude::*;

struct Opaque;

/// Something opaque.
#[resource(uri = "x://opaque")]
fn opaque() -> Opaque {
    Opaque
}

fn main() {
    let _table = resources![opaque];
}
