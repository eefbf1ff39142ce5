//! `#[arg(flatten)]`: the struct's fields are the published arguments, so nothing about the
//! parameter itself is published, and one struct type flattened twice publishes every field twice.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::attr::ArgAttrs;
use crate::ctxt::Ctxt;
use crate::model::{ToolArg, ToolFn};
use crate::tokens::type_text;

/// A flattened argument has no property of its own: a key that describes one (a name, a
/// description, a default, a constraint) or a doc comment would be silently dropped, so each is
/// an error at the key, pointing at where the same thing is said for a field.
pub(super) fn check_flatten_keys(cx: &Ctxt, arg: &ToolArg) {
    let a = &arg.attrs;
    if !a.is_flatten() {
        return;
    }
    for (span, key) in other_keys(a) {
        cx.error_at(
            span,
            format!(
                "`{key}` does not apply to `#[arg(flatten)]`: the fields of the struct are the published arguments; set it on a field (`#[serde(...)]`, `#[schemars(...)]`, a doc comment)"
            ),
        );
    }
    if let Some(span) = arg.docs.span {
        cx.error_at(
            span,
            "a doc comment on a flattened argument is not published: the fields of the struct are the arguments; document each field instead",
        );
    }
}

/// Every key given beside `flatten`, with its span and the key as written.
fn other_keys(a: &ArgAttrs) -> Vec<(Span, &str)> {
    let slots = [
        (a.description.key_span(), a.description.key_text()),
        (a.rename.key_span(), a.rename.key_text()),
        (a.default.key_span(), a.default.key_text()),
        (a.pattern.key_span(), a.pattern.key_text()),
        (a.min_length.key_span(), a.min_length.key_text()),
        (a.max_length.key_span(), a.max_length.key_text()),
        (a.min_items.key_span(), a.min_items.key_text()),
        (a.max_items.key_span(), a.max_items.key_text()),
        (a.one_of.key_span(), a.one_of.key_text()),
    ];
    let bounds = a.num_bounds().map(|b| (b.key_span(), b.key_text()));
    slots
        .into_iter()
        .chain(bounds)
        .filter_map(|(span, key)| span.map(|s| (s, key)))
        .collect()
}

/// The same struct flattened twice would publish each of its fields twice. Written the same
/// way, the macro sees it; an alias or a second struct with a field of the same name is reported
/// by `ServerBuilder::build`, which names both arguments.
pub(super) fn check_flatten_once(cx: &Ctxt, tool: &ToolFn) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for arg in tool.args().filter(|a| a.attrs.is_flatten()) {
        let text = type_text(&arg.ty);
        match seen.get(&text) {
            Some(first) => cx.error_with_note(
                arg.ty.span(),
                format!(
                    "`{text}` is flattened twice: each of its fields would be published twice; take it once, or wrap one of them as an ordinary argument"
                ),
                *first,
                format!("`{text}` first flattened here"),
            ),
            None => {
                seen.insert(text, arg.ty.span());
            }
        }
    }
}
