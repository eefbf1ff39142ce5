//! The typed slots keys are parsed into: `Sp`, a value with the span it was written at; `Attr`,
//! one key's slot, which reports a key given twice; `Num`, a numeric bound as written.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use super::keys::path_text;
use crate::ctxt::Ctxt;

/// A value with the span of the tokens it was written as.
#[derive(Clone, Debug)]
pub(crate) struct Sp<T> {
    pub value: T,
    /// The first token's span; stable proc macros cannot join spans.
    pub span: Span,
    /// The last token's span (`-0.5` is two tokens), for errors that underline the whole value.
    pub end: Span,
}

impl<T> Sp<T> {
    pub(crate) fn new(value: T, span: Span) -> Self {
        Sp {
            value,
            span,
            end: span,
        }
    }

    /// A value written as `tokens`, spanning all of them.
    pub(crate) fn spanned(value: T, tokens: &impl ToTokens) -> Self {
        let tokens: Vec<_> = tokens.to_token_stream().into_iter().collect();
        let span = tokens.first().map_or_else(Span::call_site, |t| t.span());
        let end = tokens.last().map_or(span, |t| t.span());
        Sp { value, span, end }
    }
}

/// One key's slot: empty, or the value with the key as written (for "given twice" notes).
pub(crate) struct Attr<T> {
    /// The canonical key name, as the messages name it.
    name: &'static str,
    /// The key's span and text as written (`min` for `minimum`), and the value.
    set: Option<(Span, String, Sp<T>)>,
}

impl<T> Attr<T> {
    pub(super) fn none(name: &'static str) -> Self {
        Attr { name, set: None }
    }

    /// Fills the slot; a second value is an error at its key, noting the first.
    pub(super) fn set(&mut self, cx: &Ctxt, key: &syn::Path, value: Sp<T>) {
        match &self.set {
            Some((first, _, _)) => {
                let written = path_text(key);
                let msg = if written == self.name {
                    format!("duplicate key `{written}`; remove one of them")
                } else {
                    format!(
                        "duplicate key `{written}`: `{}` is already set; remove one of them",
                        self.name
                    )
                };
                cx.error_with_note(
                    key.span(),
                    msg,
                    *first,
                    format!("`{}` first set here", self.name),
                );
            }
            None => self.set = Some((key.span(), path_text(key), value)),
        }
    }

    /// Reads `meta`'s value with `parse` into the slot; a value `parse` refuses it has reported.
    pub(super) fn read(
        &mut self,
        cx: &Ctxt,
        meta: &syn::Meta,
        parse: impl FnOnce(&Ctxt, &syn::Meta) -> Option<Sp<T>>,
    ) {
        if let Some(v) = parse(cx, meta) {
            self.set(cx, meta.path(), v);
        }
    }

    pub(crate) fn get(&self) -> Option<&Sp<T>> {
        self.set.as_ref().map(|(_, _, v)| v)
    }

    /// The span of the key the value was given with.
    pub(crate) fn key_span(&self) -> Option<Span> {
        self.set.as_ref().map(|(k, _, _)| *k)
    }

    /// The key as the user wrote it (`min` for `minimum`), else the canonical name.
    pub(crate) fn key_text(&self) -> &str {
        self.set.as_ref().map_or(self.name, |(_, k, _)| k.as_str())
    }

    pub(crate) fn value(&self) -> Option<&T> {
        self.get().map(|v| &v.value)
    }
}

/// A numeric bound as written: an integer or a float literal, maybe negated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    Int(i64),
    UInt(u64),
    Float(f64),
}

impl Num {
    /// The value as an `f64`, for comparisons between an integer and a float bound.
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::UInt(u) => u as f64,
            Num::Float(f) => f,
        }
    }

    /// Compares two bounds exactly when both are integers.
    pub(crate) fn partial_cmp(self, other: Num) -> Option<std::cmp::Ordering> {
        let int = |n: Num| match n {
            Num::Int(i) => Some(i as i128),
            Num::UInt(u) => Some(u as i128),
            Num::Float(_) => None,
        };
        match (int(self), int(other)) {
            (Some(a), Some(b)) => Some(a.cmp(&b)),
            _ => self.as_f64().partial_cmp(&other.as_f64()),
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::UInt(u) => write!(f, "{u}"),
            Num::Float(x) => write!(f, "{x:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_compare_exactly() {
        use std::cmp::Ordering::*;
        let cases = [
            (Num::Int(1), Num::Int(2), Less),
            (Num::UInt(u64::MAX), Num::Int(i64::MAX), Greater),
            (Num::Int(-1), Num::UInt(u64::MAX), Less),
            (Num::Float(0.5), Num::Int(0), Greater),
            (Num::Float(2.0), Num::Int(2), Equal),
        ];
        for (a, b, expected) in cases {
            assert_eq!(a.partial_cmp(b), Some(expected), "{a} vs {b}");
        }
    }
}
