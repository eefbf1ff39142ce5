//! Type contracts left to rustc. Each parameter type and the return type is named once, in a
//! nested fn spanned at the type the user wrote, which returns the runtime's bundle of operations
//! for it (`ArgFns`, `InjectFns`, `RetFns`); the schema and the handler call through those bundles
//! and add no bounds of their own. A type that breaks its contract is thus reported once, where
//! the user wrote it, with the runtime's `on_unimplemented` text. The constraint keys add their
//! own marker bound (`StrArg`, `ItemsArg`, `NumArg`) at the same span.

use proc_macro2::{Delimiter, Group, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr::Num;
use crate::model::{Param, ToolArg, ToolFn};
use crate::paths::Paths;
use crate::tokens::{type_fns, type_text};

pub fn expand_contracts(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, p) in tool.params.iter().enumerate() {
        let f = type_fns(i);
        match p {
            Param::Arg(arg) if arg.attrs.is_flatten() => {
                let (fns, of) = (paths.flat_fns(), paths.flat_fns_of());
                out.extend(expand_bundle_fn(&f, &arg.ty, fns, of));
            }
            Param::Arg(arg) => {
                let ty = &arg.ty;
                out.extend(expand_arg_fns(&f, ty, paths));
                out.extend(expand_constraint_bounds(i, arg, paths));
            }
            Param::Inject(inj) => {
                let (fns, of) = if inj.by_value {
                    (paths.receiver_fns(), paths.receiver_fns_of())
                } else {
                    (paths.inject_fns(), paths.inject_fns_of())
                };
                out.extend(expand_bundle_fn(&f, &inj.ty, fns, of));
            }
        }
    }
    out.extend(expand_ret_fns(tool, paths));
    out
}

/// `fn f() -> Bundle<T> { bundle_of::<T>() }`, spanned at `T`: the bundle fn's bound is the type's
/// contract.
pub(crate) fn expand_bundle_fn(
    f: &syn::Ident,
    ty: &syn::Type,
    bundle: TokenStream,
    bundle_of: TokenStream,
) -> TokenStream {
    quote_spanned! {ty.span()=>
        fn #f() -> #bundle<#ty> {
            #bundle_of::<#ty>()
        }
    }
}

fn expand_arg_fns(f: &syn::Ident, ty: &syn::Type, paths: &Paths) -> TokenStream {
    let arg_fns = paths.arg_fns();
    let arg_probe = paths.arg_probe();
    let option_kind = paths.option_arg_kind();
    let plain_kind = paths.plain_arg_kind();
    quote_spanned! {ty.span()=>
        fn #f() -> #arg_fns<#ty> {
            #[allow(unused_imports)]
            use #option_kind as _;
            #[allow(unused_imports)]
            use #plain_kind as _;
            let __mcp_probe = #arg_probe::<#ty>::new();
            (&__mcp_probe).__mcp_arg_kind().fns(&__mcp_probe)
        }
    }
}

/// `pattern`, `format` and the length keys need a string, the item keys a collection, the numeric bounds a
/// number; the schema would otherwise publish a constraint that no value of the type can meet.
fn expand_constraint_bounds(i: usize, arg: &ToolArg, paths: &Paths) -> TokenStream {
    let ty = &arg.ty;
    let span = ty.span();
    let a = &arg.attrs;
    let mut out = TokenStream::new();
    let string_keys = [a.min_length.get(), a.max_length.get()];
    if a.pattern.get().is_some()
        || a.format.get().is_some()
        || string_keys.iter().any(Option::is_some)
    {
        let f = paths.assert_str_arg();
        out.extend(quote_spanned!(span=> const _: () = #f::<#ty>();));
    }
    if a.min_items.get().is_some() || a.max_items.get().is_some() {
        let f = paths.assert_items_arg();
        out.extend(quote_spanned!(span=> const _: () = #f::<#ty>();));
    }
    if a.num_bounds().iter().any(|b| b.get().is_some()) {
        out.extend(expand_num_bounds(i, arg, paths));
    }
    out
}

/// The numeric bounds against what the argument type holds: the type's range is read once, in a
/// constant spanned at the type (the "bound on a number" contract), and each bound is asserted in a
/// constant spanned at its literal, so rustc reports a bad bound where it is written.
fn expand_num_bounds(i: usize, arg: &ToolArg, paths: &Paths) -> TokenStream {
    let ty = &arg.ty;
    let ty_text = type_text(ty);
    let range = quote::format_ident!("__MCP_NUM_RANGE_{}", i);
    let num_range = paths.num_range();
    let num_range_ty = paths.num_range_ty();
    let num_bound = paths.num_bound();
    let in_range = paths.bound_in_range();
    let is_whole = paths.bound_is_whole();
    let mut out = quote_spanned! {ty.span()=>
        const #range: #num_range_ty = #num_range::<#ty>();
    };
    let a = &arg.attrs;
    let slots = [
        (&a.minimum, quote!(Min), f64::ceil as fn(f64) -> f64),
        (&a.maximum, quote!(Max), f64::floor),
        (&a.exclusive_minimum, quote!(ExclusiveMin), f64::floor),
        (&a.exclusive_maximum, quote!(ExclusiveMax), f64::ceil),
    ];
    for (slot, variant, round) in slots {
        let Some(bound) = slot.get() else { continue };
        let key = slot.key_text();
        let written = format!("{key} = {}", bound.value);
        let (bound_tokens, check, msg) = match whole(bound.value) {
            Some(v) => (
                quote!(#num_bound::#variant(#v)),
                &in_range,
                format!(
                    "`{written}` is out of range for `{ty_text}`; give a bound within the values of `{ty_text}`, or use a wider type"
                ),
            ),
            None => {
                let Num::Float(f) = bound.value else { continue };
                // `+ 0.0` turns `-0` into `0`.
                let suggestion = round(f) + 0.0;
                (
                    quote!(#num_bound::Fraction),
                    &is_whole,
                    format!(
                        "`{written}` is not a whole number, but `{ty_text}` holds integers; write `{key} = {suggestion}`"
                    ),
                )
            }
        };
        out.extend(spanned_assert(
            bound.span,
            bound.end,
            quote!(#check(#range, #bound_tokens)),
            &msg,
        ));
    }
    out
}

/// A bound as an integer when it is a whole number; a float beyond `i128` saturates, which is
/// still out of range for every integer type.
fn whole(n: Num) -> Option<i128> {
    match n {
        Num::Int(i) => Some(i128::from(i)),
        Num::UInt(u) => Some(i128::from(u)),
        // Saturating is the point: `1e40` is out of range for every integer type.
        #[allow(clippy::cast_possible_truncation)]
        Num::Float(f) if f.fract() == 0.0 => Some(f as i128),
        Num::Float(_) => None,
    }
}

/// `const _: () = assert!(cond, "msg");` underlining `start..=end`: the `assert!` path carries the
/// first span and its parentheses the last, and rustc joins them for the macro call.
fn spanned_assert(start: Span, end: Span, cond: TokenStream, msg: &str) -> TokenStream {
    let mut args = Group::new(Delimiter::Parenthesis, quote_spanned!(start=> #cond, #msg));
    args.set_span(end);
    quote_spanned! {start=>
        const _: () = ::core::assert! #args;
    }
}

fn expand_ret_fns(tool: &ToolFn, paths: &Paths) -> TokenStream {
    if tool.kind == crate::model::Kind::Prompt {
        return super::prompt::expand_ret_fns(tool, paths);
    }
    let ret_fns = paths.ret_fns();
    let ret_probe = paths.ret_probe();
    let result_kind = paths.result_ret_kind();
    let plain_kind = paths.plain_ret_kind();
    let (visible_err, plain_err) = (paths.visible_err_kind(), paths.plain_err_kind());
    let ret = &tool.output.ty;
    let body = quote_spanned! {tool.output.span=>
        let __mcp_probe = #ret_probe::<#ret>::new();
        let __mcp_kind = (&__mcp_probe).__mcp_ret_kind();
        // The error type goes through its own probe: a `VisibleError` is shown.
        let __mcp_err = __mcp_kind.err(&__mcp_probe);
        __mcp_kind.fns(&__mcp_probe, (&&__mcp_err).__mcp_err_kind())
    };
    quote! {
        fn __mcp_ret() -> #ret_fns<#ret> {
            #[allow(unused_imports)]
            use #result_kind as _;
            #[allow(unused_imports)]
            use #plain_kind as _;
            #[allow(unused_imports)]
            use #visible_err as _;
            #[allow(unused_imports)]
            use #plain_err as _;
            #body
        }
    }
}
