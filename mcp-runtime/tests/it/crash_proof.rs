//! No panic and no unservable contract takes a server down: contracts are built when the server
//! is built (every problem reported, naming the tool), and a panic anywhere in a request's
//! handling answers that request with an internal error while the server keeps serving.

use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, Client, ClientError, ToolBuildError};
use serde_json::{Value, json};
use test_support::treacherous::Treacherous;

/// A name with a Rust-only regex flag, which ECMA-262 (what JSON Schema patterns use) lacks.
#[derive(Deserialize, JsonSchema)]
pub struct Shouting {
    #[schemars(regex(pattern = r"(?i)^[a-z]+$"))]
    pub word: String,
}

/// Shout a word.
#[tool]
fn shout(spec: Shouting) -> String {
    spec.word.to_uppercase()
}

/// Say hi.
#[tool]
fn hi() -> String {
    "hi".into()
}

/// A type whose schema generation panics.
pub struct Haunted;

impl JsonSchema for Haunted {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Haunted".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        panic!("the schema of Haunted is not ready")
    }
}

impl<'de> Deserialize<'de> for Haunted {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Ok(Haunted)
    }
}

/// Takes a haunted value.
#[tool]
fn haunted(_h: Haunted) -> String {
    String::new()
}

#[test]
fn an_unservable_pattern_is_a_build_error_naming_the_tool_the_pointer_and_the_keyword() {
    let err = test_support::build_error(tools![hi, shout]);
    let BuildError::Tool(ToolBuildError { tool, problem, .. }) = &err else {
        panic!("unexpected error: {err:?}");
    };
    assert_eq!(tool, "shout");
    assert!(problem.contains("/properties/spec"), "{problem}");
    assert!(problem.contains("pattern"), "{problem}");
    assert!(
        err.to_string()
            .starts_with("tool `shout` cannot be served: ")
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let err = Server::builder("t", "1")
        .tools(tools![shout, hi, haunted])
        .page_size(0)
        .build()
        .expect_err("three problems");
    let BuildError::Several(all) = &err else {
        panic!("unexpected error: {err:?}");
    };
    let tools: Vec<_> = all
        .iter()
        .filter_map(|e| match e {
            BuildError::Tool(t) => Some(t.tool.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["shout", "haunted"]);
    assert!(
        all.iter()
            .any(|e| matches!(e, BuildError::InvalidOption(_)))
    );
    let text = err.to_string();
    assert!(text.starts_with("3 problems:"), "{text}");
    assert!(
        text.contains("the schema of Haunted is not ready"),
        "{text}"
    );
}

/// A server of `tools` and nothing else.
fn server(tools: ToolTable) -> Server {
    Server::builder("t", "1").tools(tools).build().unwrap()
}

#[tokio::test]
async fn a_table_used_without_a_server_serves_the_tools_that_build() {
    let table = tools![hi, shout];
    assert_eq!(table.check().len(), 1);
    assert_eq!(table.iter().map(|t| t.name()).collect::<Vec<_>>(), ["hi"]);
    assert!(table.get("shout").is_none());
    assert!(table.get("hi").is_some());
}

/// Fails with a treacherous error.
#[tool]
fn betray() -> Result<String, Treacherous> {
    Err(Treacherous)
}

#[tokio::test]
async fn a_panic_outside_the_tool_body_answers_that_request_and_the_server_keeps_serving() {
    // The hidden error is logged with its full chain, after the body returned: with a subscriber
    // listening, that is where `Display` runs and panics.
    let subscriber = tracing_subscriber::fmt()
        .with_writer(std::io::sink)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let server = server(tools![hi, betray]);
    let client = Client::in_process(&server).await.unwrap();
    for _ in 0..3 {
        let err = client
            .call_tool("betray", json!({}))
            .await
            .expect_err("an internal error");
        let ClientError::Protocol(e) = err else {
            panic!("unexpected error: {err:?}");
        };
        assert_eq!(e.code, -32603);
        assert_eq!(e.message, "Internal error");
        let id = e.data.as_ref().and_then(|d| d["errorId"].as_str()).unwrap();
        assert!(id.starts_with("err-"), "{id}");
        // The same connection still answers.
        client.ping().await.unwrap();
        let ok = client.call_tool("hi", json!({})).await.unwrap();
        assert_eq!(ok.first_text(), Some("hi"));
    }
}

/// Sends raw lines to a new server of `tools` over an in-memory pipe (the stdio transport's
/// framing) and returns the lines it answers, in order.
async fn exchange(tools: ToolTable, lines: &[&str]) -> Vec<serde_json::Value> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (reader, mut writer) = mcp_runtime::client::in_process::pipe(&server(tools));
    for line in lines {
        writer.write_all(line.as_bytes()).await.unwrap();
        writer.write_all(b"\n").await.unwrap();
    }
    writer.shutdown().await.unwrap();
    drop(writer);
    let mut out = Vec::new();
    let mut reader = BufReader::new(reader).lines();
    while let Some(line) = reader.next_line().await.unwrap() {
        out.push(serde_json::from_str(&line).unwrap_or(serde_json::Value::String(line)));
    }
    out
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test]
async fn a_message_is_an_object_and_ids_round_trip_exactly() {
    let answers = exchange(
        tools![hi],
        &[
            INIT,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            // The sequence form of the envelope is not a message.
            r#"["2.0", 5, "tools/call", {"name": "hi", "arguments": {}}]"#,
            // An integer id beyond 64 bits comes back digit for digit.
            r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":-92233720368547758090,"method":"ping"}"#,
            // MCP ids are strings or integers.
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"s-1","method":"ping"}"#,
        ],
    )
    .await;
    // Rejections are written as soon as they are read; answers when they are ready.
    assert_eq!(answers.len(), 7, "{answers:#?}");
    let rejected: Vec<&str> = answers
        .iter()
        .filter(|a| a["error"]["code"] == -32600 && a["id"].is_null())
        .filter_map(|a| a["error"]["message"].as_str())
        .collect();
    assert_eq!(
        rejected,
        [
            "Invalid Request: JSON-RPC batches are not supported (removed in 2025-06-18)",
            "Invalid Request: `id` must be a string or an integer",
            "Invalid Request: `id` must be a string or an integer",
        ]
    );
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == "s-1" && a["result"] == json!({}))
    );
    // No tool ran for the array: nothing but pings and the handshake were answered.
    assert_eq!(
        answers.iter().filter(|a| a.get("result").is_some()).count(),
        4
    );
    // The exact digits, read from the text (serde_json's Value would round them).
    let server = server(tools![hi]);
    let big = exchange_text(
        &server,
        r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}"#,
    )
    .await;
    assert!(big.contains(r#""id":18446744073709551617"#), "{big}");
    let negative = exchange_text(
        &server,
        r#"{"jsonrpc":"2.0","id":-92233720368547758090,"method":"ping"}"#,
    )
    .await;
    assert!(
        negative.contains(r#""id":-92233720368547758090"#),
        "{negative}"
    );
}

/// The raw text of the answer to one line sent after the handshake.
async fn exchange_text(server: &Server, line: &str) -> String {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (reader, mut writer) = mcp_runtime::client::in_process::pipe(server);
    let notified = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    writer
        .write_all(format!("{INIT}\n{notified}\n{line}\n").as_bytes())
        .await
        .unwrap();
    writer.shutdown().await.unwrap();
    drop(writer);
    let mut lines = BufReader::new(reader).lines();
    lines
        .next_line()
        .await
        .unwrap()
        .expect("the initialize answer");
    lines.next_line().await.unwrap().expect("an answer")
}

#[tokio::test]
async fn batches_are_accepted_where_the_negotiated_version_says_so() {
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hi","arguments":{}}},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}},7]"#;
    // 2025-03-26: implementations MUST accept batches.
    let old = INIT.replace("2025-06-18", "2025-03-26");
    let answers = exchange(tools![hi], &[&old, batch, "[]"]).await;
    assert_eq!(answers.len(), 3, "{answers:#?}");
    let batched = answers
        .iter()
        .find_map(|a| a.as_array())
        .expect("one array of answers");
    assert_eq!(batched.len(), 4, "{batched:#?}");
    assert_eq!(batched[0]["id"], 1);
    assert_eq!(batched[0]["result"], json!({}));
    assert_eq!(batched[1]["id"], 2);
    assert_eq!(batched[1]["result"]["content"][0]["text"], "hi");
    assert_eq!(batched[2]["id"], 3);
    assert_eq!(batched[2]["error"]["code"], -32600);
    assert_eq!(batched[3]["error"]["code"], -32600);
    let empty = answers
        .iter()
        .find(|a| a["error"]["message"] == "Invalid Request: an empty batch");
    assert!(empty.is_some(), "{answers:#?}");
    // Later versions removed batches.
    let answers = exchange(tools![hi], &[INIT, batch]).await;
    assert_eq!(answers.len(), 2);
    assert!(
        answers
            .iter()
            .any(|a| a["error"]["code"] == -32600 && a["id"].is_null())
    );
}

/// A colour written as `#rrggbb`: the schema says only "a string"; `Deserialize` says the rest.
#[derive(Debug)]
pub struct Hex(pub u32);

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.strip_prefix('#')
            .filter(|h| h.len() == 6)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .map(Hex)
            .ok_or_else(|| serde::de::Error::custom("expected a colour such as #a0b1c2"))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct Palette {
    #[schemars(with = "Vec<String>")]
    pub colours: Vec<Hex>,
}

/// Count a palette's colours.
#[tool]
fn count_colours(palette: Palette) -> usize {
    palette.colours.len()
}

#[tokio::test]
async fn a_value_serde_refuses_after_the_schema_allowed_it_is_named_by_its_pointer() {
    let server = server(tools![count_colours]);
    let client = Client::in_process(&server).await.unwrap();
    let count = async |colours: Value| {
        let args = json!({"palette": {"colours": colours}});
        client.call_tool("count_colours", args).await.unwrap()
    };
    let ok = count(json!(["#000000", "#ffffff"])).await;
    assert_eq!(ok.structured_content, Some(json!({"result": 2})));
    let refused = count(json!(["#000000", "red"])).await;
    assert!(refused.is_error);
    assert_eq!(
        refused.first_text(),
        Some(
            "Invalid arguments for tool count_colours: /palette/colours/1: expected a colour such as #a0b1c2"
        )
    );
}

/// Cancel an order.
#[tool(destructive)]
fn cancel_order(order_id: i64) -> i64 {
    order_id
}

#[tokio::test]
async fn integers_are_never_clamped_or_rounded() {
    let answers = exchange(
        tools![cancel_order],
        &[
            INIT,
            // Beyond i64: serde_json reads it as the float -2^63, which would be i64::MIN.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order_id":-9223372036854775809}}}"#,
            // 2^53 + 1 written as a float: the nearest float is 2^53.
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order_id":9007199254740993.0}}}"#,
            // Beyond i64 but within u64: exact, and refused by the type.
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order_id":9223372036854775808}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order_id":9007199254740993}}}"#,
        ],
    )
    .await;
    let text = |id: i64| {
        let a = answers.iter().find(|a| a["id"] == id).unwrap();
        (
            a["result"]["isError"].as_bool().unwrap_or(false),
            a["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    };
    assert_eq!(
        text(1),
        (true, "Invalid arguments for tool cancel_order: /order_id: must be >= -9223372036854775808 (got -9.223372036854776e+18)".into())
    );
    assert_eq!(
        text(2),
        (true, "Invalid arguments for tool cancel_order: /order_id: must be an integer literal: a float this large is not exact (got 9007199254740992.0)".into())
    );
    assert_eq!(
        text(3),
        (true, "Invalid arguments for tool cancel_order: /order_id: must be <= 9223372036854775807 (got 9223372036854775808)".into())
    );
    assert_eq!(text(4), (false, "9007199254740993".into()));
}
