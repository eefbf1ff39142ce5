use mcp_runtime::prelude::*;

#[derive(Serialize)]
struct Point {
    x: i64,
}

/// Makes a point.
#[tool]
fn origin() -> Point {
    Point { x: 0 }
}

fn main() {
    let _table = tools![origin];
    let _ = origin().x;
}
