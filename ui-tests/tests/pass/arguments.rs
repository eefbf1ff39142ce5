//! Every argument type and every `#[arg]` key, with bounds at the edges of their types.
#![deny(warnings, missing_docs, unused, nonstandard_style)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use mcp_runtime::prelude::*;

/// A point.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Point {
    /// Across.
    pub x: i64,
    /// Down.
    pub y: i64,
}

/// A priority.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Later.
    Low,
    /// Now.
    #[default]
    High,
}

/// Takes one argument of every scalar type.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn scalars(
    text: String,
    flag: bool,
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: i128,
    f: isize,
    g: u8,
    h: u16,
    i: u32,
    j: u64,
    k: u128,
    l: usize,
    m: f32,
    n: f64,
    letter: char,
) -> String {
    format!("{text}{flag}{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}{m}{n}{letter}")
}

/// Takes one argument of every compound type.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn compounds(
    maybe: Option<String>,
    list: Vec<u32>,
    deque: VecDeque<u8>,
    set: HashSet<String>,
    ordered: BTreeSet<u8>,
    map: HashMap<String, i64>,
    ordered_map: BTreeMap<String, bool>,
    pair: [u8; 2],
    any: serde_json::Value,
    point: Point,
    priority: Priority,
) -> usize {
    let _ = (maybe, point, priority, any, pair);
    list.len() + deque.len() + set.len() + ordered.len() + map.len() + ordered_map.len()
}

/// Uses every `#[arg]` key, bounds at the edges of their types.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn keys(
    /// Shown when `description` is absent.
    #[arg(rename = "task-id", pattern = "^T-[0-9]+$", default = "T-1".to_string())]
    id: String,
    #[arg(description = "The title.", min_length = 1, max_length = 80)] title: String,
    #[arg(min = 0, max = 255, default = 255)] level: u8,
    #[arg(minimum = -128, maximum = 127)] offset: i8,
    #[arg(exclusive_min = -1, exclusive_max = 256)] byte: u16,
    #[arg(exclusive_minimum = 0.5, exclusive_maximum = 1e3)] ratio: f64,
    #[arg(min = 1.0, max = 10)] whole: Option<u32>,
    #[arg(min_items = 1, max_items = 3, default = vec![1])] picks: Vec<u8>,
    #[arg(min_items = 0, max_items = 2)] tags: Option<BTreeSet<String>>,
    #[arg(one_of = ["asc", "desc"], default = "asc".into())] order: String,
    #[arg(one_of = [1, 2, 3])] size: Option<u8>,
    #[arg(default = Priority::Low)] priority: Priority,
) -> String {
    let _ = (
        level, offset, byte, ratio, whole, picks, tags, size, priority,
    );
    format!("{id}{title}{order}")
}

/// Paging, flattened into the tool's arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Page {
    /// Where to start.
    pub offset: u32,
}

/// Takes a flattened struct beside an ordinary argument, `flatten = true` spelt out once.
#[tool]
pub fn flattened(
    query: String,
    #[arg(flatten)] page: Page,
    #[arg(flatten = true)] at: Point,
    #[arg(flatten = false)] around: Point,
) -> String {
    format!("{query}{page:?}{at:?}{around:?}")
}

fn main() {
    let table = tools![scalars, compounds, keys, flattened];
    assert_eq!(table.len(), 4);
    let flat = table.get("flattened").unwrap().input_schema();
    assert_eq!(
        flat["required"],
        serde_json::json!(["query", "offset", "x", "y", "around"])
    );
    let keys = table.get("keys").unwrap().input_schema();
    let props = &keys["properties"];
    assert_eq!(props["task-id"]["default"], "T-1");
    assert_eq!(props["level"]["maximum"], 255);
    assert_eq!(props["order"]["enum"], serde_json::json!(["asc", "desc"]));
    let required = keys["required"].as_array().unwrap();
    assert!(required.iter().all(|r| r != "task-id" && r != "whole"));
}
