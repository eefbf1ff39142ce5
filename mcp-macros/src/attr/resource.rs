//! `#[resource(...)]`: the URI (or template), name, title, description, MIME type, size,
//! `annotations(audience = [...], priority = 0.5, last_modified = "...")`,
//! `complete(var = path::to::fn, ...)`, `scopes = [...]` and the runtime's path.

use proc_macro2::TokenStream;
use syn::{Expr, ExprLit, Lit, Meta};

use super::keys::{
    ANNOTATION_KEYS, ANNOTATIONS, AUDIENCE, COMPLETE, CRATE, DESCRIPTION, LAST_MODIFIED, MIME_TYPE,
    NAME, PRIORITY, RESOURCE_KEYS, SCOPES, SIZE, TITLE, URI, path_text, unknown_key,
};
use super::scopes::parse_scopes;
use super::slot::{Attr, Num, Sp};
use super::value::{parse_count, parse_crate, parse_list, parse_metas, parse_num, parse_str};
use crate::ctxt::Ctxt;

/// The keys of `#[resource(...)]` as written.
pub(crate) struct ResourceAttrs {
    pub uri: Attr<String>,
    pub name: Attr<String>,
    pub title: Attr<String>,
    pub description: Attr<String>,
    pub mime_type: Attr<String>,
    pub size: Attr<u64>,
    pub audience: Attr<Vec<String>>,
    pub priority: Attr<f64>,
    pub last_modified: Attr<String>,
    /// `complete(var = f)`: each variable and the path of its completion fn.
    pub complete: Vec<(syn::Ident, syn::Path)>,
    /// The OAuth scopes a `resources/read` of it needs.
    pub scopes: Attr<Vec<String>>,
    pub krate: Attr<TokenStream>,
}

impl ResourceAttrs {
    pub(crate) fn from_tokens(cx: &Ctxt, tokens: TokenStream) -> Self {
        let mut attrs = ResourceAttrs {
            uri: Attr::none(URI),
            name: Attr::none(NAME),
            title: Attr::none(TITLE),
            description: Attr::none(DESCRIPTION),
            mime_type: Attr::none(MIME_TYPE),
            size: Attr::none(SIZE),
            audience: Attr::none(AUDIENCE),
            priority: Attr::none(PRIORITY),
            last_modified: Attr::none(LAST_MODIFIED),
            complete: Vec::new(),
            scopes: Attr::none(SCOPES),
            krate: Attr::none(CRATE),
        };
        for meta in &parse_metas(cx, tokens) {
            let key = meta.path();
            match path_text(key).as_str() {
                URI => attrs.uri.read(cx, meta, parse_str),
                NAME => attrs.name.read(cx, meta, parse_str),
                TITLE => attrs.title.read(cx, meta, parse_str),
                DESCRIPTION => attrs.description.read(cx, meta, parse_str),
                MIME_TYPE => attrs.mime_type.read(cx, meta, parse_str),
                SIZE => attrs.size.read(cx, meta, parse_count),
                CRATE => attrs.krate.read(cx, meta, parse_crate),
                ANNOTATIONS => attrs.annotations(cx, meta),
                COMPLETE => attrs.completions(cx, meta),
                SCOPES => attrs.scopes.read(cx, meta, parse_scopes),
                _ => unknown_key(cx, "#[resource]", key, RESOURCE_KEYS),
            }
        }
        attrs
    }

    /// `annotations(audience = ["user"], priority = 0.5, last_modified = "…")`.
    fn annotations(&mut self, cx: &Ctxt, meta: &Meta) {
        let Meta::List(list) = meta else {
            cx.error_spanned_by(
                meta,
                "expected `annotations(audience = [\"user\"], priority = 0.5, last_modified = \"...\")`",
            );
            return;
        };
        for inner in &parse_metas(cx, list.tokens.clone()) {
            let key = inner.path();
            match path_text(key).as_str() {
                AUDIENCE => self.audience.read(cx, inner, parse_audience),
                PRIORITY => self.priority.read(cx, inner, parse_priority),
                LAST_MODIFIED => self.last_modified.read(cx, inner, parse_str),
                _ => unknown_key(cx, "annotations", key, ANNOTATION_KEYS),
            }
        }
    }

    /// `complete(var = path::to::fn, ...)`.
    fn completions(&mut self, cx: &Ctxt, meta: &Meta) {
        let form = "complete(variable = function_returning_candidates)";
        let Meta::List(list) = meta else {
            cx.error_spanned_by(meta, format!("expected `{form}`"));
            return;
        };
        for inner in &parse_metas(cx, list.tokens.clone()) {
            let (Meta::NameValue(nv), Some(var)) = (inner, inner.path().get_ident()) else {
                cx.error_spanned_by(inner, format!("expected `{form}`"));
                continue;
            };
            let Expr::Path(p) = &nv.value else {
                cx.error_spanned_by(&nv.value, format!("expected a function path: `{form}`"));
                continue;
            };
            if let Some((first, _)) = self.complete.iter().find(|(v, _)| v == var) {
                cx.error_with_note(
                    var.span(),
                    format!("duplicate completion for `{var}`; remove one of them"),
                    first.span(),
                    format!("`{var}` first completed here"),
                );
                continue;
            }
            self.complete.push((var.clone(), p.path.clone()));
        }
    }
}

/// `audience = ["user", "assistant"]`: the roles MCP defines.
fn parse_audience(cx: &Ctxt, meta: &Meta) -> Option<Sp<Vec<String>>> {
    let list = parse_list(cx, meta)?;
    let mut roles = Vec::new();
    for e in &list.value {
        match e {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) if matches!(s.value().as_str(), "user" | "assistant") => roles.push(s.value()),
            other => cx.error_spanned_by(
                other,
                "an audience is `\"user\"` or `\"assistant\"`: `audience = [\"user\"]`",
            ),
        }
    }
    Some(Sp::new(roles, list.span))
}

/// `priority = 0.5`: from 0 (entirely optional) to 1 (effectively required).
fn parse_priority(cx: &Ctxt, meta: &Meta) -> Option<Sp<f64>> {
    let n = parse_num(cx, meta)?;
    let value = match n.value {
        Num::Int(i) => i as f64,
        Num::UInt(u) => u as f64,
        Num::Float(f) => f,
    };
    if !(0.0..=1.0).contains(&value) {
        cx.error_range(n.span, n.end, "`priority` is from 0 to 1: `priority = 0.5`");
        return None;
    }
    Some(Sp::new(value, n.span))
}
