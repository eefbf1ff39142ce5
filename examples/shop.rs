//! The shop of seed 000: get_order (structured output, a ToolError, a hidden crash) and
//! cancel_order (a title and behaviour hints).
//!
//! Run over stdio: `cargo run -p examples --bin shop`.

use mcp_runtime::prelude::*;

// Where an order is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OrderStatus {
    Paid,
    Shipped,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Order {
    pub id: String,
    pub status: OrderStatus,
    pub total: f64,
}

fn find_order(order_id: u32) -> Option<Order> {
    let order = |id: &str, status, total| Order {
        id: id.into(),
        status,
        total,
    };
    match order_id {
        1042 => Some(order("A1042", OrderStatus::Paid, 59.9)),
        1043 => Some(order("A1043", OrderStatus::Shipped, 12.5)),
        _ => None,
    }
}

/// The order database; its connection fails for order 13, like a real outage would.
fn query_orders(order_id: u32) -> std::io::Result<Option<Order>> {
    if order_id == 13 {
        return Err(std::io::Error::other(
            "db at 10.0.0.5 refused password 'hunter2'",
        ));
    }
    Ok(find_order(order_id))
}

/// Look up one order by id.
#[tool(scopes = ["orders:read"])]
pub fn get_order(
    /// Order id like 1042
    #[arg(minimum = 0, maximum = 9999)]
    order_id: u32,
    #[arg(default = false)] verbose: bool,
) -> Result<Order, ToolError> {
    let _ = verbose; // accepted and unused, exactly as in the reference
    query_orders(order_id)?.ok_or_else(|| ToolError::new(format!("no order with id {order_id}")))
}

/// Cancel an unshipped order.
#[tool(title = "Cancel an order", destructive, idempotent, scopes = ["orders:write"])]
pub fn cancel_order(order_id: i64) -> String {
    format!("order {order_id} cancelled")
}

/// The server: `shop` with get_order and cancel_order.
pub fn server() -> Server {
    Server::builder("shop", "1.0.0")
        .tools(tools![get_order, cancel_order])
        // The tools' scopes and this hierarchy are checked over HTTP with `--auth-issuer` (see
        // docs/auth.md); stdio ignores them.
        .scope_implies("orders:write", "orders:read")
        .build()
        .unwrap_or_else(|e| panic!("the server cannot be built: {e}"))
}

fn main() -> std::process::ExitCode {
    examples::init_logging();
    mcp_runtime::cli::run(server())
}
