//! Rules that span several keys or the whole signature. Each check reports into the `Ctxt` and
//! never stops the others, so one build shows every broken rule.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, Signature, Token, UnOp};

use crate::attr::{Attr, Num, Sp};
use crate::ctxt::Ctxt;
use crate::docs::Description;
use crate::model::{ToolArg, ToolFn};

/// The longest tool name MCP clients are required to accept.
const MAX_NAME_LEN: usize = 128;

pub fn check(cx: &Ctxt, tool: &ToolFn) {
    check_signature(cx, &tool.original.sig);
    check_name(cx, tool);
    check_description(cx, tool);
    check_hints(cx, tool);
    check_title(cx, tool);
    for arg in tool.args() {
        check_rename(cx, arg);
        check_num_bounds(cx, arg);
        check_count_bounds(
            cx,
            &arg.attrs.min_length,
            &arg.attrs.max_length,
            "characters",
        );
        check_count_bounds(cx, &arg.attrs.min_items, &arg.attrs.max_items, "items");
        check_pattern(cx, arg);
        check_arg_description(cx, arg);
        check_one_of_unique(cx, arg);
        check_default_literal(cx, arg);
    }
    check_unique_arg_names(cx, tool);
}

/// A tool is a plain function the generated handler calls by name with owned arguments: no
/// generics (nothing would choose them), and no `const`, `unsafe` or `extern` qualifier (the
/// handler cannot uphold an `unsafe` contract it does not know, and an ABI changes nothing here).
fn check_signature(cx: &Ctxt, sig: &Signature) {
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "a tool cannot be a `const fn`: remove `const`");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        cx.error_spanned_by(
            u,
            "a tool cannot be an `unsafe fn`: the generated handler has no way to uphold its safety contract; make the function safe and keep the `unsafe` block inside",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "a tool cannot declare an ABI: remove `extern`");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "a tool cannot be variadic");
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its schema is published for concrete types; use concrete types (borrowed state `&T` needs no lifetime parameter)",
        );
    } else if let Some(w) = &sig.generics.where_clause {
        cx.error_spanned_by(
            w.where_token,
            "a tool cannot have a `where` clause: use concrete types",
        );
    }
}

/// MCP tool names are 1 to 128 characters among ASCII letters, digits, `_`, `-` and `.`; clients
/// may refuse anything else, so a bad name is caught here rather than by the first client.
fn check_name(cx: &Ctxt, tool: &ToolFn) {
    let Sp {
        value: name, span, ..
    } = tool.name();
    let from_fn = tool.attrs.name.get().is_none();
    let fix = if from_fn {
        "; set another with `#[tool(name = \"...\")]`"
    } else {
        ""
    };
    if name.is_empty() {
        cx.error_at(span, "a tool name cannot be empty");
    } else if name.chars().count() > MAX_NAME_LEN {
        cx.error_at(
            span,
            format!(
                "the tool name is {} characters long; MCP allows at most {MAX_NAME_LEN}{fix}",
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
                "the tool name `{name}` contains {bad:?}; MCP tool names use only ASCII letters, digits, `_`, `-` and `.`{fix}"
            ),
        );
    }
}

/// The description is all a model knows about when to call a tool, so it is required: a doc
/// comment on the function or `description = "…"`, and not blank.
fn check_description(cx: &Ctxt, tool: &ToolFn) {
    match tool.description() {
        None => cx.error_at(
            tool.ident().span(),
            format!(
                "tool `{}` has no description: add a doc comment (`/// What it does.`) or `#[tool(description = \"...\")]`",
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
                "the tool description is blank: say what the tool does and when to call it",
            );
        }
        Some(_) => {}
    }
}

/// `readOnlyHint: true` says the tool changes nothing, `destructiveHint: true` that it may destroy
/// data; a client cannot honour both.
fn check_hints(cx: &Ctxt, tool: &ToolFn) {
    let (Some(ro), Some(de)) = (tool.attrs.read_only.get(), tool.attrs.destructive.get()) else {
        return;
    };
    if ro.value && de.value {
        let key = tool.attrs.destructive.key_span().unwrap_or(de.span);
        cx.error_at(
            key,
            "a tool cannot be both `read_only` and `destructive`: a read-only tool changes nothing, so it destroys nothing; remove one",
        );
    }
}

/// A published property name may be any string, but an empty one or one with whitespace or
/// control characters is always a slip.
fn check_rename(cx: &Ctxt, arg: &ToolArg) {
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

/// One bound per side (`minimum` or `exclusive_minimum`, not both: JSON Schema would apply both
/// and the tighter one silently wins), and a lower bound that leaves some number below the upper.
fn check_num_bounds(cx: &Ctxt, arg: &ToolArg) {
    let a = &arg.attrs;
    let side = |incl: &Attr<Num>, excl: &Attr<Num>, which: &str| -> bool {
        if let (Some(first), Some(second)) = (incl.key_span(), excl.key_span()) {
            cx.error_with_note(
                second,
                format!(
                    "`{}` and `{}` both bound `{}` from {which}; keep one",
                    incl.key_text(),
                    excl.key_text(),
                    arg.ident
                ),
                first,
                format!("`{}` given here", incl.key_text()),
            );
            return false;
        }
        true
    };
    let lower_ok = side(&a.minimum, &a.exclusive_minimum, "below");
    let upper_ok = side(&a.maximum, &a.exclusive_maximum, "above");
    if !(lower_ok && upper_ok) {
        return;
    }
    let lower = a
        .minimum
        .get()
        .map(|v| (v, false, a.minimum.key_text()))
        .or_else(|| {
            a.exclusive_minimum
                .get()
                .map(|v| (v, true, a.exclusive_minimum.key_text()))
        });
    let upper = a
        .maximum
        .get()
        .map(|v| (v, false, a.maximum.key_text()))
        .or_else(|| {
            a.exclusive_maximum
                .get()
                .map(|v| (v, true, a.exclusive_maximum.key_text()))
        });
    let (Some((lo, lo_excl, lo_key)), Some((hi, hi_excl, hi_key))) = (lower, upper) else {
        return;
    };
    let empty = match lo.value.partial_cmp(hi.value) {
        Some(std::cmp::Ordering::Greater) => true,
        Some(std::cmp::Ordering::Equal) => lo_excl || hi_excl,
        _ => false,
    };
    if empty {
        let relation = if lo_excl || hi_excl {
            "is not below"
        } else {
            "is greater than"
        };
        cx.error_range(
            hi.span,
            hi.end,
            format!(
                "`{lo_key} = {}` {relation} `{hi_key} = {}`: no number satisfies both",
                lo.value, hi.value
            ),
        );
    }
}

/// `min_length <= max_length` and `min_items <= max_items`, else no value is valid.
fn check_count_bounds(cx: &Ctxt, min: &Attr<u64>, max: &Attr<u64>, unit: &str) {
    let (Some(lo), Some(hi)) = (min.get(), max.get()) else {
        return;
    };
    if lo.value > hi.value {
        cx.error_at(
            hi.span,
            format!(
                "`{} = {}` is greater than `{} = {}`: no value has between {} and {} {unit}",
                min.key_text(),
                lo.value,
                max.key_text(),
                hi.value,
                lo.value,
                hi.value
            ),
        );
    }
}

/// A published pattern is an ECMA-262 regular expression (JSON Schema's dialect, read here with
/// the `u` flag as validators do). Look-around and backreferences parse, but validators in other
/// languages read them differently or not at all, so a published contract avoids them.
fn check_pattern(cx: &Ctxt, arg: &ToolArg) {
    let Some(Sp { value: lit, .. }) = arg.attrs.pattern.get() else {
        return;
    };
    let pattern = lit.value();
    if let Err(e) = regress::Regex::with_flags(&pattern, "u") {
        let reason = lowercase_first(&e.to_string());
        cx.error_spanned_by(
            lit,
            format!("invalid `pattern`: {reason}\nnote: patterns are ECMA-262 regular expressions, as in JSON Schema"),
        );
        return;
    }
    if let Some(feature) = unportable_regex_feature(&pattern) {
        cx.error_spanned_by(
            lit,
            format!(
                "`pattern` uses {feature}, which JSON Schema validators do not agree on; rewrite the pattern without it, or check the value in the function body"
            ),
        );
    }
}

/// `Unbalanced bracket` reads as `unbalanced bracket` inside our sentence.
fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The first look-around or backreference in a pattern that already parses, described for the user.
fn unportable_regex_feature(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let next = chars.get(i + 1).copied();
                if matches!(next, Some('p' | 'P')) && chars.get(i + 2) == Some(&'{') {
                    let p = next.unwrap_or('p');
                    return Some(format!("a Unicode property escape `\\{p}{{...}}`"));
                }
                if next == Some('u') && chars.get(i + 2) == Some(&'{') {
                    return Some("a code point escape `\\u{...}`".into());
                }
                if !in_class {
                    match next {
                        Some(d @ '1'..='9') => return Some(format!("a backreference `\\{d}`")),
                        Some('k') if chars.get(i + 2) == Some(&'<') => {
                            return Some("a named backreference `\\k<...>`".into());
                        }
                        _ => {}
                    }
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars[i + 2..].iter().take(2).collect();
                let found = if rest.starts_with('=') {
                    Some("a look-ahead `(?=...)`")
                } else if rest.starts_with('!') {
                    Some("a negative look-ahead `(?!...)`")
                } else if rest == "<=" {
                    Some("a look-behind `(?<=...)`")
                } else if rest == "<!" {
                    Some("a negative look-behind `(?<!...)`")
                } else {
                    None
                };
                if let Some(f) = found {
                    return Some(f.into());
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A title is shown to people in place of the name: a blank one hides the tool.
fn check_title(cx: &Ctxt, tool: &ToolFn) {
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
fn check_arg_description(cx: &Ctxt, arg: &ToolArg) {
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

/// `one_of` is published as `enum`, whose values JSON Schema asks to be unique; a value listed
/// twice is a slip (often a copy-paste that meant another value).
fn check_one_of_unique(cx: &Ctxt, arg: &ToolArg) {
    let Some(values) = arg.attrs.one_of.value() else {
        return;
    };
    let mut seen: Vec<(Literal, &Expr)> = Vec::new();
    for v in values {
        let Some(lit) = literal_of(v) else { continue };
        if let Some((_, first)) = seen.iter().find(|(l, _)| l.same_value(&lit)) {
            let mut e = syn::Error::new_spanned(
                v,
                format!("`one_of` lists `{}` twice; remove one", lit.shown()),
            );
            e.combine(syn::Error::new_spanned(first, "first listed here"));
            cx.syn_error(e);
        } else {
            seen.push((lit, v));
        }
    }
}

/// A literal `default` is a value the macro can read, so it is held to the argument's own
/// constraints: otherwise the schema publishes, and the call uses, a value validation refuses.
/// Defaults that are not literals (`Priority::Normal`, `now()`) are left alone.
fn check_default_literal(cx: &Ctxt, arg: &ToolArg) {
    let Some(expr) = arg.attrs.default.value() else {
        return;
    };
    let Some(lit) = literal_of(expr) else {
        return;
    };
    let a = &arg.attrs;
    let fail = |why: String| {
        cx.error_spanned_by(
            expr,
            format!("{why}; a default must meet the argument's own constraints"),
        );
    };
    let bound = |attr: &Attr<Num>| attr.get().map(|b| (b.value, attr.key_text().to_owned()));
    let count = |attr: &Attr<u64>| attr.get().map(|b| (b.value, attr.key_text().to_owned()));
    match &lit {
        Literal::Num(n) => {
            use std::cmp::Ordering::{Equal, Greater, Less};
            let rules = [
                (bound(&a.minimum), &[Less][..], "below"),
                (bound(&a.maximum), &[Greater][..], "above"),
                (bound(&a.exclusive_minimum), &[Less, Equal][..], "not above"),
                (
                    bound(&a.exclusive_maximum),
                    &[Greater, Equal][..],
                    "not below",
                ),
            ];
            for (b, refused, relation) in rules {
                let Some((limit, key)) = b else { continue };
                if n.partial_cmp(limit).is_some_and(|o| refused.contains(&o)) {
                    fail(format!("`default = {n}` is {relation} `{key} = {limit}`"));
                }
            }
        }
        Literal::Str(text) => {
            let chars = text.chars().count() as u64;
            let shown = format!("`default = {}`", lit.shown());
            if let Some((min, key)) = count(&a.min_length).filter(|(min, _)| chars < *min) {
                fail(format!(
                    "{shown} has {chars} characters, fewer than `{key} = {min}`"
                ));
            }
            if let Some((max, key)) = count(&a.max_length).filter(|(max, _)| chars > *max) {
                fail(format!(
                    "{shown} has {chars} characters, more than `{key} = {max}`"
                ));
            }
            if let Some(Sp { value: p, .. }) = a.pattern.get() {
                // An invalid pattern is reported by `check_pattern`.
                let matches = regress::Regex::with_flags(&p.value(), "u")
                    .map_or(true, |re| re.find(text).is_some());
                if !matches {
                    fail(format!(
                        "{shown} does not match `{} = {:?}`",
                        a.pattern.key_text(),
                        p.value()
                    ));
                }
            }
        }
        Literal::Items(items) => {
            let items = *items as u64;
            if let Some((min, key)) = count(&a.min_items).filter(|(min, _)| items < *min) {
                fail(format!(
                    "the `default` list has {items} items, fewer than `{key} = {min}`"
                ));
            }
            if let Some((max, key)) = count(&a.max_items).filter(|(max, _)| items > *max) {
                fail(format!(
                    "the `default` list has {items} items, more than `{key} = {max}`"
                ));
            }
        }
    }
    if let (Some(values), Literal::Num(_) | Literal::Str(_)) = (a.one_of.value(), &lit) {
        let listed: Option<Vec<Literal>> = values.iter().map(literal_of).collect();
        if listed.is_some_and(|listed| !listed.iter().any(|l| l.same_value(&lit))) {
            fail(format!(
                "`default = {}` is not one of the `one_of` values",
                lit.shown()
            ));
        }
    }
}

/// A value written as a literal, as far as the macro can read one.
enum Literal {
    Num(Num),
    Str(String),
    /// A list literal (`vec![…]`, `[…]`) with this many items.
    Items(usize),
}

impl Literal {
    /// The value as the messages show it: `5`, `"text"`.
    fn shown(&self) -> String {
        match self {
            Literal::Num(n) => n.to_string(),
            Literal::Str(s) => format!("{s:?}"),
            Literal::Items(n) => format!("a list of {n}"),
        }
    }

    fn same_value(&self, other: &Literal) -> bool {
        match (self, other) {
            (Literal::Num(a), Literal::Num(b)) => {
                a.partial_cmp(*b) == Some(std::cmp::Ordering::Equal)
            }
            (Literal::Str(a), Literal::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// Reads `5`, `-0.5`, `"text"`, `"text".to_string()` (or `.to_owned()`, `.into()`),
/// `String::from("text")`, `vec![a, b]` and `[a, b]`; anything else is not a literal here.
fn literal_of(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Int(i) => match i.base10_parse::<i64>() {
                Ok(n) => Some(Literal::Num(Num::Int(n))),
                Err(_) => i
                    .base10_parse::<u64>()
                    .ok()
                    .map(|n| Literal::Num(Num::UInt(n))),
            },
            Lit::Float(f) => f
                .base10_parse::<f64>()
                .ok()
                .map(|x| Literal::Num(Num::Float(x))),
            Lit::Str(s) => Some(Literal::Str(s.value())),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match literal_of(&u.expr)? {
            Literal::Num(Num::Int(n)) => Some(Literal::Num(Num::Int(n.checked_neg()?))),
            Literal::Num(Num::UInt(n)) => {
                let n = i64::try_from(-i128::from(n)).ok()?;
                Some(Literal::Num(Num::Int(n)))
            }
            Literal::Num(Num::Float(x)) => Some(Literal::Num(Num::Float(-x))),
            _ => None,
        },
        Expr::Paren(p) => literal_of(&p.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "to_owned" | "into"
                ) =>
        {
            literal_of(&m.receiver).filter(|l| matches!(l, Literal::Str(_)))
        }
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(f) = &*c.func else {
                return None;
            };
            let segments: Vec<String> = f
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let is_from = segments.ends_with(&["String".to_owned(), "from".to_owned()]);
            if is_from {
                literal_of(&c.args[0]).filter(|l| matches!(l, Literal::Str(_)))
            } else {
                None
            }
        }
        Expr::Array(a) => Some(Literal::Items(a.elems.len())),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => m
            .mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .ok()
            .map(|items| Literal::Items(items.len())),
        _ => None,
    }
}

/// Two arguments published under one name would be one property in the schema.
fn check_unique_arg_names(cx: &Ctxt, tool: &ToolFn) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for arg in tool.args() {
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

#[cfg(test)]
mod tests {
    use super::unportable_regex_feature;

    #[test]
    fn unportable_features_are_found_outside_classes_only() {
        let cases: &[(&str, Option<&str>)] = &[
            (r"^T-\d+$", None),
            (r"^(?:ab)+$", None),
            (r"^(?<year>\d{4})$", None),
            (r"^(?=a)", Some("a look-ahead `(?=...)`")),
            (r"^(?!a)", Some("a negative look-ahead `(?!...)`")),
            (r"(?<=a)b", Some("a look-behind `(?<=...)`")),
            (r"(?<!a)b", Some("a negative look-behind `(?<!...)`")),
            (r"(a)\1", Some("a backreference `\\1`")),
            (r"(?<x>a)\k<x>", Some("a named backreference `\\k<...>`")),
            (r"[(?=]", None),
            (r"[\1]", None),
            (r"\(?=", None),
            (r"\\1", None),
            (r"^\p{L}+$", Some("a Unicode property escape `\\p{...}`")),
            (r"[\P{Lu}]", Some("a Unicode property escape `\\P{...}`")),
            (r"\u{1F600}", Some("a code point escape `\\u{...}`")),
            (r"\u00e9", None),
            (r"\\p{L}", None),
        ];
        for (pattern, expected) in cases {
            assert_eq!(
                unportable_regex_feature(pattern).as_deref(),
                *expected,
                "pattern {pattern}"
            );
        }
    }
}
