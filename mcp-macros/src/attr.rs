//! `#[tool(...)]` and `#[arg(...)]` keys parsed into typed slots. A key is checked where it is
//! parsed (unknown, given twice, wrong literal type); rules across keys live in `check.rs`.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Token, UnOp};

use crate::ctxt::Ctxt;

// ---- key names ---------------------------------------------------------------------------------

pub const NAME: &str = "name";
pub const TITLE: &str = "title";
pub const DESCRIPTION: &str = "description";
pub const READ_ONLY: &str = "read_only";
pub const DESTRUCTIVE: &str = "destructive";
pub const IDEMPOTENT: &str = "idempotent";
pub const OPEN_WORLD: &str = "open_world";
pub const CRATE: &str = "crate";

pub const PATTERN: &str = "pattern";
pub const MINIMUM: &str = "minimum";
pub const MIN: &str = "min";
pub const MAXIMUM: &str = "maximum";
pub const MAX: &str = "max";
pub const EXCLUSIVE_MINIMUM: &str = "exclusive_minimum";
pub const EXCLUSIVE_MIN: &str = "exclusive_min";
pub const EXCLUSIVE_MAXIMUM: &str = "exclusive_maximum";
pub const EXCLUSIVE_MAX: &str = "exclusive_max";
pub const MIN_LENGTH: &str = "min_length";
pub const MAX_LENGTH: &str = "max_length";
pub const MIN_ITEMS: &str = "min_items";
pub const MAX_ITEMS: &str = "max_items";
pub const ONE_OF: &str = "one_of";
pub const DEFAULT: &str = "default";
pub const RENAME: &str = "rename";

/// Every key `#[tool(...)]` accepts, in the order error messages list them.
pub const TOOL_KEYS: &[&str] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    CRATE,
];

/// Every key `#[arg(...)]` accepts, aliases included.
pub const ARG_KEYS: &[&str] = &[
    DESCRIPTION,
    RENAME,
    DEFAULT,
    PATTERN,
    MIN_LENGTH,
    MAX_LENGTH,
    MINIMUM,
    MIN,
    MAXIMUM,
    MAX,
    EXCLUSIVE_MINIMUM,
    EXCLUSIVE_MIN,
    EXCLUSIVE_MAXIMUM,
    EXCLUSIVE_MAX,
    MIN_ITEMS,
    MAX_ITEMS,
    ONE_OF,
];

// ---- slots -------------------------------------------------------------------------------------

/// A value with the span of the tokens it was written as.
#[derive(Clone, Debug)]
pub struct Sp<T> {
    pub value: T,
    /// The first token's span; stable proc macros cannot join spans.
    pub span: Span,
    /// The last token's span (`-0.5` is two tokens), for errors that underline the whole value.
    pub end: Span,
}

impl<T> Sp<T> {
    pub fn new(value: T, span: Span) -> Self {
        Sp {
            value,
            span,
            end: span,
        }
    }

    /// A value written as `tokens`, spanning all of them.
    pub fn spanned(value: T, tokens: &impl ToTokens) -> Self {
        let tokens: Vec<_> = tokens.to_token_stream().into_iter().collect();
        let span = tokens.first().map_or_else(Span::call_site, |t| t.span());
        let end = tokens.last().map_or(span, |t| t.span());
        Sp { value, span, end }
    }
}

/// One key's slot: empty, or the value with the key as written (for "given twice" notes).
pub struct Attr<T> {
    /// The canonical key name, as the messages name it.
    name: &'static str,
    /// The key's span and text as written (`min` for `minimum`), and the value.
    set: Option<(Span, String, Sp<T>)>,
}

impl<T> Attr<T> {
    fn none(name: &'static str) -> Self {
        Attr { name, set: None }
    }

    /// Fills the slot; a second value is an error at its key, noting the first.
    fn set(&mut self, cx: &Ctxt, key: &syn::Path, value: Sp<T>) {
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

    pub fn get(&self) -> Option<&Sp<T>> {
        self.set.as_ref().map(|(_, _, v)| v)
    }

    /// The span of the key the value was given with.
    pub fn key_span(&self) -> Option<Span> {
        self.set.as_ref().map(|(k, _, _)| *k)
    }

    /// The key as the user wrote it (`min` for `minimum`), else the canonical name.
    pub fn key_text(&self) -> &str {
        self.set.as_ref().map_or(self.name, |(_, k, _)| k.as_str())
    }

    pub fn value(&self) -> Option<&T> {
        self.get().map(|v| &v.value)
    }
}

/// A numeric bound as written: an integer or a float literal, maybe negated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
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
    pub fn partial_cmp(self, other: Num) -> Option<std::cmp::Ordering> {
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

// ---- #[tool(...)] ------------------------------------------------------------------------------

/// The keys of `#[tool(...)]` as written.
pub struct ToolAttrs {
    pub name: Attr<String>,
    pub title: Attr<String>,
    pub description: Attr<String>,
    pub read_only: Attr<bool>,
    pub destructive: Attr<bool>,
    pub idempotent: Attr<bool>,
    pub open_world: Attr<bool>,
    pub krate: Attr<TokenStream>,
}

impl ToolAttrs {
    pub fn from_tokens(cx: &Ctxt, tokens: TokenStream) -> Self {
        let mut attrs = ToolAttrs {
            name: Attr::none(NAME),
            title: Attr::none(TITLE),
            description: Attr::none(DESCRIPTION),
            read_only: Attr::none(READ_ONLY),
            destructive: Attr::none(DESTRUCTIVE),
            idempotent: Attr::none(IDEMPOTENT),
            open_world: Attr::none(OPEN_WORLD),
            krate: Attr::none(CRATE),
        };
        if tokens.is_empty() {
            return attrs;
        }
        let metas = match syn::parse::Parser::parse2(
            Punctuated::<Meta, Token![,]>::parse_terminated,
            tokens,
        ) {
            Ok(m) => m,
            Err(e) => {
                cx.syn_error(e);
                return attrs;
            }
        };
        for meta in &metas {
            let key = meta.path();
            match path_text(key).as_str() {
                NAME => {
                    if let Some(v) = parse_str(cx, meta) {
                        attrs.name.set(cx, key, v);
                    }
                }
                TITLE => {
                    if let Some(v) = parse_str(cx, meta) {
                        attrs.title.set(cx, key, v);
                    }
                }
                DESCRIPTION => {
                    if let Some(v) = parse_str(cx, meta) {
                        attrs.description.set(cx, key, v);
                    }
                }
                READ_ONLY => {
                    if let Some(v) = parse_bool(cx, meta) {
                        attrs.read_only.set(cx, key, v);
                    }
                }
                DESTRUCTIVE => {
                    if let Some(v) = parse_bool(cx, meta) {
                        attrs.destructive.set(cx, key, v);
                    }
                }
                IDEMPOTENT => {
                    if let Some(v) = parse_bool(cx, meta) {
                        attrs.idempotent.set(cx, key, v);
                    }
                }
                OPEN_WORLD => {
                    if let Some(v) = parse_bool(cx, meta) {
                        attrs.open_world.set(cx, key, v);
                    }
                }
                CRATE => {
                    if let Some(v) = parse_crate(cx, meta) {
                        attrs.krate.set(cx, key, v);
                    }
                }
                _ => unknown_key(cx, "#[tool]", key, TOOL_KEYS),
            }
        }
        attrs
    }
}

// ---- #[arg(...)] -------------------------------------------------------------------------------

/// The keys of one parameter's `#[arg(...)]` attributes as written.
pub struct ArgAttrs {
    /// The first `#[arg]` attribute, for errors about the attribute as a whole.
    pub first: Option<syn::Attribute>,
    pub description: Attr<String>,
    pub rename: Attr<String>,
    pub default: Attr<Expr>,
    pub pattern: Attr<LitStr>,
    pub min_length: Attr<u64>,
    pub max_length: Attr<u64>,
    pub minimum: Attr<Num>,
    pub maximum: Attr<Num>,
    pub exclusive_minimum: Attr<Num>,
    pub exclusive_maximum: Attr<Num>,
    pub min_items: Attr<u64>,
    pub max_items: Attr<u64>,
    pub one_of: Attr<Vec<Expr>>,
}

impl ArgAttrs {
    pub fn new() -> Self {
        ArgAttrs {
            first: None,
            description: Attr::none(DESCRIPTION),
            rename: Attr::none(RENAME),
            default: Attr::none(DEFAULT),
            pattern: Attr::none(PATTERN),
            min_length: Attr::none(MIN_LENGTH),
            max_length: Attr::none(MAX_LENGTH),
            minimum: Attr::none(MINIMUM),
            maximum: Attr::none(MAXIMUM),
            exclusive_minimum: Attr::none(EXCLUSIVE_MINIMUM),
            exclusive_maximum: Attr::none(EXCLUSIVE_MAXIMUM),
            min_items: Attr::none(MIN_ITEMS),
            max_items: Attr::none(MAX_ITEMS),
            one_of: Attr::none(ONE_OF),
        }
    }

    /// Reads one `#[arg(...)]` attribute into the slots; several attributes accumulate.
    pub fn add(&mut self, cx: &Ctxt, attr: &syn::Attribute) {
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
                DESCRIPTION => {
                    if let Some(v) = parse_str(cx, meta) {
                        self.description.set(cx, key, v);
                    }
                }
                RENAME => {
                    if let Some(v) = parse_str(cx, meta) {
                        self.rename.set(cx, key, v);
                    }
                }
                DEFAULT => {
                    if let Some(v) = value_of(cx, meta, "default = <expression>") {
                        let span = v.span();
                        self.default.set(cx, key, Sp::new(v.clone(), span));
                    }
                }
                PATTERN => {
                    if let Some(v) = parse_lit_str(cx, meta) {
                        self.pattern.set(cx, key, v);
                    }
                }
                MIN_LENGTH => {
                    if let Some(v) = parse_count(cx, meta) {
                        self.min_length.set(cx, key, v);
                    }
                }
                MAX_LENGTH => {
                    if let Some(v) = parse_count(cx, meta) {
                        self.max_length.set(cx, key, v);
                    }
                }
                MIN_ITEMS => {
                    if let Some(v) = parse_count(cx, meta) {
                        self.min_items.set(cx, key, v);
                    }
                }
                MAX_ITEMS => {
                    if let Some(v) = parse_count(cx, meta) {
                        self.max_items.set(cx, key, v);
                    }
                }
                MINIMUM | MIN => {
                    if let Some(v) = parse_num(cx, meta) {
                        self.minimum.set(cx, key, v);
                    }
                }
                MAXIMUM | MAX => {
                    if let Some(v) = parse_num(cx, meta) {
                        self.maximum.set(cx, key, v);
                    }
                }
                EXCLUSIVE_MINIMUM | EXCLUSIVE_MIN => {
                    if let Some(v) = parse_num(cx, meta) {
                        self.exclusive_minimum.set(cx, key, v);
                    }
                }
                EXCLUSIVE_MAXIMUM | EXCLUSIVE_MAX => {
                    if let Some(v) = parse_num(cx, meta) {
                        self.exclusive_maximum.set(cx, key, v);
                    }
                }
                ONE_OF => {
                    if let Some(v) = parse_list(cx, meta) {
                        self.one_of.set(cx, key, v);
                    }
                }
                _ => unknown_key(cx, "#[arg]", key, ARG_KEYS),
            }
        }
    }

    /// The slots holding a numeric bound, in the order they are published.
    pub fn num_bounds(&self) -> [&Attr<Num>; 4] {
        [
            &self.minimum,
            &self.maximum,
            &self.exclusive_minimum,
            &self.exclusive_maximum,
        ]
    }
}

// ---- values ------------------------------------------------------------------------------------

/// The key as written: `name`, or `a::b` for a (wrong) path key.
pub fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

fn unknown_key(cx: &Ctxt, attr: &str, key: &syn::Path, valid: &[&str]) {
    let written = path_text(key);
    let list = valid
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = match closest(&written, valid) {
        Some(k) => format!("; did you mean `{k}`?"),
        None => String::new(),
    };
    cx.error_spanned_by(
        key,
        format!("unknown `{attr}` key `{written}`{hint}\nexpected one of: {list}"),
    );
}

/// The valid key closest to a misspelt one, when it is close enough to be a typo.
fn closest<'a>(written: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid
        .iter()
        .map(|k| (edit_distance(written, k), *k))
        .filter(|(d, k)| *d <= (k.len().max(written.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Edits between two keys, a swap of two neighbouring letters counting as one (`nmae`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The value of `key = value`; `form` shows the expected syntax in the error.
fn value_of<'a>(cx: &Ctxt, meta: &'a Meta, form: &str) -> Option<&'a Expr> {
    match meta {
        Meta::NameValue(nv) => Some(&nv.value),
        Meta::Path(p) => {
            cx.error_spanned_by(p, format!("expected a value: `{form}`"));
            None
        }
        Meta::List(l) => {
            cx.error_spanned_by(l, format!("expected `{form}`"));
            None
        }
    }
}

fn parse_lit_str(cx: &Ctxt, meta: &Meta) -> Option<Sp<LitStr>> {
    let key = path_text(meta.path());
    let form = format!("{key} = \"...\"");
    match value_of(cx, meta, &form)? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(Sp::new(s.clone(), s.span())),
        other => {
            cx.error_spanned_by(other, format!("expected a string literal: `{form}`"));
            None
        }
    }
}

fn parse_str(cx: &Ctxt, meta: &Meta) -> Option<Sp<String>> {
    parse_lit_str(cx, meta).map(|s| Sp::new(s.value.value(), s.span))
}

fn parse_bool(cx: &Ctxt, meta: &Meta) -> Option<Sp<bool>> {
    let key = path_text(meta.path());
    match meta {
        Meta::Path(p) => Some(Sp::new(true, p.span())),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            }) => Some(Sp::new(b.value, b.span())),
            other => {
                cx.error_spanned_by(
                    other,
                    format!(
                        "expected `true` or `false`: `{key}`, `{key} = true` or `{key} = false`"
                    ),
                );
                None
            }
        },
        Meta::List(l) => {
            cx.error_spanned_by(
                l,
                format!("expected `{key}`, `{key} = true` or `{key} = false`"),
            );
            None
        }
    }
}

fn parse_count(cx: &Ctxt, meta: &Meta) -> Option<Sp<u64>> {
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
                Err(_) => {
                    cx.error_spanned_by(i, format!("`{key}` is out of range for `u64`"));
                    None
                }
            },
            Err(_) => {
                cx.error_spanned_by(i, format!("`{key}` is out of range for `u64`"));
                None
            }
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            negative();
            None
        }
        other => {
            cx.error_spanned_by(
                other,
                format!("expected a non-negative integer literal: `{form}`"),
            );
            None
        }
    }
}

fn parse_num(cx: &Ctxt, meta: &Meta) -> Option<Sp<Num>> {
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
        None => {
            cx.error_spanned_by(
                value,
                format!("`{key}` is out of range: integer bounds must fit in `i64` or `u64`"),
            );
            None
        }
    }
}

fn parse_list(cx: &Ctxt, meta: &Meta) -> Option<Sp<Vec<Expr>>> {
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
        other => {
            cx.error_spanned_by(other, format!("expected a list of values: `{form}`"));
            None
        }
    }
}

fn parse_crate(cx: &Ctxt, meta: &Meta) -> Option<Sp<TokenStream>> {
    let value = value_of(cx, meta, "crate = path::to::mcp_runtime")?;
    match value {
        Expr::Path(p) if p.qself.is_none() => Some(Sp::new(p.path.to_token_stream(), p.span())),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.parse::<syn::Path>() {
            Ok(p) => Some(Sp::new(p.to_token_stream(), s.span())),
            Err(_) => {
                cx.error_spanned_by(s, "expected a path: `crate = path::to::mcp_runtime`");
                None
            }
        },
        other => {
            cx.error_spanned_by(other, "expected a path: `crate = path::to::mcp_runtime`");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_suggest_the_closest_key() {
        let cases = [
            ("read_onyl", Some(READ_ONLY)),
            ("descripton", Some(DESCRIPTION)),
            ("nmae", Some(NAME)),
            ("open", None),
            ("zzzzzz", None),
        ];
        for (written, expected) in cases {
            assert_eq!(closest(written, TOOL_KEYS), expected, "{written}");
        }
        assert_eq!(closest("min_lenght", ARG_KEYS), Some(MIN_LENGTH));
        assert_eq!(closest("minimun", ARG_KEYS), Some(MINIMUM));
    }

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
