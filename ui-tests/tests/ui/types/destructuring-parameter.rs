use mcp_runtime::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// Moves a point.
#[tool]
fn shift(Point { x, y }: Point) -> i64 {
    x + y
}

fn main() {
    let _table = tools![shift];
}
