//! Numeric, length and item-count bounds: one per side, and some value left between them.

use crate::attr::{Attr, Num, Sp};
use crate::ctxt::Ctxt;
use crate::model::ToolArg;

/// A side's bound: the inclusive one if given, else the exclusive one; whether it is exclusive;
/// its key as written.
fn side_bound<'a>(
    inclusive: &'a Attr<Num>,
    exclusive: &'a Attr<Num>,
) -> Option<(&'a Sp<Num>, bool, &'a str)> {
    let given = |attr: &'a Attr<Num>, excl| attr.get().map(|v| (v, excl, attr.key_text()));
    given(inclusive, false).or_else(|| given(exclusive, true))
}

/// One bound per side (`minimum` or `exclusive_minimum`, not both: JSON Schema would apply both
/// and the tighter one silently wins), and a lower bound that leaves some number below the upper.
pub(super) fn check_num_bounds(cx: &Ctxt, arg: &ToolArg) {
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
    let lower = side_bound(&a.minimum, &a.exclusive_minimum);
    let upper = side_bound(&a.maximum, &a.exclusive_maximum);
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
pub(super) fn check_count_bounds(cx: &Ctxt, min: &Attr<u64>, max: &Attr<u64>, unit: &str) {
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
