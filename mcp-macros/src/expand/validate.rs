//! Type contracts left to rustc. Each parameter type and the return type is named once, in a
//! nested fn spanned at the type the user wrote, which returns the runtime's bundle of operations
//! for it (`ArgFns`, `InjectFns`, `RetFns`); the schema and the handler call through those bundles
//! and add no bounds of their own. A type that breaks its contract is thus reported once, where
//! the user wrote it, with the runtime's `on_unimplemented` text. The constraint keys add their
//! own marker bound (`StrArg`, `ItemsArg`, `NumArg`) at the same span.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::type_fns;
use crate::model::{Param, ToolFn};
use crate::paths::Paths;

pub fn expand_contracts(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, p) in tool.params.iter().enumerate() {
        let f = type_fns(i);
        match p {
            Param::Arg(arg) => {
                let ty = &arg.ty;
                out.extend(expand_arg_fns(&f, ty, paths));
                out.extend(expand_constraint_bounds(arg, paths));
            }
            Param::Inject(inj) => {
                let ty = &inj.ty;
                let inject_fns = paths.inject_fns();
                let inject_fns_of = paths.inject_fns_of();
                out.extend(quote_spanned! {ty.span()=>
                    fn #f() -> #inject_fns<#ty> {
                        #inject_fns_of::<#ty>()
                    }
                });
            }
        }
    }
    out.extend(expand_ret_fns(tool, paths));
    out
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

/// `pattern` and the length keys need a string, the item keys a collection, the numeric bounds a
/// number; the schema would otherwise publish a constraint that no value of the type can meet.
fn expand_constraint_bounds(arg: &crate::model::ToolArg, paths: &Paths) -> TokenStream {
    let ty = &arg.ty;
    let span = ty.span();
    let a = &arg.attrs;
    let mut checks = Vec::new();
    if a.pattern.get().is_some() || a.min_length.get().is_some() || a.max_length.get().is_some() {
        checks.push(paths.assert_str_arg());
    }
    if a.min_items.get().is_some() || a.max_items.get().is_some() {
        checks.push(paths.assert_items_arg());
    }
    if a.num_bounds().iter().any(|b| b.get().is_some()) {
        checks.push(paths.assert_num_arg());
    }
    let mut out = TokenStream::new();
    for f in checks {
        out.extend(quote_spanned!(span=> const _: () = #f::<#ty>();));
    }
    out
}

fn expand_ret_fns(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let ret_fns = paths.ret_fns();
    let ret_probe = paths.ret_probe();
    let result_kind = paths.result_ret_kind();
    let plain_kind = paths.plain_ret_kind();
    let ret = &tool.output.ty;
    let body = quote_spanned! {tool.output.span=>
        let __mcp_probe = #ret_probe::<#ret>::new();
        (&__mcp_probe).__mcp_ret_kind().fns(&__mcp_probe)
    };
    quote! {
        fn __mcp_ret() -> #ret_fns<#ret> {
            #[allow(unused_imports)]
            use #result_kind as _;
            #[allow(unused_imports)]
            use #plain_kind as _;
            #body
        }
    }
}
