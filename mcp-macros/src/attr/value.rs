//! The literal forms a key's value is read from: a string, a flag or `key = bool`, a count, a
//! number (maybe negated), a list, a path. Each reports a value of the wrong form at the value.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Token, UnOp};

use super::keys::path_text;
use super::slot::{Num, Sp};
use crate::ctxt::Ctxt;

/// The `key = value, ...` list of an attribute macro's arguments; a syntax error is reported.
pub(super) fn parse_metas(cx: &Ctxt, tokens: TokenStream) -> Vec<Meta> {
    if tokens.is_empty() {
        return Vec::new();
    }
    match syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens) {
        Ok(m) => m.into_iter().collect(),
        Err(e) => {
            cx.syn_error(e);
            Vec::new()
        }
    }
}

/// The value of `key = value`; `form` shows the expected syntax in the error.
pub(super) fn value_of<'a>(cx: &Ctxt, meta: &'a Meta, form: &str) -> Option<&'a Expr> {
    match meta {
        Meta::NameValue(nv) => Some(&nv.value),
        Meta::Path(p) => cx.refuse(p, format!("expected a value: `{form}`")),
        Meta::List(l) => cx.refuse(l, format!("expected `{form}`")),
    }
}

pub(super) fn parse_lit_str(cx: &Ctxt, meta: &Meta) -> Option<Sp<LitStr>> {
    let key = path_text(meta.path());
    let form = format!("{key} = \"...\"");
    match value_of(cx, meta, &form)? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(Sp::new(s.clone(), s.span())),
        other => cx.refuse(other, format!("expected a string literal: `{form}`")),
    }
}

/// `pattern`'s value: a string literal, checked here at compile time, or the path of a `&str`
/// constant, whose text the macro cannot read (the server checks it when it is built).
pub(crate) enum Pattern {
    Lit(LitStr),
    Const(syn::Path),
}

impl Pattern {
    /// The literal, when the pattern is written in place.
    pub(crate) fn literal(&self) -> Option<&LitStr> {
        match self {
            Pattern::Lit(lit) => Some(lit),
            Pattern::Const(_) => None,
        }
    }
}

impl ToTokens for Pattern {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Pattern::Lit(lit) => lit.to_tokens(tokens),
            Pattern::Const(path) => path.to_tokens(tokens),
        }
    }
}

pub(super) fn parse_pattern(cx: &Ctxt, meta: &Meta) -> Option<Sp<Pattern>> {
    let key = path_text(meta.path());
    let form = format!("{key} = \"...\"");
    match value_of(cx, meta, &form)? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(Sp::new(Pattern::Lit(s.clone()), s.span())),
        Expr::Path(p) if p.qself.is_none() => {
            Some(Sp::new(Pattern::Const(p.path.clone()), p.span()))
        }
        other => cx.refuse(
            other,
            format!(
                "expected a string literal or the path of a `&str` constant: `{form}` or `{key} = MY_PATTERN`"
            ),
        ),
    }
}

pub(super) fn parse_str(cx: &Ctxt, meta: &Meta) -> Option<Sp<String>> {
    parse_lit_str(cx, meta).map(|s| Sp::new(s.value.value(), s.span))
}

pub(super) fn parse_bool(cx: &Ctxt, meta: &Meta) -> Option<Sp<bool>> {
    let key = path_text(meta.path());
    match meta {
        Meta::Path(p) => Some(Sp::new(true, p.span())),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            }) => Some(Sp::new(b.value, b.span())),
            other => cx.refuse(
                other,
                format!("expected `true` or `false`: `{key}`, `{key} = true` or `{key} = false`"),
            ),
        },
        Meta::List(l) => cx.refuse(
            l,
            format!("expected `{key}`, `{key} = true` or `{key} = false`"),
        ),
    }
}

pub(super) fn parse_count(cx: &Ctxt, meta: &Meta) -> Option<Sp<u64>> {
    let key = path_text(meta.path());
    let form = format!("{key} = 1");
    let value = value_of(cx, meta, &form)?;
    let negative = || {
        cx.error_spanned_by(
            value,
            format!("`{key}` cannot be negative: it counts from 0"),
        );
    };
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => match i.base10_parse::<i128>() {
            Ok(n) if n < 0 => {
                negative();
                None
            }
            Ok(n) => match u64::try_from(n) {
                Ok(n) => Some(Sp::new(n, i.span())),
                Err(_) => cx.refuse(i, format!("`{key}` is out of range for `u64`")),
            },
            Err(_) => cx.refuse(i, format!("`{key}` is out of range for `u64`")),
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            negative();
            None
        }
        other => cx.refuse(
            other,
            format!("expected a non-negative integer literal: `{form}`"),
        ),
    }
}

pub(super) fn parse_num(cx: &Ctxt, meta: &Meta) -> Option<Sp<Num>> {
    let key = path_text(meta.path());
    let form = format!("{key} = 0");
    let value = value_of(cx, meta, &form)?;
    let expected = || format!("expected a number literal: `{key} = 0` or `{key} = 0.5`");
    let (negative, lit) = match value {
        Expr::Lit(ExprLit { lit, .. }) => (false, lit),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(ExprLit { lit, .. }) => (true, lit),
            _ => {
                cx.error_spanned_by(value, expected());
                return None;
            }
        },
        _ => {
            cx.error_spanned_by(value, expected());
            return None;
        }
    };
    let num = match lit {
        // syn reads a trailing `-1` as one literal and an inner one as negation: accept both.
        Lit::Int(i) => i
            .base10_parse::<i128>()
            .ok()
            .map(|n| if negative { -n } else { n })
            .and_then(|n| {
                i64::try_from(n)
                    .map(Num::Int)
                    .or_else(|_| u64::try_from(n).map(Num::UInt))
                    .ok()
            }),
        Lit::Float(f) => f
            .base10_parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(|x| Num::Float(if negative { -x } else { x })),
        _ => {
            cx.error_spanned_by(value, expected());
            return None;
        }
    };
    match num {
        Some(n) => Some(Sp::spanned(n, value)),
        None => cx.refuse(
            value,
            format!("`{key}` is out of range: integer bounds must fit in `i64` or `u64`"),
        ),
    }
}

pub(super) fn parse_list(cx: &Ctxt, meta: &Meta) -> Option<Sp<Vec<Expr>>> {
    let key = path_text(meta.path());
    let form = format!("{key} = [\"a\", \"b\"]");
    match value_of(cx, meta, &form)? {
        Expr::Array(a) => {
            if a.elems.is_empty() {
                cx.error_spanned_by(a, format!("`{key}` needs at least one value: `{form}`"));
                return None;
            }
            Some(Sp::new(a.elems.iter().cloned().collect(), a.span()))
        }
        other => cx.refuse(other, format!("expected a list of values: `{form}`")),
    }
}

pub(super) fn parse_crate(cx: &Ctxt, meta: &Meta) -> Option<Sp<TokenStream>> {
    let value = value_of(cx, meta, "crate = path::to::mcp_runtime")?;
    match value {
        Expr::Path(p) if p.qself.is_none() => Some(Sp::new(p.path.to_token_stream(), p.span())),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.parse::<syn::Path>() {
            Ok(p) => Some(Sp::new(p.to_token_stream(), s.span())),
            Err(_) => cx.refuse(s, "expected a path: `crate = path::to::mcp_runtime`"),
        },
        other => cx.refuse(other, "expected a path: `crate = path::to::mcp_runtime`"),
    }
}

/// `complete = fn_name` (a path to a fn).
pub(super) fn parse_fn_path(cx: &Ctxt, meta: &Meta) -> Option<Sp<syn::Path>> {
    let value = value_of(cx, meta, "complete = fn_name")?;
    match value {
        Expr::Path(p) if p.qself.is_none() => Some(Sp::new(p.path.clone(), p.span())),
        other => cx.refuse(other, "expected the path of a fn: `complete = fn_name`"),
    }
}
