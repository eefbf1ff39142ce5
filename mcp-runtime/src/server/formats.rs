//! The string formats a server checks beyond JSON Schema's own: every tool's validator is
//! compiled again with the server's [`Formats`] when it registered any, and a published format
//! nobody checks is a build error naming the tool and the JSON Pointer, unless the server
//! publishes such formats as annotations ([`Formats::allow_unchecked`]).

use std::sync::Arc;

use crate::tool::spec::{Tool, ToolBuildError};
use crate::tool::table::ToolTable;
use crate::validate::{Formats, Validator};

pub(super) fn bind(tools: ToolTable, formats: &Formats) -> (ToolTable, Vec<ToolBuildError>) {
    let mut problems = Vec::new();
    let rebind = formats.names().next().is_some();
    let mut bound: Vec<Tool> = Vec::new();
    for tool in tools.iter() {
        let mut tool = tool.clone();
        if rebind {
            match Validator::compile_with(&tool.input_schema, formats) {
                Ok(mut v) => {
                    v.count_decoding_as(&tool.validator);
                    tool.validator = Arc::new(v);
                }
                Err(e) => problems.push(ToolBuildError {
                    tool: tool.name().to_owned(),
                    problem: format!("its inputSchema cannot be validated: {e}"),
                }),
            }
        }
        if !formats.unchecked_allowed() {
            for u in tool.validator.unchecked_formats() {
                problems.push(ToolBuildError {
                    tool: tool.name().to_owned(),
                    problem: format!(
                        "its inputSchema publishes the format \"{name}\" at {at}, which nothing \
                         checks: register a check with ServerBuilder::format(\"{name}\", …), or \
                         publish formats nobody checks as annotations with \
                         ServerBuilder::allow_unchecked_formats()",
                        name = u.name,
                        at = u.at
                    ),
                });
            }
        }
        bound.push(tool);
    }
    if !rebind {
        return (tools, problems);
    }
    (ToolTable::from_tools(bound), problems)
}
