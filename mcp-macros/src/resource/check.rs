//! The rules of a `#[resource]` across its keys and signature. Each rule is one function, with
//! the reason it exists above it.

use syn::ext::IdentExt;

use super::model::ResourceFn;
use super::template::variables;
use crate::attr::Sp;
use crate::ctxt::Ctxt;
use crate::docs::Description;

pub fn check(cx: &Ctxt, res: &ResourceFn) {
    let vars = check_uri(cx, res);
    if let Some(vars) = vars {
        check_variables(cx, res, &vars);
        check_completions(cx, res, &vars);
        check_size(cx, res, &vars);
    }
    check_texts(cx, res);
}

/// A resource is found by its URI, so the URI is required, and must parse the way the runtime
/// matches it: a scheme, then RFC 6570 level 1–2 expressions. Returns its variables.
fn check_uri(cx: &Ctxt, res: &ResourceFn) -> Option<Vec<String>> {
    let Some(Sp { value, span, .. }) = res.attrs.uri.get() else {
        cx.error_at(
            res.ident().span(),
            format!(
                "resource `{}` has no URI: add `#[resource(uri = \"scheme://...\")]` (a URI template such as `notes://{{title}}` for one resource per value)",
                res.ident()
            ),
        );
        return None;
    };
    variables(value)
        .map_err(|problem| cx.error_at(*span, problem))
        .ok()
}

/// Each template variable is filled from the URI into the parameter of the same name, and each
/// parameter that is not a `&T` borrow comes from the URI: one without the other could never be
/// read (a variable) or never be given (a parameter).
fn check_variables(cx: &Ctxt, res: &ResourceFn, vars: &[String]) {
    let uri_span = res.attrs.uri.get().map(|u| u.span);
    for var in vars {
        if !res.vars().any(|(_, ident, _)| ident.unraw() == var) {
            cx.error_at(
                uri_span.unwrap_or_else(|| res.ident().span()),
                format!(
                    "template variable `{{{var}}}` has no parameter: add `{var}: String` to `{}`",
                    res.ident()
                ),
            );
        }
    }
    for (_, ident, _) in res.vars() {
        if !vars.iter().any(|v| ident.unraw() == v) {
            let uri = res.uri();
            let msg = if vars.is_empty() {
                format!(
                    "parameter `{ident}` is not in the URI: `{uri}` has no variables; add `{{{ident}}}` to make it a template, or borrow state with `&T`"
                )
            } else {
                format!(
                    "parameter `{ident}` is not a variable of the template `{uri}`: add `{{{ident}}}` to the URI, or borrow state with `&T`"
                )
            };
            cx.error_spanned_by(ident, msg);
        }
    }
}

/// `complete(var = f)` completes a template variable: a key that names none would never run.
fn check_completions(cx: &Ctxt, res: &ResourceFn, vars: &[String]) {
    for (var, _) in &res.attrs.complete {
        if !vars.iter().any(|v| var.unraw() == v) {
            let known = vars
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let known = if known.is_empty() {
                "the URI has no variables".to_owned()
            } else {
                format!("its variables are {known}")
            };
            cx.error_spanned_by(
                var,
                format!(
                    "`complete` names `{var}`, which is not a variable of the template; {known}"
                ),
            );
        }
    }
}

/// `size` is the size of one resource's contents; a template stands for many.
fn check_size(cx: &Ctxt, res: &ResourceFn, vars: &[String]) {
    if let (Some(span), false) = (res.attrs.size.key_span(), vars.is_empty()) {
        cx.error_at(
            span,
            "`size` applies to a fixed URI, not to a template: each resource of a template has its own size",
        );
    }
}

/// A description and a title are read by people and models: when given, not blank.
fn check_texts(cx: &Ctxt, res: &ResourceFn) {
    if let Some(Description::Text(t)) = res.description()
        && t.trim().is_empty()
    {
        let span = (res.attrs.description.get().map(|d| d.span))
            .or(res.docs.span)
            .unwrap_or_else(|| res.ident().span());
        cx.error_at(
            span,
            "the resource description is blank: say what the resource holds, or remove it",
        );
    }
    for (slot, what) in [
        (&res.attrs.title, "title"),
        (&res.attrs.mime_type, "mime_type"),
        (&res.attrs.name, "name"),
    ] {
        if let Some(Sp { value, span, .. }) = slot.get()
            && value.trim().is_empty()
        {
            cx.error_at(
                *span,
                format!("the resource {what} is blank: give one, or remove `{what}`"),
            );
        }
    }
}
