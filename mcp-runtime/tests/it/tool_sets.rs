//! Tool tables compose: `.tools(a).tools(b)` serves both, in order, and a name published in two
//! tables is a build error naming where each table was made.

use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, Client};
use serde_json::json;

mod inventory {
    use mcp_runtime::prelude::*;

    /// Search the items.
    #[tool(read_only)]
    pub fn search(query: String) -> Vec<String> {
        vec![format!("item matching {query}")]
    }

    /// Count the items.
    #[tool(read_only)]
    pub fn count() -> u32 {
        3
    }

    pub fn tools() -> ToolTable {
        tools![search, count]
    }
}

mod admin {
    use mcp_runtime::prelude::*;

    /// Also published as `search`.
    #[tool(name = "search")]
    pub fn find(query: String) -> String {
        query
    }

    /// Check the server is alive.
    #[tool]
    pub fn ping() -> String {
        "pong".into()
    }
}

#[tokio::test]
async fn tables_given_one_after_another_are_all_served_in_order() {
    let server = Server::builder("composed", "1.0.0")
        .tools(inventory::tools())
        .tools(tools![admin::ping])
        .build()
        .expect("distinct names");
    let client = Client::in_process(&server).await.unwrap();
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["search", "count", "ping"]);
    let pong = client.call_tool("ping", json!({})).await.unwrap();
    assert_eq!(pong.first_text(), Some("pong"));
    let found = client
        .call_tool("search", json!({"query": "bolt"}))
        .await
        .unwrap();
    assert_eq!(
        found.structured_content,
        Some(json!({"result": ["item matching bolt"]}))
    );
}

#[test]
fn one_name_in_two_tables_is_a_build_error_naming_both_places() {
    let first_line = line!() + 1;
    let first = inventory::tools();
    let second_line = line!() + 1;
    let second = tools![admin::find, admin::ping];
    let error = Server::builder("composed", "1.0.0")
        .tools(first)
        .tools(second)
        .build()
        .expect_err("`search` twice");
    let BuildError::DuplicateTool(dup) = &error else {
        panic!("expected DuplicateTool, got {error:?}");
    };
    assert_eq!(dup.name, "search");
    // The first table was made by `tools![…]` inside `inventory::tools`, the second here.
    assert!(dup.first.starts_with(file!()), "{}", dup.first);
    assert!(
        !dup.first.starts_with(&format!("{}:{first_line}:", file!())),
        "{}",
        dup.first
    );
    assert!(
        dup.second
            .starts_with(&format!("{}:{second_line}:", file!())),
        "{}",
        dup.second
    );
    let text = error.to_string();
    assert!(
        text.contains("`search`") && text.contains(&dup.first) && text.contains(&dup.second),
        "{text}"
    );
}

#[test]
fn a_single_table_is_served_as_given() {
    let one = Server::builder("one", "1.0.0").tools(inventory::tools());
    assert_eq!(one.build().unwrap().tools().names(), ["search", "count"]);
}
