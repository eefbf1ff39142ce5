//! Formats as a server publishes them: `#[schemars(email)]` and `#[arg(format = "email")]` are
//! asserted (the promise "what is advertised is enforced" holds for every JSON Schema format); a
//! format of the server's own is registered with `ServerBuilder::format`; one nobody checks is a
//! build error naming the tool and the pointer, unless the server allows unchecked formats; the
//! formats schemars publishes that JSON Schema does not define (`ip` for `IpAddr`) are published
//! in a standard form.

use std::net::IpAddr;

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A contact as a user's type declares it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Contact {
    /// Where to write.
    #[schemars(email)]
    pub email: String,
    /// Their site.
    #[schemars(url)]
    pub site: Option<String>,
}

/// Adds a contact.
#[tool]
fn add_contact(contact: Contact) -> String {
    contact.email
}

/// Sends a note.
#[tool]
fn notify(
    /// Who gets it.
    #[arg(format = "email")]
    to: String,
    /// The host to notify from.
    #[arg(format = "hostname")]
    via: Option<String>,
) -> String {
    format!("{to} {}", via.unwrap_or_default())
}

/// Orders by stock-keeping unit.
#[tool]
fn order(
    /// `SKU-` and five digits.
    #[arg(format = "sku")]
    sku: String,
) -> String {
    sku
}

/// Pings an address.
#[tool]
fn ping(address: IpAddr) -> String {
    address.to_string()
}

fn sku(s: &str) -> bool {
    s.len() == 9 && s.starts_with("SKU-") && s[4..].bytes().all(|c| c.is_ascii_digit())
}

async fn refused(client: &mcp_runtime::Client, tool: &str, arguments: Value) -> String {
    let r = client.call_tool(tool, arguments).await.unwrap();
    assert!(r.is_error, "accepted: {:?}", r.first_text());
    r.first_text().unwrap_or_default().to_owned()
}

async fn accepted(client: &mcp_runtime::Client, tool: &str, arguments: Value) {
    let r = client.call_tool(tool, arguments).await.unwrap();
    assert!(!r.is_error, "refused: {:?}", r.first_text());
}

#[tokio::test]
async fn every_published_standard_format_is_enforced() {
    let server = Server::builder("contacts", "1")
        .tools(tools![add_contact, notify, ping])
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let notify = tools.iter().find(|t| t["name"] == "notify").unwrap();
    assert_eq!(notify["inputSchema"]["properties"]["to"]["format"], "email");

    accepted(
        &client,
        "add_contact",
        json!({"contact": {"email": "joe@example.com"}}),
    )
    .await;
    let text = refused(
        &client,
        "add_contact",
        json!({"contact": {"email": "not an email"}}),
    )
    .await;
    assert!(
        text.contains(r#"/contact/email: must be a valid email (got "not an email")"#),
        "{text}"
    );
    let text = refused(
        &client,
        "add_contact",
        json!({"contact": {"email": "a@example.com", "site": "not a uri"}}),
    )
    .await;
    assert!(
        text.contains("/contact/site: must be a valid uri"),
        "{text}"
    );

    accepted(
        &client,
        "notify",
        json!({"to": "joe@example.com", "via": "mail.example.com"}),
    )
    .await;
    let text = refused(&client, "notify", json!({"to": "joe@", "via": "-bad-"})).await;
    assert!(text.contains("/to: must be a valid email"), "{text}");
    assert!(text.contains("/via: must be a valid hostname"), "{text}");

    accepted(&client, "ping", json!({"address": "::1"})).await;
    accepted(&client, "ping", json!({"address": "10.0.0.1"})).await;
    let text = refused(&client, "ping", json!({"address": "10.0.0.256"})).await;
    assert!(text.contains("/address"), "{text}");
}

#[tokio::test]
async fn ip_is_published_as_ipv4_or_ipv6() {
    let server = Server::builder("net", "1")
        .tools(tools![ping])
        .build()
        .unwrap();
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let address = &tools[0]["inputSchema"]["properties"]["address"];
    assert_eq!(
        address,
        &json!({"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}),
    );
}

#[tokio::test]
async fn a_registered_format_is_enforced() {
    let server = Server::builder("shop", "1")
        .tools(tools![order])
        .format("sku", sku)
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    accepted(&client, "order", json!({"sku": "SKU-12345"})).await;
    let text = refused(&client, "order", json!({"sku": "SKU-1"})).await;
    assert!(
        text.contains(r#"/sku: must be a valid sku (got "SKU-1")"#),
        "{text}"
    );
}

#[tokio::test]
async fn a_registered_check_replaces_a_standard_one_and_a_panicking_check_refuses() {
    let server = Server::builder("shop", "1")
        .tools(tools![notify, order])
        .format("email", |s: &str| s.ends_with("@example.com"))
        .format("sku", |_: &str| -> bool { panic!("the check broke") })
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    accepted(&client, "notify", json!({"to": "joe@example.com"})).await;
    let text = refused(&client, "notify", json!({"to": "joe@example.org"})).await;
    assert!(text.contains("/to: must be a valid email"), "{text}");
    let text = refused(&client, "order", json!({"sku": "SKU-12345"})).await;
    assert!(text.contains("/sku: must be a valid sku"), "{text}");
    // the server is still there
    accepted(&client, "notify", json!({"to": "ann@example.com"})).await;
}

#[test]
fn a_format_nobody_checks_is_a_build_error_naming_the_tool_and_pointer() {
    let Err(e) = Server::builder("shop", "1").tools(tools![order]).build() else {
        panic!("built with a format nobody checks");
    };
    let text = e.to_string();
    assert!(text.contains("order"), "{text}");
    assert!(
        text.contains(r#"the format "sku" at #/properties/sku"#),
        "{text}"
    );
    assert!(text.contains(r#"ServerBuilder::format("sku""#), "{text}");
}

#[tokio::test]
async fn unchecked_formats_can_be_allowed_as_annotations() {
    let server = Server::builder("shop", "1")
        .tools(tools![order])
        .allow_unchecked_formats()
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    accepted(&client, "order", json!({"sku": "anything"})).await;
}

/// Drafts a reply to a ticket.
#[prompt]
fn reply(
    /// The ticket.
    #[arg(format = "ticket")]
    ticket: String,
) -> String {
    format!("Reply to {ticket}.")
}

#[tokio::test]
async fn prompt_arguments_use_the_servers_formats_too() {
    let Err(e) = Server::builder("desk", "1")
        .prompts(prompts![reply])
        .build()
    else {
        panic!("built with a format nobody checks");
    };
    assert!(e.to_string().contains(r#"the format "ticket""#), "{e}");

    let server = Server::builder("desk", "1")
        .prompts(prompts![reply])
        .format("ticket", |s: &str| s.starts_with("T-"))
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    let ok = client.get_prompt("reply", [("ticket", "T-1")]).await;
    assert!(ok.is_ok(), "{ok:?}");
    let refused = client.get_prompt("reply", [("ticket", "X-1")]).await;
    let text = format!("{refused:?}");
    assert!(
        refused.is_err() && text.contains("must be a valid ticket"),
        "{text}"
    );
}
