//! Argument types several schema tests share: a nested object with renames, an optional field, a
//! defaulted list and a key that needs JSON Pointer escaping, and a recursive tree.
#![allow(missing_docs, dead_code)]

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Address {
    pub street_name: String,
    pub zip: Option<u32>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(rename = "x/y~z", default)]
    pub odd_key: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Tree {
    pub name: String,
    pub children: Vec<Tree>,
}
