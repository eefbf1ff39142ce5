//! What one kind of function accepts and the other does not.

use crate::ctxt::Ctxt;
use crate::model::{Kind, ToolFn};

/// The keys one kind accepts on an argument and the other does not: `complete` is a prompt's,
/// `flatten` a tool's (a prompt's arguments are a flat list of strings).
pub(super) fn check_kind_keys(cx: &Ctxt, tool: &ToolFn) {
    for arg in tool.args() {
        match tool.kind {
            Kind::Tool => {
                if let Some(span) = arg.attrs.complete.key_span() {
                    cx.error_at(
                        span,
                        "`complete` applies to `#[prompt]` arguments: a client completes prompt arguments, not tool arguments; remove it",
                    );
                }
            }
            Kind::Prompt => {
                if let Some(span) = arg.attrs.flatten.key_span() {
                    cx.error_at(
                        span,
                        "`flatten` does not apply to prompt arguments: a prompt's arguments are a flat list of strings; take each field as its own parameter",
                    );
                }
            }
        }
    }
}
