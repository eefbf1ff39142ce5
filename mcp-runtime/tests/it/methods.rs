//! Tools as methods: a `#[toolbox]` impl block's `#[tool]` methods, with `&self` (or
//! `self: Arc<Self>`) as the server's state of that type, beside free functions in one table, and
//! `rename_all` on a tool and on a whole block.
#![deny(missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, Client};
use serde_json::{Value, json};
use test_support::call_detached as call;

/// One item of the inventory.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    /// Its name.
    pub name: String,
    /// How many are in stock.
    pub stock: u32,
}

/// The inventory: the state its methods borrow.
pub struct Inventory {
    items: std::sync::Mutex<Vec<Item>>,
    adjustments: AtomicU32,
}

/// A second state type, borrowed by a method beside `&self`.
pub struct Audit(pub &'static str);

impl Inventory {
    fn new() -> Self {
        Inventory {
            items: std::sync::Mutex::new(vec![
                Item {
                    name: "bolt".into(),
                    stock: 10,
                },
                Item {
                    name: "nut".into(),
                    stock: 0,
                },
            ]),
            adjustments: AtomicU32::new(0),
        }
    }

    /// Not a tool: the block may hold other methods.
    fn find(&self, name: &str) -> Option<Item> {
        let items = self.items.lock().unwrap();
        items.iter().find(|i| i.name == name).cloned()
    }
}

#[toolbox(rename_all = "camelCase")]
impl Inventory {
    /// Search items by name.
    #[tool(read_only)]
    async fn search(
        &self,
        /// Words the name contains.
        #[arg(min_length = 1)]
        query: String,
        #[arg(default = false)] in_stock_only: bool,
    ) -> Vec<Item> {
        let items = self.items.lock().unwrap();
        items
            .iter()
            .filter(|i| i.name.contains(&query) && (!in_stock_only || i.stock > 0))
            .cloned()
            .collect()
    }

    /// Change an item's stock.
    #[tool(
        name = "adjust",
        title = "Adjust stock",
        destructive = false,
        idempotent = false
    )]
    fn adjust_stock(
        &self,
        audit: &Audit,
        ctx: &Context,
        item_name: String,
        #[arg(minimum = -100, maximum = 100)] delta: i64,
        #[arg(rename = "dry_run")] dry_run: Option<bool>,
    ) -> Result<String, ToolError> {
        let Some(item) = self.find(&item_name) else {
            return Err(ToolError::new(format!("no item {item_name}")));
        };
        let stock = i64::from(item.stock) + delta;
        if stock < 0 {
            return Err(ToolError::new(format!("only {} in stock", item.stock)));
        }
        if !dry_run.unwrap_or(false) {
            let mut items = self.items.lock().unwrap();
            if let Some(i) = items.iter_mut().find(|i| i.name == item_name) {
                i.stock = stock as u32;
            }
            self.adjustments.fetch_add(1, Ordering::SeqCst);
        }
        Ok(format!(
            "{} {item_name}={stock} by {}",
            ctx.tool_name(),
            audit.0
        ))
    }

    /// Convert a count of boxes to items; needs no state.
    #[tool(rename_all = "kebab-case")]
    fn boxes_to_items(box_count: u32, #[arg(default = 12)] per_box: u32) -> u32 {
        box_count * per_box
    }

    /// How many adjustments were made, from a handle that outlives the call.
    #[tool]
    async fn adjustments(self: Arc<Self>) -> u32 {
        let handle = Arc::clone(&self);
        tokio::spawn(async move { handle.adjustments.load(Ordering::SeqCst) })
            .await
            .unwrap()
    }

    /// The item a `Self`-typed value names.
    #[tool]
    fn echo(&self, item: Item) -> Result<Item, ToolError> {
        self.find(&item.name)
            .ok_or_else(|| ToolError::new("unknown item"))
    }
}

/// A free function in the same table.
#[tool(rename_all = "SCREAMING_SNAKE_CASE")]
fn ping(reply_with: String) -> String {
    reply_with
}

fn table() -> ToolTable {
    tools![ping, Inventory]
}

fn state() -> Arc<StateMap> {
    let mut state = StateMap::new();
    state.insert(Inventory::new());
    state.insert(Audit("ops"));
    Arc::new(state)
}

fn properties(table: &ToolTable, name: &str) -> Value {
    table.get(name).unwrap().input_schema()["properties"].clone()
}

#[test]
fn free_functions_and_methods_share_one_table_in_order() {
    let t = table();
    assert_eq!(
        t.names(),
        [
            "ping",
            "search",
            "adjust",
            "boxes_to_items",
            "adjustments",
            "echo"
        ]
    );
    let listed = t.get("adjust").unwrap().to_json();
    assert_eq!(listed["title"], "Adjust stock");
    assert_eq!(listed["description"], "Change an item's stock.");
    assert_eq!(
        listed["annotations"],
        json!({"destructiveHint": false, "idempotentHint": false})
    );
    assert_eq!(
        t.get("search").unwrap().to_json()["annotations"],
        json!({"readOnlyHint": true})
    );
}

#[test]
fn rename_all_names_arguments_and_a_rename_wins() {
    let t = table();
    let search = t.get("search").unwrap().input_schema();
    assert_eq!(search["required"], json!(["query"]));
    let p = &search["properties"];
    assert_eq!(p["query"]["minLength"], 1);
    assert_eq!(p["query"]["description"], "Words the name contains.");
    assert_eq!(p["inStockOnly"]["default"], false);
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    // The block's camelCase; `rename` wins over it.
    assert_eq!(
        keys(&properties(&t, "adjust")),
        ["itemName", "delta", "dry_run"]
    );
    // A tool's own `rename_all` wins over the block's.
    assert_eq!(
        keys(&properties(&t, "boxes_to_items")),
        ["box-count", "per-box"]
    );
    assert_eq!(keys(&properties(&t, "ping")), ["REPLY_WITH"]);
}

#[tokio::test]
async fn methods_borrow_self_context_and_other_state() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "adjust", json!({"itemName": "bolt", "delta": -3})).await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.first_text(), Some("adjust bolt=7 by ops"));
    let r = call(
        &t,
        &s,
        "adjust",
        json!({"itemName": "bolt", "delta": 1, "dry_run": true}),
    )
    .await;
    assert_eq!(r.first_text(), Some("adjust bolt=8 by ops"));
    let r = call(&t, &s, "adjust", json!({"itemName": "nut", "delta": -1})).await;
    assert_eq!(
        r.first_text(),
        Some("Error executing tool adjust: only 0 in stock")
    );
    // `self: Arc<Self>`: the same state, shared.
    let r = call(&t, &s, "adjustments", json!({})).await;
    assert_eq!(r.structured_content, Some(json!({"result": 1})));
}

#[tokio::test]
async fn async_method_and_associated_fn_with_defaults() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "search", json!({"query": "t"})).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"result": [{"name": "bolt", "stock": 10}, {"name": "nut", "stock": 0}]}))
    );
    let r = call(&t, &s, "search", json!({"query": "t", "inStockOnly": true})).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"result": [{"name": "bolt", "stock": 10}]}))
    );
    let r = call(&t, &s, "boxes_to_items", json!({"box-count": 3})).await;
    assert_eq!(r.structured_content, Some(json!({"result": 36})));
    let r = call(&t, &s, "echo", json!({"item": {"name": "nut", "stock": 5}})).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"name": "nut", "stock": 0}))
    );
    let r = call(&t, &s, "ping", json!({"REPLY_WITH": "pong"})).await;
    assert_eq!(r.first_text(), Some("pong"));
}

#[tokio::test]
async fn validation_uses_the_published_names() {
    let (t, s) = (table(), state());
    let r = call(&t, &s, "search", json!({"query": ""})).await;
    assert_eq!(
        r.first_text(),
        Some("Invalid arguments for tool search: /query: must be at least 1 character (got 0)")
    );
    // The Rust name is not the published one: refused as unknown, never silently dropped.
    let r = call(&t, &s, "adjust", json!({"item_name": "bolt", "delta": 1})).await;
    assert_eq!(
        r.first_text(),
        Some(
            "Invalid arguments for tool adjust: /: missing required argument \"itemName\"; \
             /: unknown argument \"item_name\" (allowed: itemName, delta, dry_run)"
        )
    );
    let r = call(&t, &s, "adjust", json!({"itemName": "bolt", "delta": 101})).await;
    assert_eq!(
        r.first_text(),
        Some("Invalid arguments for tool adjust: /delta: must be <= 100 (got 101)")
    );
}

#[test]
fn the_builder_asks_for_the_block_s_state() {
    let built = Server::builder("inventory", "1.0.0")
        .state(Audit("ops"))
        .tools(table())
        .build();
    let Err(err) = built else {
        panic!("built without the Inventory")
    };
    let text = err.to_string();
    assert!(
        text.contains("tool `search` borrows state of type `it::methods::Inventory`"),
        "{text}"
    );
    // An associated fn borrows nothing, and `ping` is a free fn: neither is named.
    assert!(
        !text.contains("boxes_to_items") && !text.contains("`ping`"),
        "{text}"
    );
    assert!(matches!(err, BuildError::Several(_)), "{err:?}");
}

#[tokio::test]
async fn a_served_toolbox_over_the_client() {
    let server = Server::builder("inventory", "1.0.0")
        .state(Inventory::new())
        .state(Audit("ops"))
        .tools(table())
        .build()
        .unwrap();
    let client = Client::in_process(&server).await.unwrap();
    let listed = client.list_tools().await.unwrap();
    assert_eq!(listed.len(), 6);
    assert_eq!(
        listed[2]["inputSchema"]["properties"]["itemName"]["type"],
        "string"
    );
    let r = client
        .call_tool("adjust", json!({"itemName": "bolt", "delta": 2}))
        .await
        .unwrap();
    assert_eq!(r.first_text(), Some("adjust bolt=12 by ops"));
    client.close().await;
}
