//! The complexity battery's server (BENCHMARKS.md, "Complexity battery"): a tool, a prompt or a
//! resource for each path that reads what a client sends, each answering with something
//! `driver complexity` checks (a length, a count), so that the battery times the path and not an
//! error.
//!
//! - `nested_a` and `words`: a string argument under one of the two hostile patterns of issue 41;
//!   `echo`: a plain string argument; `tally`: a map of lists (a violation's pointer under a
//!   key the client chose).
//! - `unique`: an array published with `uniqueItems`; `shapes`: an array of untagged enums of
//!   untagged enums; `trees`: recursive untagged unions (an `anyOf` of two objects that each hold
//!   the next level); `chains`: `unevaluatedProperties` beside a recursive `$ref`. The last three
//!   take their schemas through `Tool::with_input_schema` and their values as JSON, so that the
//!   battery times the validator, not serde's deserializer (serde's own `untagged` tries each
//!   variant again at every level).
//! - the prompt `brief`: any number of arguments (`prompts/get`), its `topic` completing by prefix.
//! - the templates `files://{+path}` and `notes://{title}/{section}`.
//!
//! `complexity-server` serves stdio; `complexity-server --http ADDR` Streamable HTTP (the
//! runtime's command line).

use mcp_runtime::prelude::*;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::{Tool, ToolTable};

/// The length of `text`, which must be one or more runs of `a` (the nested quantifier of issue 41).
#[tool]
fn nested_a(#[arg(pattern = "^(a+)+$")] text: String) -> usize {
    text.len()
}

/// The length of `text`, which must be words of lowercase letters, each followed by at most one
/// space (the word list of issue 41).
#[tool]
fn words(#[arg(pattern = "^([a-z]+ ?)*$")] text: String) -> usize {
    text.len()
}

/// The length of `text`.
#[tool]
fn echo(text: String) -> usize {
    text.len()
}

/// How many numbers the lists hold in all.
#[tool]
fn tally(lists: std::collections::HashMap<String, Vec<i64>>) -> usize {
    lists.values().map(Vec::len).sum()
}

/// How many items: they must be distinct (`uniqueItems`, see `server`).
#[tool]
fn unique(items: Vec<Value>) -> usize {
    items.len()
}

/// A leaf: a number, a flag or a text.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde", untagged)]
enum Leaf {
    Int(i64),
    Flag(bool),
    Text(String),
}

/// A shape: a point, a pair or a single leaf.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde", untagged)]
enum Shape {
    Point { x: Leaf, y: Leaf },
    Pair(Leaf, Leaf),
    One(Leaf),
}

impl Leaf {
    /// A text's length, a number's size, a flag as 0 or 1.
    fn weight(&self) -> usize {
        match self {
            Leaf::Int(i) => i.unsigned_abs() as usize,
            Leaf::Flag(b) => usize::from(*b),
            Leaf::Text(s) => s.len(),
        }
    }
}

impl Shape {
    fn weight(&self) -> usize {
        match self {
            Shape::Point { x, y } | Shape::Pair(x, y) => x.weight() + y.weight(),
            Shape::One(leaf) => leaf.weight(),
        }
    }
}

/// The total weight of the shapes' leaves.
#[tool]
fn shapes(shapes: Vec<Shape>) -> usize {
    shapes.iter().map(Shape::weight).sum()
}

/// An expression, untagged: serde tries `Neg`, then `Abs`, then `Num`, and `Neg` decodes `of`
/// before it finds no `neg` (a value that takes `Abs` at every level is decoded 2^depth times).
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde", untagged)]
#[allow(dead_code)] // the flags and the number are there to be decoded, not read
enum Expr {
    Neg { of: Box<Expr>, neg: bool },
    Abs { of: Box<Expr>, abs: bool },
    Num { num: i64 },
}

impl Expr {
    fn depth(&self) -> usize {
        match self {
            Expr::Neg { of, .. } | Expr::Abs { of, .. } => 1 + of.depth(),
            Expr::Num { .. } => 0,
        }
    }
}

/// How many operators the expressions nest in all.
#[tool]
fn exprs(exprs: Vec<Expr>) -> usize {
    exprs.iter().map(Expr::depth).sum()
}

/// How many levels the trees hold in all (each level's first child is the next).
#[tool]
fn trees(trees: Vec<Value>) -> usize {
    trees.iter().map(|t| levels(t, "a")).sum()
}

/// How many links the chains hold in all.
#[tool]
fn chains(chains: Vec<Value>) -> usize {
    chains.iter().map(|c| levels(c, "next")).sum()
}

/// How many objects deep `v` goes through `key` (an array's first item, or an object).
fn levels(mut v: &Value, key: &str) -> usize {
    let mut n = 0;
    while let Some(next) = v.get(key) {
        n += 1;
        v = match next {
            Value::Array(items) => match items.first() {
                Some(first) => first,
                None => break,
            },
            other => other,
        };
    }
    n
}

/// The schemas of `unique`, `trees` and `chains`.
fn schemas(name: &str) -> Option<Value> {
    let object = |property: &str, items: Value, defs: Value| {
        json!({
            "type": "object",
            "properties": {property: {"type": "array", "items": items}},
            "required": [property],
            "additionalProperties": false,
            "$defs": defs,
        })
    };
    // One level of a tree: the next levels under `a`, and `key` of its own type.
    let level = |key: &str, schema: Value| {
        let mut properties = json!({"a": {"type": "array", "items": {"$ref": "#/$defs/N"}}});
        properties[key] = schema;
        json!({"type": "object", "properties": properties, "required": ["a", key]})
    };
    Some(match name {
        "unique" => {
            let mut schema = object("items", json!({}), json!({}));
            schema["properties"]["items"]["uniqueItems"] = true.into();
            schema
        }
        "trees" => object(
            "trees",
            json!({"$ref": "#/$defs/N"}),
            json!({"N": {"anyOf": [
                level("x", json!({"type": "integer"})),
                level("y", json!({"type": "string"})),
            ]}}),
        ),
        "chains" => object(
            "chains",
            json!({"$ref": "#/$defs/Node"}),
            json!({
                "Node": {"$ref": "#/$defs/Base", "unevaluatedProperties": false},
                "Base": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "next": {"$ref": "#/$defs/Node"}},
                    "required": ["name"],
                },
            }),
        ),
        _ => return None,
    })
}

/// Ask for a brief on a topic.
#[prompt]
fn brief(
    /// The topic.
    #[arg(complete = topics)]
    topic: String,
    /// How much detail.
    detail: Option<String>,
) -> String {
    format!("{} {}", topic.len(), detail.map_or(0, |d| d.len()))
}

/// Three topics that start with what was typed.
fn topics(request: &CompleteRequest) -> Vec<String> {
    (1..=3).map(|i| format!("{}{i}", request.value())).collect()
}

/// The length of a path (reserved expansion: it may hold `/`).
#[resource(uri = "files://{+path}", mime_type = "text/plain")]
fn file(path: String) -> String {
    path.len().to_string()
}

/// The lengths of a note's title and section.
#[resource(uri = "notes://{title}/{section}", mime_type = "text/plain")]
fn section(title: String, section: String) -> String {
    format!("{} {}", title.len(), section.len())
}

fn server() -> Result<Server, String> {
    let table = tools![
        nested_a, words, echo, tally, unique, shapes, exprs, trees, chains
    ];
    let tools = table
        .iter()
        .cloned()
        .map(|tool: Tool| match schemas(tool.name()) {
            Some(schema) => tool.with_input_schema(schema),
            None => Ok(tool),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Server::builder("complexity", "1.0.0")
        .tools(ToolTable::from_tools(tools))
        .prompts(prompts![brief])
        .resources(resources![file, section])
        .build()
        .map_err(|e| e.to_string())
}

fn main() -> std::process::ExitCode {
    match server() {
        Ok(server) => mcp_runtime::cli::run(server),
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}
