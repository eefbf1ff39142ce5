//! Tools whose argument and return types derive `Deserialize`, `Serialize` and `JsonSchema`
//! from `mcp_runtime::prelude`, in a crate whose only dependency is `mcp-runtime`: `JsonSchema`
//! as is, serde's derives with `#[serde(crate = "mcp_runtime::serde")]`.

use mcp_runtime::prelude::*;

/// Where to ship an order.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde", rename_all = "camelCase")]
pub struct Address {
    /// The street and number.
    pub street_line: String,
    /// The postal code.
    #[schemars(length(min = 3))]
    pub postal_code: String,
}

/// A shipment.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
pub struct Shipment {
    /// Its id.
    pub id: String,
    /// The label printed on the box.
    pub label: String,
}

/// Ship an order to an address.
#[tool]
pub fn ship(order: u32, to: Address) -> Result<Shipment, ToolError> {
    Ok(Shipment {
        id: format!("S-{order}"),
        label: format!("{}, {}", to.street_line, to.postal_code),
    })
}

/// A small PNG's first bytes, as an image block.
#[tool(read_only)]
pub fn logo() -> Contents {
    Contents(vec![
        Content::image_bytes([0x89, b'P', b'N', b'G'], "image/png"),
        Content::text("the logo"),
    ])
}

/// The server of this crate.
pub fn server() -> Result<Server, BuildError> {
    Server::builder("shipping", "1.0.0")
        .tools(tools![ship, logo])
        .build()
}
