//! Published names: the tool name MCP allows, `rename` values, and one property per argument.

use std::collections::HashMap;

use proc_macro2::Span;

use crate::attr::Sp;
use crate::ctxt::Ctxt;
use crate::model::{ToolArg, ToolFn};

/// The longest tool name MCP clients are required to accept.
const MAX_NAME_LEN: usize = 128;

/// MCP tool names are 1 to 128 characters among ASCII letters, digits, `_`, `-` and `.`; clients
/// may refuse anything else, so a bad name is caught here rather than by the first client.
pub(super) fn check_name(cx: &Ctxt, tool: &ToolFn) {
    let Sp {
        value: name, span, ..
    } = tool.name();
    let from_fn = tool.attrs.name.get().is_none();
    let noun = tool.kind.noun();
    let fix = if from_fn {
        format!("; set another with `#[{noun}(name = \"...\")]`")
    } else {
        String::new()
    };
    if name.is_empty() {
        cx.error_at(span, format!("a {noun} name cannot be empty"));
    } else if name.chars().count() > MAX_NAME_LEN {
        cx.error_at(
            span,
            format!(
                "the {noun} name is {} characters long; MCP allows at most {MAX_NAME_LEN}{fix}",
                name.chars().count()
            ),
        );
    } else if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        cx.error_at(
            span,
            format!(
                "the {noun} name `{name}` contains {bad:?}; MCP {noun} names use only ASCII letters, digits, `_`, `-` and `.`{fix}"
            ),
        );
    }
}

/// A published property name may be any string, but an empty one or one with whitespace or
/// control characters is always a slip.
pub(super) fn check_rename(cx: &Ctxt, arg: &ToolArg) {
    let Some(Sp { value, span, .. }) = arg.attrs.rename.get() else {
        return;
    };
    if value.is_empty() {
        cx.error_at(
            *span,
            "`rename` cannot be empty: give the published argument name",
        );
    } else if let Some(c) = value.chars().find(|c| c.is_whitespace() || c.is_control()) {
        cx.error_at(
            *span,
            format!("`rename = {value:?}` contains {c:?}; argument names cannot contain whitespace or control characters"),
        );
    }
}

/// Two arguments published under one name would be one property in the schema.
pub(super) fn check_unique_arg_names(cx: &Ctxt, tool: &ToolFn) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    // A flattened argument publishes its struct's fields, not its own name.
    for arg in tool.args().filter(|a| !a.attrs.is_flatten()) {
        let Sp { value, span, .. } = arg.name();
        if let Some(first) = seen.get(&value) {
            cx.error_with_note(
                span,
                format!(
                    "two arguments are published as `{value}`; give one another name with `#[arg(rename = \"...\")]`"
                ),
                *first,
                format!("`{value}` first published here"),
            );
        } else {
            seen.insert(value, span);
        }
    }
}
