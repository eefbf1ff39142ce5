use mcp_runtime::prelude::*;

#[derive(JsonSchema)]
struct Point {
    x: i64,
}

/// Moves a point.
#[tool]
fn shift(point: Point) -> i64 {
    point.x
}

fn main() {
    let _table = tools![shift];
}
