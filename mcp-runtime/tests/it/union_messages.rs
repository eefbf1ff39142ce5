//! What the model reads when an argument of an enum type is refused: the unknown discriminator
//! with the allowed values, the selected variant's own violations at their own pointers, the
//! closest shape of an untagged enum, and the hint for an object sent as a string of JSON. Every
//! tool is a real `#[tool]` over real `#[derive(Deserialize, JsonSchema)]` enums, called through
//! the in-memory client.
#![deny(missing_docs)]
// The enums exist to be deserialized; their fields are never read.
#![allow(dead_code)]

use mcp_runtime::prelude::*;
use mcp_runtime::{Client, Server};
use serde_json::{Value, json};

// ---- the enums, one per serde representation ------------------------------------------------------

/// Internally tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Rule {
    /// A share of the price.
    Percent {
        /// Out of 100.
        value: u8,
    },
    /// A fixed amount off.
    Fixed {
        /// In cents.
        amount: u32,
    },
    /// Move the item.
    MoveTo {
        /// Where to.
        location: String,
    },
}

/// Adjacently tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    /// A number.
    Num(i32),
    /// Two named halves.
    Pair {
        /// The left half.
        left: String,
        /// The right half.
        right: bool,
    },
    /// Nothing at all.
    Nothing,
}

/// Externally tagged (serde's default).
#[derive(Debug, Deserialize, JsonSchema)]
enum Shape {
    /// No shape.
    Unit,
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A byte.
    Byte(u8),
}

/// Untagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Target {
    /// A point.
    Point {
        /// Across.
        x: i32,
        /// Down.
        y: i32,
    },
    /// A named place.
    Named {
        /// Its name.
        name: String,
        /// Its floor.
        floor: u8,
    },
    /// A word.
    Word(String),
}

/// Three levels: internally tagged, holding an adjacently tagged enum, holding an externally
/// tagged one.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Outer {
    /// Wraps the middle level.
    Group {
        /// The middle level.
        inner: Middle,
    },
    /// Stops here.
    Stop,
}

/// The middle level.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
enum Middle {
    /// Holds the innermost level.
    Wrap(Inner),
    /// Empty.
    Empty,
}

/// The innermost level.
#[derive(Debug, Deserialize, JsonSchema)]
enum Inner {
    /// A leaf with a size.
    Leaf {
        /// At least 1.
        size: std::num::NonZeroU16,
    },
    /// A list of shapes.
    Shapes(Vec<Shape>),
}

// ---- tools ---------------------------------------------------------------------------------------

/// Applies a rule.
#[tool]
fn apply(rule: Rule, maybe: Option<Rule>, more: Option<Vec<Rule>>) -> bool {
    let _ = (rule, maybe, more);
    true
}

/// Takes one value of each other enum.
#[tool]
fn take(
    adj: Option<Adjacent>,
    shape: Option<Shape>,
    target: Option<Target>,
    outer: Option<Outer>,
) -> bool {
    let _ = (adj, shape, target, outer);
    true
}

async fn client() -> Client {
    let server = Server::builder("unions", "0.1.0")
        .tools(tools![apply, take])
        .build()
        .expect("the tools build");
    Client::in_process(&server).await.expect("connects")
}

/// Calls `tool` and returns what the model reads after the common prefix, or `ok` when the call
/// was accepted.
async fn refusal(client: &Client, tool: &str, arguments: Value) -> String {
    let result = client.call_tool(tool, arguments).await.expect("a result");
    let text = result.first_text().unwrap_or_default().to_owned();
    if !result.is_error {
        return "ok".into();
    }
    let prefix = format!("Invalid arguments for tool {tool}: ");
    text.strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("not an invalid-arguments refusal: {text}"))
        .to_owned()
}

/// Runs `(tool, arguments, expected)` rows against one client.
async fn rows(rows: &[(&str, Value, &str)]) {
    let client = client().await;
    for (tool, arguments, expected) in rows {
        let got = refusal(&client, tool, arguments.clone()).await;
        assert_eq!(got, *expected, "{tool} {arguments}");
    }
}

// ---- tests ---------------------------------------------------------------------------------------

#[tokio::test]
async fn internally_tagged() {
    rows(&[
        ("apply", json!({"rule": {"kind": "percent", "value": 5}}), "ok"),
        (
            "apply",
            json!({"rule": {"kind": "explode"}}),
            r#"/rule/kind: must be one of "percent", "fixed", "moveTo" (got "explode")"#,
        ),
        (
            "apply",
            json!({"rule": {"kind": 7}}),
            r#"/rule/kind: must be one of "percent", "fixed", "moveTo" (got 7)"#,
        ),
        (
            "apply",
            json!({"rule": {"kind": "moveTo"}}),
            r#"/rule: missing required property "location" (kind = "moveTo")"#,
        ),
        (
            "apply",
            json!({"rule": {"kind": "percent", "value": 300}}),
            "/rule/value: must be <= 255 (got 300)",
        ),
        (
            "apply",
            json!({"rule": {"value": 3}}),
            r#"/rule: missing required property "kind" (must be one of "percent", "fixed", "moveTo")"#,
        ),
        (
            "apply",
            json!({"rule": 12}),
            "/rule: must be an object (got number)",
        ),
        // Through `Option<T>` and `Vec<T>`: the same messages at their own pointers.
        (
            "apply",
            json!({"rule": {"kind": "fixed", "amount": 1}, "maybe": {"kind": "fixed", "amount": -1}}),
            "/maybe/amount: must be >= 0 (got -1)",
        ),
        (
            "apply",
            json!({"rule": {"kind": "fixed", "amount": 1}, "more": [{"kind": "fixed", "amount": 1}, {"kind": "Fixed"}]}),
            r#"/more/1/kind: must be one of "percent", "fixed", "moveTo" (got "Fixed")"#,
        ),
    ])
    .await;
}

#[tokio::test]
async fn adjacently_tagged() {
    rows(&[
        ("take", json!({"adj": {"t": "Num", "c": 3}}), "ok"),
        ("take", json!({"adj": {"t": "Nothing"}}), "ok"),
        (
            "take",
            json!({"adj": {"t": "Triple", "c": 3}}),
            r#"/adj/t: must be one of "Num", "Pair", "Nothing" (got "Triple")"#,
        ),
        (
            "take",
            json!({"adj": {"t": "Num", "c": "3"}}),
            "/adj/c: must be an integer (got string)",
        ),
        (
            "take",
            json!({"adj": {"t": "Num"}}),
            r#"/adj: missing required property "c" (t = "Num")"#,
        ),
        (
            "take",
            json!({"adj": {"t": "Pair", "c": {"left": "a"}}}),
            r#"/adj/c: missing required property "right""#,
        ),
    ])
    .await;
}

#[tokio::test]
async fn externally_tagged() {
    rows(&[
        ("take", json!({"shape": "Unit"}), "ok"),
        ("take", json!({"shape": {"Byte": 7}}), "ok"),
        (
            "take",
            json!({"shape": {"Circle": {"radius": "big"}}}),
            "/shape/Circle/radius: must be a number (got string)",
        ),
        (
            "take",
            json!({"shape": {"Byte": 256}}),
            "/shape/Byte: must be <= 255 (got 256)",
        ),
        (
            "take",
            json!({"shape": "Circle"}),
            r#"/shape: must be "Unit", or an object with one of the keys "Circle", "Byte" (got "Circle")"#,
        ),
        (
            "take",
            json!({"shape": {"Square": {}}}),
            r#"/shape: must have one of the keys "Circle", "Byte" (got {"Square":{}})"#,
        ),
        (
            "take",
            json!({"shape": {"Byte": 1, "Circle": {"radius": 1.0}}}),
            r#"/shape: unknown property "Byte" (allowed: Circle)"#,
        ),
    ])
    .await;
}

#[tokio::test]
async fn untagged_reports_the_closest_shape() {
    rows(&[
        ("take", json!({"target": {"x": 1, "y": 2}}), "ok"),
        ("take", json!({"target": "home"}), "ok"),
        // Both object shapes are candidates; `Point` matched more (a violation one level down).
        (
            "take",
            json!({"target": {"x": 1, "y": "2"}}),
            "/target/y: must be an integer (got string)",
        ),
        (
            "take",
            json!({"target": {"name": "hall", "floor": -1}}),
            "/target/floor: must be >= 0 (got -1)",
        ),
        // Equally far from both: the first declared.
        (
            "take",
            json!({"target": {"x": 1}}),
            r#"/target: missing required property "y""#,
        ),
        (
            "take",
            json!({"target": 3}),
            "/target: must be a string or an object (got number)",
        ),
    ])
    .await;
}

#[tokio::test]
async fn three_levels_down_at_their_own_pointer() {
    rows(&[
        (
            "take",
            json!({"outer": {"op": "group", "inner": {"t": "Wrap", "c": {"Leaf": {"size": 2}}}}}),
            "ok",
        ),
        (
            "take",
            json!({"outer": {"op": "group", "inner": {"t": "Wrap", "c": {"Leaf": {"size": 0}}}}}),
            "/outer/inner/c/Leaf/size: must be >= 1 (got 0)",
        ),
        (
            "take",
            json!({"outer": {"op": "group", "inner": {"t": "Wrap", "c": {"Shapes": ["Unit", {"Byte": -1}]}}}}),
            "/outer/inner/c/Shapes/1/Byte: must be >= 0 (got -1)",
        ),
        (
            "take",
            json!({"outer": {"op": "group", "inner": {"t": "Wrap", "c": {"Leaf": {}}}}}),
            r#"/outer/inner/c/Leaf: missing required property "size""#,
        ),
        (
            "take",
            json!({"outer": {"op": "group", "inner": {"t": "Wrapped"}}}),
            r#"/outer/inner/t: must be one of "Wrap", "Empty" (got "Wrapped")"#,
        ),
        (
            "take",
            json!({"outer": {"op": "grup"}}),
            r#"/outer/op: must be one of "group", "stop" (got "grup")"#,
        ),
    ])
    .await;
}

#[tokio::test]
async fn json_in_a_string_gets_a_hint() {
    let hint = "(got a string holding JSON; pass the object itself)";
    rows(&[
        (
            "apply",
            json!({"rule": r#"{"kind": "percent", "value": 5}"#}),
            &format!("/rule: must be an object {hint}"),
        ),
        (
            "take",
            json!({"adj": r#" {"t": "Num", "c": 3}"#}),
            &format!("/adj: must be an object {hint}"),
        ),
        (
            "take",
            json!({"shape": r#"{"Byte": 7}"#}),
            &format!("/shape: must be an object {hint}"),
        ),
        (
            "take",
            json!({"target": r#"{"x": 1}"#}),
            "ok", // `Word` takes any string: accepted as a word.
        ),
        (
            "apply",
            json!({"rule": {"kind": "fixed", "amount": 1}, "more": r#"[{"kind": "fixed", "amount": 1}]"#}),
            "/more: must be an array (got a string holding JSON; pass the array itself)",
        ),
        // Not JSON, or not an object: no hint.
        (
            "apply",
            json!({"rule": "{kind: percent}"}),
            "/rule: must be an object (got string)",
        ),
        (
            "apply",
            json!({"rule": "[1, 2]"}),
            "/rule: must be an object (got string)",
        ),
    ])
    .await;
}
