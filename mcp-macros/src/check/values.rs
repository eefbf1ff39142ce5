//! The values an attribute writes out: `one_of` lists each once, and a literal `default` meets the
//! argument's own constraints.

use syn::Expr;

use super::literal::{Literal, literal_of};
use crate::attr::{Attr, Num};
use crate::ctxt::Ctxt;
use crate::model::ToolArg;

/// `one_of` is published as `enum`, whose values JSON Schema asks to be unique; a value listed
/// twice is a slip (often a copy-paste that meant another value).
pub(super) fn check_one_of_unique(cx: &Ctxt, arg: &ToolArg) {
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
pub(super) fn check_default_literal(cx: &Ctxt, arg: &ToolArg) {
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
    // `what` has `n` `unit`s, which must be within the `min` and `max` slots.
    let counted = |what: &str, n: u64, unit: &str, min: &Attr<u64>, max: &Attr<u64>| {
        if let Some((min, key)) = count(min).filter(|(min, _)| n < *min) {
            fail(format!("{what} has {n} {unit}, fewer than `{key} = {min}`"));
        }
        if let Some((max, key)) = count(max).filter(|(max, _)| n > *max) {
            fail(format!("{what} has {n} {unit}, more than `{key} = {max}`"));
        }
    };
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
            counted(&shown, chars, "characters", &a.min_length, &a.max_length);
            if let Some(p) = a.pattern.get().and_then(|p| p.value.literal()) {
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
            let list = "the `default` list";
            counted(list, items, "items", &a.min_items, &a.max_items);
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
