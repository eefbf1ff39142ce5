//! Rules that span several keys or the whole signature. Each check reports into the `Ctxt` and
//! never stops the others, so one build shows every broken rule.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::Signature;

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
    if let Some(u) = &sig.unsafety {
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
                    incl.name(),
                    excl.name(),
                    arg.ident
                ),
                first,
                format!("`{}` given here", incl.name()),
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
        .map(|v| (v, false, a.minimum.name()))
        .or_else(|| {
            a.exclusive_minimum
                .get()
                .map(|v| (v, true, a.exclusive_minimum.name()))
        });
    let upper = a
        .maximum
        .get()
        .map(|v| (v, false, a.maximum.name()))
        .or_else(|| {
            a.exclusive_maximum
                .get()
                .map(|v| (v, true, a.exclusive_maximum.name()))
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
                min.name(),
                lo.value,
                max.name(),
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
