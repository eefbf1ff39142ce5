//! What `#[prompt]` expands to beyond a tool's parts: its return type's conversion into
//! messages, its completion fns, its spec.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::expand_texts;
use crate::model::ToolFn;
use crate::paths::Paths;
use crate::tokens::respan;

/// `__mcp_ret()`: the return type's conversion into messages, its contract (`PromptReturn`)
/// spanned at the type the user wrote.
pub fn expand_ret_fns(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let ret_fns = paths.prompt_ret_fns();
    let ret_fns_of = paths.prompt_ret_fns_of();
    let ret = &tool.output.ty;
    let probe = paths.ret_probe();
    let kinds = [
        paths.result_ret_kind(),
        paths.plain_ret_kind(),
        paths.visible_err_kind(),
        paths.plain_err_kind(),
    ];
    // The error type goes through the tools' probe: a `VisibleError` is shown.
    let body = quote_spanned! {tool.output.span=>
        let __mcp_probe = #probe::<#ret>::new();
        let __mcp_err = (&__mcp_probe).__mcp_ret_kind().err(&__mcp_probe);
        #ret_fns_of::<#ret, _, _>((&&__mcp_err).__mcp_err_kind())
    };
    quote! {
        fn __mcp_ret() -> #ret_fns<#ret> {
            #(#[allow(unused_imports)] use #kinds as _;)*
            #body
        }
    }
}

/// `__mcp_completers()`: each `complete = f` as a fn pointer, the call to `f` spanned at `f` so
/// that a fn of the wrong signature is reported there.
pub fn expand_completers(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let complete_fn = paths.complete_fn();
    let complete_with = paths.complete_with();
    let vec = paths.vec();
    let entries = tool.args().filter_map(|arg| {
        let f = arg.attrs.complete.get()?;
        let name = arg.name().value;
        let path = &f.value;
        let call = respan(quote!(#complete_with(#path, __mcp_request)), path.span());
        Some(quote! {
            (#name, (|__mcp_request| #call) as #complete_fn)
        })
    });
    let entries: Vec<TokenStream> = entries.collect();
    quote! {
        fn __mcp_completers() -> #vec<(&'static str, #complete_fn)> {
            #vec::from([#(#entries),*])
        }
    }
}

/// The `PromptSpec` literal ending `spec()`.
pub fn expand_spec(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let prompt_spec = paths.prompt_spec();
    let name = tool.name().value;
    let (title, description) = expand_texts(tool, paths);
    let scopes = tool.scopes();
    quote! {
        #prompt_spec {
            name: #name,
            title: #title,
            description: #description,
            input: __mcp_input,
            handler: __mcp_handler,
            state: __mcp_state,
            completers: __mcp_completers,
            scopes: &[#(#scopes),*],
        }
    }
}
