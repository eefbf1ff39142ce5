//! `#[arg(pattern = CONST)]`: a pattern kept in a `&str` constant (shared by several tools, or
//! tested on its own) is published and enforced as a literal one is; the macro cannot read its
//! text, so a constant that is not a valid ECMA-262 pattern is refused when the server is built,
//! naming the tool and the argument.

use mcp_runtime::prelude::*;
use serde_json::json;

/// A stock-keeping unit: three capitals, a dash, four digits.
const SKU: &str = r"^[A-Z]{3}-\d{4}$";

mod tickets {
    /// A ticket: `T-` and a number.
    pub const TICKET: &str = r"^T-\d+$";
}

/// Looks a product up.
#[tool]
fn lookup(
    /// The product's SKU.
    #[arg(pattern = SKU)]
    sku: String,
    /// The ticket this lookup is for.
    #[arg(pattern = tickets::TICKET, max_length = 12)]
    ticket: Option<String>,
) -> String {
    format!("{sku} {}", ticket.unwrap_or_default())
}

const UNBALANCED: &str = "([A-Z]";

/// Cannot be served: its pattern does not parse.
#[tool]
fn broken(#[arg(pattern = UNBALANCED)] code: String) -> String {
    code
}

#[tokio::test]
async fn a_constant_pattern_is_published_and_enforced() {
    let server = Server::builder("shop", "1")
        .tools(tools![lookup])
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let schema = &tools[0]["inputSchema"];
    assert_eq!(schema["properties"]["sku"]["pattern"], json!(SKU));
    // An `Option`'s constraints are on its string branch.
    let ticket = &schema["properties"]["ticket"]["anyOf"][0];
    assert_eq!(ticket["pattern"], json!(tickets::TICKET));
    assert_eq!(ticket["maxLength"], json!(12));

    let ok = client
        .call_tool("lookup", json!({"sku": "ABC-1234", "ticket": "T-9"}))
        .await
        .unwrap();
    assert!(!ok.is_error, "{:?}", ok.first_text());
    for (arguments, pointer) in [
        (json!({"sku": "abc-1234"}), "/sku"),
        (json!({"sku": "ABC-1234", "ticket": "X-9"}), "/ticket"),
    ] {
        let refused = client.call_tool("lookup", arguments).await.unwrap();
        assert!(refused.is_error, "{:?}", refused.first_text());
        let text = refused.first_text().unwrap_or_default();
        assert!(text.contains(pointer) && text.contains("pattern"), "{text}");
    }
}

#[test]
fn a_constant_that_is_not_a_pattern_is_a_build_error() {
    let Err(e) = Server::builder("shop", "1").tools(tools![broken]).build() else {
        panic!("built with an unbalanced pattern");
    };
    let text = e.to_string();
    assert!(text.contains("broken"), "{text}");
    assert!(text.contains("invalid pattern"), "{text}");
    assert!(text.contains("code"), "{text}");
}
