//! `#[arg(flatten)]`: one struct as a tool's input, its fields published and validated as the
//! tool's own top-level arguments; and strict objects: a nested struct refuses keys it does not
//! declare, unless its type opts in to extra keys.
#![deny(missing_docs)]

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, Client, Tool};
use serde_json::{Value, json};
use test_support::call_detached as call;

// ---- types ---------------------------------------------------------------------------------------

/// How to search. (A struct's own doc is not published: the tool's description is.)
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SearchParams {
    /// Words to look for.
    #[schemars(length(min = 1, max = 40))]
    query: String,
    /// How many results at most.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    max_results: u32,
    /// Only items in this category.
    category: Option<String>,
    /// How results are drawn.
    #[serde(default)]
    style: Style,
}

fn ten() -> u32 {
    10
}

/// Colours and sizes of the results.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Style {
    /// `#rrggbb`.
    #[serde(default)]
    color_hex: Option<String>,
    #[serde(default)]
    large: bool,
}

/// Paging, refusing any key it does not know.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Page {
    #[serde(default)]
    offset: u32,
}

/// A struct that takes every other key.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Labels {
    owner: String,
    #[serde(flatten)]
    rest: BTreeMap<String, i64>,
}

/// Extra keys welcome: the documented opt-out of strict objects.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
struct Loose {
    name: String,
}

/// Publishes `query` too.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct AlsoQuery {
    query: String,
}

/// A struct with a flattened enum inside: `oneOf` beside its properties.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Tagged {
    label: String,
    #[serde(flatten)]
    shape: Shape,
}

/// A tagged shape.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

/// The same as `SearchParams`, under another name.
type Alias = SearchParams;

// ---- tools ---------------------------------------------------------------------------------------

/// Search the catalogue.
#[tool]
fn search(#[arg(flatten)] params: SearchParams) -> Value {
    json!({
        "query": params.query,
        "maxResults": params.max_results,
        "category": params.category,
        "style": params.style,
    })
}

/// Search a page of the catalogue, in a shop.
#[tool]
async fn search_page(
    /// The shop to search.
    #[arg(min_length = 2)]
    shop: String,
    #[arg(flatten)] params: SearchParams,
    #[arg(flatten)] page: Page,
    #[arg(default = false)] dry_run: bool,
) -> Value {
    json!({"shop": shop, "query": params.query, "offset": page.offset, "dryRun": dry_run})
}

/// Label an item.
#[tool]
fn label(item: String, #[arg(flatten)] labels: Labels) -> Value {
    json!({"item": item, "owner": labels.owner, "rest": labels.rest})
}

/// Draw with a style.
#[tool]
fn draw(style: Style, loose: Loose) -> String {
    format!("{:?} {}", style.color_hex, loose.name)
}

/// Two sources of `query`: a flattened struct and an argument.
#[tool]
fn clash_arg(query: String, #[arg(flatten)] params: SearchParams) -> String {
    format!("{query}{}", params.query)
}

/// Two flattened structs that both publish `query`.
#[tool]
fn clash_flat(#[arg(flatten)] a: SearchParams, #[arg(flatten)] b: AlsoQuery) -> String {
    a.query + &b.query
}

/// The same struct twice, through an alias the macro cannot see through.
#[tool]
fn clash_alias(#[arg(flatten)] a: SearchParams, #[arg(flatten)] b: Alias) -> String {
    a.query + &b.query
}

/// A flattened struct whose schema is not a plain object.
#[tool]
fn tagged(#[arg(flatten)] t: Tagged) -> String {
    t.label
}

/// A struct with a flattened enum, taken as an ordinary argument.
#[tool]
fn tag(t: Tagged) -> String {
    match t.shape {
        Shape::Circle { radius } => format!("{} {radius}", t.label),
        Shape::Square { side } => format!("{} {side}", t.label),
    }
}

/// A flattened value that is not a struct.
#[tool]
fn not_a_struct(#[arg(flatten)] n: u32) -> u32 {
    n
}

/// A flattened enum of objects.
#[tool]
fn an_enum(#[arg(flatten)] shape: Shape) -> String {
    match shape {
        Shape::Circle { radius } => radius.to_string(),
        Shape::Square { side } => side.to_string(),
    }
}

/// Values a string takes.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    /// Red.
    Red,
    /// Blue.
    Blue,
}

/// A flattened enum of strings.
#[tool]
fn a_string_enum(#[arg(flatten)] colour: Colour) -> String {
    match colour {
        Colour::Red => "red".into(),
        Colour::Blue => "blue".into(),
    }
}

fn served() -> (ToolTable, Arc<StateMap>) {
    let table = tools![search, search_page, label, draw, tag];
    assert_eq!(table.check(), []);
    (table, Arc::new(StateMap::new()))
}

fn schema_of(name: &str) -> Value {
    served().0.get(name).expect("served").input_schema().clone()
}

/// The structured result of a call that succeeds (unwrapped from `{"result": ...}`).
async fn returns(name: &str, args: Value) -> Value {
    let (table, state) = served();
    let r = call(&table, &state, name, args).await;
    assert!(!r.is_error, "{name}: {r:?}");
    r.structured_content.expect("structured")["result"].take()
}

/// Asserts that a call is refused with `expected` in its text.
async fn refuses(name: &str, args: Value, expected: &str) {
    let (table, state) = served();
    let r = call(&table, &state, name, args.clone()).await;
    let text = r.first_text().unwrap_or_default();
    assert!(
        r.is_error && text.contains(expected),
        "{name} {args}: {text}"
    );
}

// ---- point 2: one struct as the input ------------------------------------------------------------

#[test]
fn the_fields_are_published_as_top_level_arguments() {
    assert_eq!(
        schema_of("search"),
        json!({
            "type": "object",
            "properties": {
                "query": {"description": "Words to look for.", "type": "string", "minLength": 1, "maxLength": 40},
                "maxResults": {"description": "How many results at most.", "type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                "category": {"description": "Only items in this category.", "type": ["string", "null"]},
                "style": {
                    "description": "How results are drawn.",
                    "type": "object",
                    "properties": {
                        "colorHex": {"description": "`#rrggbb`.", "type": ["string", "null"], "default": null},
                        "large": {"type": "boolean", "default": false}
                    },
                    "default": {"colorHex": null, "large": false},
                    "additionalProperties": false
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    );
}

#[tokio::test]
async fn the_body_receives_the_deserialized_struct() {
    let defaults = json!({"query": "lamp", "maxResults": 10, "category": null, "style": {"colorHex": null, "large": false}});
    assert_eq!(returns("search", json!({"query": "lamp"})).await, defaults);
    let all = json!({"query": "lamp", "maxResults": 3, "category": "light", "style": {"colorHex": "#ffcc00", "large": true}});
    assert_eq!(returns("search", all.clone()).await, all);
}

#[tokio::test]
async fn flattened_structs_mix_with_ordinary_arguments() {
    let schema = schema_of("search_page");
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        names,
        [
            "shop",
            "query",
            "maxResults",
            "category",
            "style",
            "offset",
            "dry_run"
        ]
    );
    assert_eq!(schema["required"], json!(["shop", "query"]));
    assert_eq!(
        schema["properties"]["shop"]["description"],
        "The shop to search."
    );
    // Each struct receives its own keys, `Page` with `deny_unknown_fields` included.
    let given = json!({"shop": "north", "query": "desk", "offset": 20, "dry_run": true});
    let expected = json!({"shop": "north", "query": "desk", "offset": 20, "dryRun": true});
    assert_eq!(returns("search_page", given).await, expected);
    let defaults = json!({"shop": "north", "query": "desk", "offset": 0, "dryRun": false});
    let given = json!({"shop": "north", "query": "desk"});
    assert_eq!(returns("search_page", given).await, defaults);
}

#[tokio::test]
async fn the_fields_are_validated_at_top_level_pointers() {
    let both = json!({"query": "", "maxResults": 0});
    refuses("search", both.clone(), "/query: ").await;
    refuses("search", both, "/maxResults: ").await;
    refuses("search", json!({"maxResults": 5}), "\"query\"").await;
    let unknown =
        r#"/: unknown argument "max_results" (allowed: query, maxResults, category, style)"#;
    refuses("search", json!({"query": "a", "max_results": 5}), unknown).await;
    let mixed = json!({"shop": "n", "query": "a", "offset": -1});
    refuses("search_page", mixed.clone(), "/shop: ").await;
    refuses("search_page", mixed, "/offset: ").await;
}

#[tokio::test]
async fn a_catch_all_map_takes_the_undeclared_keys() {
    let schema = schema_of("label");
    assert_eq!(schema["additionalProperties"], json!({"type": "integer"}));
    assert_eq!(schema["required"], json!(["item", "owner"]));
    let given = json!({"item": "chair", "owner": "ana", "legs": 4, "arms": 2});
    let expected = json!({"item": "chair", "owner": "ana", "rest": {"arms": 2, "legs": 4}});
    assert_eq!(returns("label", given).await, expected);
    let bad = json!({"item": "c", "owner": "a", "legs": "four"});
    refuses("label", bad, "/legs: ").await;
}

/// The problem `ServerBuilder::build` reports for a tool alone.
fn build_problem(table: ToolTable) -> String {
    match Server::builder("t", "1").tools(table).build() {
        Err(BuildError::Tool(e)) => e.to_string(),
        Err(other) => panic!("unexpected error: {other}"),
        Ok(_) => panic!("built"),
    }
}

#[test]
fn a_name_published_twice_is_a_build_error_naming_both() {
    let cases = [
        (
            tools![clash_arg],
            "tool `clash_arg` cannot be served: the argument name(s) `query` are published by both the argument `query` and the flattened argument `params` (`it::flatten::SearchParams`); rename one",
        ),
        (
            tools![clash_flat],
            "the argument name(s) `query` are published by both the flattened argument `a` (`it::flatten::SearchParams`) and the flattened argument `b` (`it::flatten::AlsoQuery`)",
        ),
        (
            tools![clash_alias],
            "the argument name(s) `query`, `maxResults`, `category`, `style` are published by both the flattened argument `a` (`it::flatten::SearchParams`) and the flattened argument `b` (`it::flatten::SearchParams`)",
        ),
        (
            tools![tagged],
            "the flattened argument `t` (`it::flatten::Tagged`) publishes `oneOf` beside its properties",
        ),
        (
            tools![not_a_struct],
            "the flattened argument `n` (`u32`) must be a struct",
        ),
        (
            tools![an_enum],
            "the flattened argument `shape` (`it::flatten::Shape`) is an enum: `#[arg(flatten)]` publishes a struct's fields as the tool's own arguments, and an enum has no fixed fields; take it as an ordinary argument (without `#[arg(flatten)]`), or flatten a struct that holds it as a field",
        ),
        (
            tools![a_string_enum],
            "the flattened argument `colour` (`it::flatten::Colour`) is an enum",
        ),
    ];
    for (table, expected) in cases {
        let e = build_problem(table);
        assert!(e.contains(expected), "{e}");
    }
}

#[tokio::test]
async fn over_the_protocol_the_struct_is_the_input() {
    let built = Server::builder("flat", "1").tools(tools![search]).build();
    let client = Client::in_process(&built.expect("built")).await;
    let client = client.expect("connected");
    let listed = client.list_tools().await.unwrap();
    let tool = Tool::build(<search as mcp_runtime::__private::ToolDef>::spec());
    assert_eq!(listed[0]["inputSchema"], *tool.input_schema());
    let args = json!({"query": "x", "maxResults": 2});
    let r = client.call_tool("search", args).await.unwrap();
    assert_eq!(r.structured_content.unwrap()["result"]["maxResults"], 2);
    let typo = json!({"query": "x", "style": {"colorhex": "#fff"}});
    let r = client.call_tool("search", typo).await.unwrap();
    let text = r.first_text().unwrap();
    assert!(
        r.is_error && text.contains(r#"/style: unknown property "colorhex""#),
        "{text}"
    );
}

// ---- point 8: strict nested objects --------------------------------------------------------------

#[tokio::test]
async fn a_misspelt_nested_field_is_refused_at_its_pointer() {
    let unknown = r#"/style: unknown property "colorhex" (allowed: colorHex, large)"#;
    let typo = json!({"style": {"colorhex": "#fff"}, "loose": {"name": "a"}});
    refuses("draw", typo, unknown).await;
    // Through a flattened struct too.
    refuses(
        "search",
        json!({"query": "a", "style": {"colorhex": "#fff"}}),
        unknown,
    )
    .await;
    let right = json!({"style": {"colorHex": "#fff"}, "loose": {"name": "a"}});
    assert_eq!(returns("draw", right).await, json!("Some(\"#fff\") a"));
}

#[tokio::test]
async fn a_type_that_opts_in_to_extra_keys_accepts_them() {
    let schema = schema_of("draw");
    assert_eq!(
        schema["properties"]["loose"]["additionalProperties"],
        json!(true)
    );
    assert_eq!(
        schema["properties"]["style"]["additionalProperties"],
        json!(false)
    );
    let extra = json!({"style": {}, "loose": {"name": "a", "extra": 1}});
    assert_eq!(returns("draw", extra).await, json!("None a"));
}

#[tokio::test]
async fn beside_a_one_of_the_branch_keys_are_declared_and_others_refused() {
    let t = schema_of("tag");
    let t = &t["properties"]["t"];
    assert_eq!(t["unevaluatedProperties"], json!(false));
    assert_eq!(t.get("additionalProperties"), None);
    assert_eq!(t["oneOf"][0].get("additionalProperties"), None);
    let circle = json!({"t": {"label": "a", "kind": "circle", "radius": 2.5}});
    assert_eq!(returns("tag", circle).await, json!("a 2.5"));
    let typo = json!({"t": {"label": "a", "kind": "square", "side": 1, "sied": 2}});
    refuses("tag", typo, "sied").await;
    let other_branch = json!({"t": {"label": "a", "kind": "square", "side": 1, "radius": 2}});
    refuses("tag", other_branch, "radius").await;
}

/// How to order the results: a tagged enum.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "order", rename_all = "lowercase")]
pub enum Order {
    /// By relevance.
    Relevance,
    /// By date, newest first or not.
    Date {
        /// Newest first.
        newest: bool,
    },
}

/// A query whose serde attributes refuse every input: `deny_unknown_fields` with a flattened
/// tagged enum, whose tag serde then calls an unknown field.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StrictQuery {
    /// What to look for.
    pub text: String,
    /// How to order the results.
    #[serde(flatten)]
    pub order: Order,
}

/// The same query, without `deny_unknown_fields`.
#[derive(Deserialize, JsonSchema)]
pub struct OpenQuery {
    /// What to look for.
    pub text: String,
    /// How to order the results.
    #[serde(flatten)]
    pub order: Order,
}

/// Searches with the strict query.
#[tool]
fn strict_search(query: StrictQuery) -> String {
    query.text
}

/// Searches with the strict query, optional.
#[tool]
fn strict_maybe(query: Option<StrictQuery>) -> String {
    query.map(|q| q.text).unwrap_or_default()
}

/// Searches with the open query.
#[tool]
fn open_search(query: OpenQuery) -> String {
    match query.order {
        Order::Relevance => query.text,
        Order::Date { newest } => format!("{} {newest}", query.text),
    }
}

#[tokio::test]
async fn deny_unknown_fields_with_serde_flatten_is_a_build_error_that_names_the_fix() {
    for (table, which) in [
        (
            tools![strict_search],
            "the argument `query` (`it::flatten::StrictQuery`)",
        ),
        (
            tools![strict_maybe],
            "the argument `query` (`core::option::Option<it::flatten::StrictQuery>`)",
        ),
    ] {
        let e = build_problem(table);
        assert!(e.contains(which), "{e}");
        assert!(e.contains("unknown field"), "{e}");
        assert!(
            e.contains("serde does not support `#[serde(deny_unknown_fields)]` together with `#[serde(flatten)]`"),
            "{e}"
        );
        assert!(e.contains("remove `deny_unknown_fields`"), "{e}");
    }
    // Without `deny_unknown_fields` the same shape is served, and the published schema still
    // refuses an unknown field.
    let server = Server::builder("t", "1")
        .tools(tools![open_search])
        .build()
        .unwrap_or_else(|e| panic!("builds: {e}"));
    let client = mcp_runtime::Client::in_process(&server).await.unwrap();
    let ok = client
        .call_tool(
            "open_search",
            json!({"query": {"text": "milk", "order": "date", "newest": true}}),
        )
        .await
        .unwrap();
    assert_eq!(ok.first_text(), Some("milk true"), "{ok:?}");
    let refused = client
        .call_tool(
            "open_search",
            json!({"query": {"text": "milk", "order": "relevance", "x": 1}}),
        )
        .await
        .unwrap();
    assert!(refused.is_error, "{refused:?}");
}
