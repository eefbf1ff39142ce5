//! `tools/list` and `tools/call` in both eras, in memory and over stdio.

use integration_tests::kit::{NAMES, structured};
use integration_tests::peer::*;
use mcp_runtime::error::codes;
use serde_json::{Value, json};

const KIT: &str = env!("CARGO_BIN_EXE_kit_server");

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn the_listing_is_the_tables_order_in_one_page_by_default() {
    on_each(KIT, SETUPS, async |conn, via, era| {
        let page = conn.client.list_tools_page(None).await.unwrap();
        assert!(page.get("nextCursor").is_none(), "{page}");
        let tools = page["tools"].as_array().unwrap();
        assert_eq!(names(tools), NAMES, "{via:?} {era:?}");
        let add = &tools[1];
        assert_eq!(add["description"], "Add two integers.");
        assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
        assert_eq!(
            add["outputSchema"]["properties"]["result"]["type"],
            "integer"
        );
    })
    .await;
}

#[tokio::test]
async fn pages_follow_the_cursor_and_cover_every_tool_once() {
    for (via, era) in SETUPS {
        let conn = Conn::kit_with(KIT, via, era, |o| o.page_size = Some(3)).await;
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = conn
                .client
                .list_tools_page(cursor.as_deref())
                .await
                .unwrap();
            let tools = page["tools"].as_array().unwrap();
            sizes.push(tools.len());
            all.extend(names(tools));
            match page["nextCursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
        }
        assert_eq!(sizes, [3, 3, 3, 3, 1], "{via:?} {era:?}");
        assert_eq!(all, NAMES);
        // The client's list_tools follows the pages itself.
        assert_eq!(names(&conn.client.list_tools().await.unwrap()), NAMES);
        conn.finish().await;
    }
}

#[tokio::test]
async fn an_invalid_cursor_is_invalid_params() {
    for (via, era) in SETUPS {
        let conn = Conn::kit_with(KIT, via, era, |o| o.page_size = Some(3)).await;
        let cursors = [
            json!("garbage"),
            json!("tools-0"),
            json!("tools-ff"),
            json!(7),
        ];
        let cases = cursors.map(|cursor| json!({"cursor": cursor}));
        conn.refuses_each("tools/list", cases, codes::INVALID_PARAMS)
            .await;
        conn.finish().await;
    }
}

#[tokio::test]
async fn a_call_returns_the_tools_result() {
    for (via, era) in SETUPS {
        let conn = Conn::plain(KIT, via, era).await;
        let r = conn.call("add", json!({"a": 2, "b": 40})).await;
        assert!(!r.is_error);
        assert_eq!(structured(&r), json!({"result": 42}));
        assert_eq!(r.first_text(), Some("42"));
        let r = conn.call("echo", json!({"text": "line\nbreak"})).await;
        assert_eq!(r.first_text(), Some("line\nbreak"));
        conn.finish().await;
    }
}

#[tokio::test]
async fn a_tool_error_is_a_result_the_model_reads() {
    on_each(KIT, SETUPS, async |conn, _, _| {
        let r = conn
            .call("fail", json!({"message": "No task with ID T-9."}))
            .await;
        assert!(r.is_error);
        assert_eq!(
            r.first_text(),
            Some("Error executing tool fail: No task with ID T-9.")
        );
        assert!(r.structured_content.is_none());
    })
    .await;
}

#[tokio::test]
async fn arguments_that_break_the_schema_are_an_error_result() {
    on_each(KIT, SETUPS, async |conn, _, _| {
        let r = conn.call("add", json!({"a": "two", "b": 1})).await;
        assert!(r.is_error, "{r:?}");
        assert!(r.first_text().unwrap().contains("add"), "{r:?}");
    })
    .await;
}

#[tokio::test]
async fn a_panicking_tool_is_hidden_and_the_server_keeps_serving() {
    for (via, era) in SETUPS {
        let conn = Conn::plain(KIT, via, era).await;
        for _ in 0..2 {
            let r = conn.call("explode", json!({})).await;
            assert!(r.is_error);
            assert_eq!(r.first_text(), Some("Error executing tool explode"));
            let raw = format!("{r:?}");
            assert!(!raw.contains("secret"), "{raw}");
            assert!(r.meta.as_ref().unwrap()["errorId"].is_string());
        }
        let r = conn.call("add", json!({"a": 1, "b": 1})).await;
        assert_eq!(structured(&r), json!({"result": 2}));
        let status = conn.finish().await;
        assert!(status.is_none_or(|s| s.success()), "{status:?}");
    }
}

#[tokio::test]
async fn a_call_without_a_string_name_or_with_non_object_arguments_is_invalid_params() {
    on_each(KIT, SETUPS, async |conn, _, _| {
        let cases = [
            json!({"arguments": {}}),
            json!({"name": 7, "arguments": {}}),
            json!({"name": "add", "arguments": [1, 2]}),
            json!({"name": "add", "arguments": "a=1"}),
        ];
        conn.refuses_each("tools/call", cases, codes::INVALID_PARAMS)
            .await;
    })
    .await;
}

#[tokio::test]
async fn an_unknown_tool_is_an_error_result_listing_the_valid_names() {
    on_each(KIT, SETUPS, async |conn, _, _| {
        let r = conn.call("delete_task", json!({})).await;
        assert!(r.is_error);
        // The first block is the Python SDK's exact text; the second lists the valid names.
        assert_eq!(r.first_text(), Some("Unknown tool: delete_task"));
        let listing = match &r.content[..] {
            [_, mcp_runtime::Content::Text(t)] => t.clone(),
            other => panic!("expected two text blocks: {other:?}"),
        };
        assert_eq!(listing, format!("Valid tools: {}", NAMES.join(", ")));
    })
    .await;
}

#[tokio::test]
async fn the_unknown_tool_policy_can_make_it_a_protocol_error() {
    for (via, era) in SETUPS {
        let conn = Conn::kit_with(KIT, via, era, |o| o.unknown_tool_error = true).await;
        let outcome = conn.client.call_tool("delete_task", json!({})).await;
        let message = refused_with(outcome, codes::INVALID_PARAMS, "delete_task");
        assert!(message.contains("Unknown tool: delete_task"), "{message}");
        conn.finish().await;
    }
}

#[tokio::test]
async fn tools_calls_before_the_handshake_are_refused_and_after_it_served() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Handshake);
        let r = peer.call_tool("add", json!({"a": 1, "b": 2})).await;
        assert_eq!(r["error"]["code"], codes::INVALID_PARAMS, "{r}");
        peer.open().await;
        let r = peer.call_tool("add", json!({"a": 1, "b": 2})).await;
        assert_eq!(
            r["result"]["structuredContent"],
            json!({"result": 3}),
            "{r}"
        );
        peer.finish_ok().await;
    }
}

/// Issue 12 over the wire: a second table of methods (`#[toolbox]`) served after the free
/// functions, one struct as the input, camelCase names, a tagged union's messages, and an `anyhow`
/// error hidden from the model, in memory and over stdio, in both eras.
#[tokio::test]
async fn methods_flattened_input_unions_and_any_error_type_over_every_setup() {
    on_each(KIT, SETUPS, async |conn, via, era| {
        let tools = conn.client.list_tools().await.unwrap();
        let post = tools.iter().find(|t| t["name"] == "post").unwrap();
        let schema = &post["inputSchema"];
        let keys: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["by", "entry", "dryRun"], "{via:?} {era:?}");
        assert_eq!(schema["required"], json!(["by", "entry"]));

        let credit = json!({"by": "ann", "entry": {"kind": "credit", "amount": 5}, "dryRun": true});
        let r = conn.call("post", credit).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(structured(&r), json!({"result": 5}));

        let refused = [
            (
                json!({"by": "ann", "entry": {"kind": "refund", "amount": 5}}),
                r#"/entry/kind: must be one of "credit", "debit" (got "refund")"#,
            ),
            (
                json!({"by": "ann", "entry": {"kind": "debit", "amount": 5}}),
                r#"/entry: missing required property "memo" (kind = "debit")"#,
            ),
            (
                json!({"by": "ann", "entry": {"kind": "credit", "amount": 5}, "dry_run": true}),
                r#"unknown argument "dry_run""#,
            ),
        ];
        for (arguments, rule) in refused {
            let r = conn.call("post", arguments.clone()).await;
            let text = r.first_text().unwrap_or_default().to_owned();
            assert!(r.is_error, "{arguments}: {text}");
            assert!(
                text.starts_with("Invalid arguments for tool post: ") && text.contains(rule),
                "{arguments}: {text}"
            );
        }

        let r = conn
            .call("load", json!({"filePath": "/nonexistent/ledger.txt"}))
            .await;
        assert!(r.is_error);
        assert_eq!(r.first_text(), Some("Error executing tool load"));
        let meta = r.meta.as_ref().expect("_meta with the error id");
        assert!(
            meta["errorId"]
                .as_str()
                .is_some_and(|id| id.starts_with("err-")),
            "{meta:?}"
        );
    })
    .await;
}
