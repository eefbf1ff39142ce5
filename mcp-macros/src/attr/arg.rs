//! `#[arg(...)]` on a parameter: its description, published name, default and value constraints.
//! A parameter may carry several `#[arg]` attributes; their keys accumulate.

use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Meta, Token};

use super::keys::{
    ARG_KEYS, COMPLETE, DEFAULT, DESCRIPTION, EXCLUSIVE_MAX, EXCLUSIVE_MAXIMUM, EXCLUSIVE_MIN,
    EXCLUSIVE_MINIMUM, FLATTEN, FORMAT, MAX, MAX_ITEMS, MAX_LENGTH, MAXIMUM, MIN, MIN_ITEMS,
    MIN_LENGTH, MINIMUM, ONE_OF, PATTERN, RENAME, path_text, unknown_key,
};
use super::slot::{Attr, Num, Sp};
use super::value::{
    Pattern, parse_bool, parse_count, parse_fn_path, parse_list, parse_num, parse_pattern,
    parse_str, value_of,
};
use crate::ctxt::Ctxt;

/// The keys of one parameter's `#[arg(...)]` attributes as written.
pub(crate) struct ArgAttrs {
    /// The first `#[arg]` attribute, for errors about the attribute as a whole.
    pub first: Option<syn::Attribute>,
    pub description: Attr<String>,
    pub rename: Attr<String>,
    pub default: Attr<Expr>,
    pub pattern: Attr<Pattern>,
    /// `format = "email"`: a JSON Schema format (or one the server registers), asserted.
    pub format: Attr<String>,
    pub min_length: Attr<u64>,
    pub max_length: Attr<u64>,
    pub minimum: Attr<Num>,
    pub maximum: Attr<Num>,
    pub exclusive_minimum: Attr<Num>,
    pub exclusive_maximum: Attr<Num>,
    pub min_items: Attr<u64>,
    pub max_items: Attr<u64>,
    pub one_of: Attr<Vec<Expr>>,
    /// `flatten`: the argument's struct fields are published as the tool's own arguments.
    pub flatten: Attr<bool>,
    /// `complete = fn_name`: a prompt argument's completion fn.
    pub complete: Attr<syn::Path>,
}

impl ArgAttrs {
    pub(crate) fn new() -> Self {
        ArgAttrs {
            first: None,
            description: Attr::none(DESCRIPTION),
            rename: Attr::none(RENAME),
            default: Attr::none(DEFAULT),
            pattern: Attr::none(PATTERN),
            format: Attr::none(FORMAT),
            min_length: Attr::none(MIN_LENGTH),
            max_length: Attr::none(MAX_LENGTH),
            minimum: Attr::none(MINIMUM),
            maximum: Attr::none(MAXIMUM),
            exclusive_minimum: Attr::none(EXCLUSIVE_MINIMUM),
            exclusive_maximum: Attr::none(EXCLUSIVE_MAXIMUM),
            min_items: Attr::none(MIN_ITEMS),
            max_items: Attr::none(MAX_ITEMS),
            one_of: Attr::none(ONE_OF),
            flatten: Attr::none(FLATTEN),
            complete: Attr::none(COMPLETE),
        }
    }

    /// Reads one `#[arg(...)]` attribute into the slots; several attributes accumulate.
    pub(crate) fn add(&mut self, cx: &Ctxt, attr: &syn::Attribute) {
        self.first.get_or_insert_with(|| attr.clone());
        let metas = match &attr.meta {
            Meta::List(list) => {
                match list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
                    Ok(m) => m,
                    Err(e) => {
                        cx.syn_error(e);
                        return;
                    }
                }
            }
            other => {
                cx.error_spanned_by(
                    other,
                    "expected `#[arg(key = value, ...)]`, for example `#[arg(min = 1)]`",
                );
                return;
            }
        };
        for meta in &metas {
            let key = meta.path();
            match path_text(key).as_str() {
                DESCRIPTION => self.description.read(cx, meta, parse_str),
                RENAME => self.rename.read(cx, meta, parse_str),
                DEFAULT => self.default.read(cx, meta, |cx, meta| {
                    let v = value_of(cx, meta, "default = <expression>")?;
                    Some(Sp::new(v.clone(), v.span()))
                }),
                PATTERN => self.pattern.read(cx, meta, parse_pattern),
                FORMAT => self.format.read(cx, meta, parse_str),
                MIN_LENGTH => self.min_length.read(cx, meta, parse_count),
                MAX_LENGTH => self.max_length.read(cx, meta, parse_count),
                MIN_ITEMS => self.min_items.read(cx, meta, parse_count),
                MAX_ITEMS => self.max_items.read(cx, meta, parse_count),
                MINIMUM | MIN => self.minimum.read(cx, meta, parse_num),
                MAXIMUM | MAX => self.maximum.read(cx, meta, parse_num),
                EXCLUSIVE_MINIMUM | EXCLUSIVE_MIN => {
                    self.exclusive_minimum.read(cx, meta, parse_num)
                }
                EXCLUSIVE_MAXIMUM | EXCLUSIVE_MAX => {
                    self.exclusive_maximum.read(cx, meta, parse_num)
                }
                ONE_OF => self.one_of.read(cx, meta, parse_list),
                FLATTEN => self.flatten.read(cx, meta, parse_bool),
                COMPLETE => self.complete.read(cx, meta, parse_fn_path),
                _ => unknown_key(cx, "#[arg]", key, ARG_KEYS),
            }
        }
    }

    /// True for `#[arg(flatten)]` (or `flatten = true`).
    pub(crate) fn is_flatten(&self) -> bool {
        self.flatten.value() == Some(&true)
    }

    /// The slots holding a numeric bound, in the order they are published.
    pub(crate) fn num_bounds(&self) -> [&Attr<Num>; 4] {
        [
            &self.minimum,
            &self.maximum,
            &self.exclusive_minimum,
            &self.exclusive_maximum,
        ]
    }
}
