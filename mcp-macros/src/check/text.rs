//! What people and models read: the tool's description, required and not blank, its title and
//! each argument's description, not blank when given.

use crate::attr::Sp;
use crate::ctxt::Ctxt;
use crate::docs::Description;
use crate::model::{ToolArg, ToolFn};

/// The description is all a model knows about when to call a tool, so it is required: a doc
/// comment on the function or `description = "…"`, and not blank.
pub(super) fn check_description(cx: &Ctxt, tool: &ToolFn) {
    let noun = tool.kind.noun();
    match tool.description() {
        None => cx.error_at(
            tool.ident().span(),
            format!(
                "{noun} `{}` has no description: add a doc comment (`/// What it does.`) or `#[{noun}(description = \"...\")]`",
                tool.ident()
            ),
        ),
        Some(Description::Text(t)) if t.trim().is_empty() => {
            let span = tool
                .attrs
                .description
                .get()
                .map(|d| d.span)
                .or(tool.docs.span)
                .unwrap_or_else(|| tool.ident().span());
            cx.error_at(
                span,
                format!("the {noun} description is blank: say what the {noun} does and when to {}", match tool.kind {
                    crate::model::Kind::Tool => "call it",
                    crate::model::Kind::Prompt => "use it",
                }),
            );
        }
        Some(_) => {}
    }
}

/// A title is shown to people in place of the name: a blank one hides the tool.
pub(super) fn check_title(cx: &Ctxt, tool: &ToolFn) {
    if let Some(Sp { value, span, .. }) = tool.attrs.title.get()
        && value.trim().is_empty()
    {
        cx.error_at(
            *span,
            "the tool title is blank: give a short human-readable title, or remove `title`",
        );
    }
}

/// An argument's description tells the model what to pass; a blank one says nothing and hides
/// the doc comment it replaces.
pub(super) fn check_arg_description(cx: &Ctxt, arg: &ToolArg) {
    if let Some(Sp { value, span, .. }) = arg.attrs.description.get()
        && value.trim().is_empty()
    {
        cx.error_at(
                *span,
                format!(
                    "the description of `{}` is blank: say what the argument means, or remove `description` to use its doc comment",
                    arg.ident
                ),
            );
    }
}
