//! Rules that span several keys or the whole signature. Each check reports into the `Ctxt` and
//! never stops the others, so one build shows every broken rule.
//!
//! - `signature`: a tool is a plain function: not `const`, `unsafe`, `extern`, variadic or generic.
//! - `names`: the tool name MCP allows, `rename` values, one published name per argument.
//! - `text`: descriptions and titles, present where required and never blank.
//! - `hints`: annotation hints that do not contradict each other; `inline` only on a synchronous body, `task` only on an async one.
//! - `bounds`: numeric, length and item-count bounds that leave some value valid.
//! - `pattern`: `pattern` is a portable ECMA-262 regular expression.
//! - `values`: `one_of` lists each value once; a literal `default` meets the argument's constraints.
//! - `literal`: values written as literals, as `values` reads them.
//! - `flatten`: `#[arg(flatten)]` takes no other key, and one struct type is flattened once.
//! - `kind`: what one kind of function (tool, prompt, resource) accepts and the others do not.

mod bounds;
mod flatten;
mod hints;
mod kind;
mod literal;
mod names;
mod pattern;
mod signature;
mod text;
mod values;

use bounds::{check_count_bounds, check_num_bounds};
use flatten::{check_flatten_keys, check_flatten_once};
use hints::{check_hints, check_inline, check_task};
use names::{check_name, check_rename, check_unique_arg_names};
use pattern::check_pattern;
pub(crate) use signature::check_generics;
use signature::check_signature;
use text::{check_arg_description, check_description, check_title};
use values::{check_default_literal, check_one_of_unique};

use crate::ctxt::Ctxt;
use crate::model::ToolFn;

/// Every rule: the tool's own, then each argument's, then across arguments. Errors are reported
/// in this order.
pub(crate) fn check(cx: &Ctxt, tool: &ToolFn) {
    check_signature(cx, &tool.original.sig);
    check_name(cx, tool);
    check_description(cx, tool);
    check_hints(cx, tool);
    check_inline(cx, tool);
    check_task(cx, tool);
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
        check_flatten_keys(cx, arg);
    }
    check_unique_arg_names(cx, tool);
    check_flatten_once(cx, tool);
    kind::check_kind_keys(cx, tool);
}
