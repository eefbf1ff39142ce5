//! The call half of a tool: the state it borrows, and the handler that takes each argument out of
//! the validated arguments, borrows the injected values, calls the function and converts its
//! result. Every type-specific step goes through the bundles emitted by `validate.rs`.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::{quote, quote_spanned};

use super::default_fn;
use crate::model::{Param, ToolFn};
use crate::paths::Paths;
use crate::tokens::{binding, respan, type_fns};

pub fn expand_state(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let injected = tool.params.iter().map(|p| matches!(p, Param::Inject(_)));
    expand_state_fn(injected, paths)
}

/// `__mcp_state()`: the state requirement of each parameter for which `injected` is true (the
/// `i`th one's through its checked bundle), for `#[tool]` and `#[resource]` alike.
pub(crate) fn expand_state_fn(injected: impl Iterator<Item = bool>, paths: &Paths) -> TokenStream {
    let vec = paths.vec();
    let option = paths.option();
    let state_req = paths.state_req();
    let reqs: Vec<TokenStream> = injected
        .enumerate()
        .filter(|(_, injected)| *injected)
        .map(|(i, _)| {
            let fns = type_fns(i);
            quote!((#fns().state_req)())
        })
        .collect();
    let n = reqs.len();
    quote! {
        fn __mcp_state() -> #vec<#state_req> {
            let __mcp_reqs: [#option<#state_req>; #n] = [#(#reqs),*];
            __mcp_reqs.into_iter().flatten().collect()
        }
    }
}

pub fn expand_handler(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let call_parts = paths.call_parts();
    let box_future = paths.box_future();
    let result = paths.result();
    let tool_output = paths.handler_output(tool.kind);
    let tool_error = paths.tool_error();
    let boxed = paths.boxed();
    let option = paths.option();

    // -- arguments first: taking them needs `&mut` on the parts the injected values borrow --
    let mut takes = TokenStream::new();
    let mut injects = TokenStream::new();
    let mut bindings = Vec::new();
    let flat = expand_flat_takes(tool, paths);
    for (i, p) in tool.params.iter().enumerate() {
        let var = binding(i);
        let fns = type_fns(i);
        bindings.push(var.clone());
        match p {
            Param::Arg(arg) if arg.attrs.is_flatten() => {}
            Param::Arg(arg) => {
                let ty = &arg.ty;
                let name = arg.name().value;
                let absent = match arg.attrs.default.get() {
                    Some(_) => {
                        let f = default_fn(i);
                        quote!(#f())
                    }
                    None => quote!((#fns().absent)(&__mcp_parts, #name)?),
                };
                takes.extend(quote! {
                    let #var: #ty = match (#fns().take)(&mut __mcp_parts, #name)? {
                        #option::Some(__mcp_v) => __mcp_v,
                        #option::None => #absent,
                    };
                });
            }
            Param::Inject(inj) => {
                let ty = &inj.ty;
                let ty = if inj.by_value {
                    quote!(#ty)
                } else {
                    quote!(&#ty)
                };
                injects.extend(quote! {
                    let #var: #ty = (#fns().get)(&__mcp_parts)?;
                });
            }
        }
    }

    // -- the call and the conversion --
    let ident = tool.ident();
    let path = tool.call_path();
    let call = if tool.is_async() {
        quote!(#path(#(#bindings),*).await)
    } else {
        quote!(#path(#(#bindings),*))
    };
    let mutability = tool.args().next().map(|_| quote!(mut));
    let FlatTakes {
        keys,
        takes: flat_takes,
    } = flat;
    let body = quote! {
        #takes
        #flat_takes
        #injects
        let __mcp_out = #call;
        (__mcp_ret().convert)(__mcp_out)
    };
    // An async body may hold a value that is not `Send` across an `.await`: the future is boxed
    // through a bound spanned at the function's name, and rustc points into the body from there.
    let future = if tool.is_async() {
        let span = ident.span();
        let path = respan(paths.boxed_send(), span);
        let mut block = Group::new(Delimiter::Brace, body);
        block.set_span(span);
        let mut args = Group::new(
            Delimiter::Parenthesis,
            quote_spanned!(span=> async move #block),
        );
        args.set_span(span);
        quote!(#path #args)
    } else if tool.attrs.inline.get().is_some_and(|i| i.value) {
        quote!(#boxed(async move { #body }))
    } else {
        // A synchronous body runs on the blocking pool, so that a slow one never stops the
        // server from reading: the arguments are taken, and the result converted, there too.
        let boxed_blocking = paths.boxed_blocking();
        quote!(#boxed_blocking(move || { #body }))
    };
    quote! {
        #keys
        fn __mcp_handler(
            #mutability __mcp_parts: #call_parts,
        ) -> #box_future<'static, #result<#tool_output, #tool_error>> {
            #future
        }
    }
}

/// The flattened arguments (`#[arg(flatten)]`): the keys each one takes, read once per tool into
/// a static, and their takes, which run after every ordinary argument is taken so that each
/// struct receives only what is left for it.
struct FlatTakes {
    keys: TokenStream,
    takes: TokenStream,
}

fn expand_flat_takes(tool: &ToolFn, paths: &Paths) -> FlatTakes {
    let flat_keys = paths.flat_keys();
    let once_lock = paths.once_lock();
    let mut keys = TokenStream::new();
    let mut takes = TokenStream::new();
    let mut all = Vec::new();
    let flattened = tool
        .indexed_args()
        .filter(|(_, arg)| arg.attrs.is_flatten());
    for (n, (i, arg)) in flattened.enumerate() {
        let fns = type_fns(i);
        let var = binding(i);
        let ty = &arg.ty;
        let keys_fn = quote::format_ident!("__mcp_flat_keys_{}", i);
        keys.extend(quote! {
            fn #keys_fn() -> &'static #flat_keys {
                static __MCP_KEYS: #once_lock<#flat_keys> = #once_lock::new();
                __MCP_KEYS.get_or_init(#fns().keys)
            }
        });
        all.push(quote!(#keys_fn()));
        takes.extend(quote! {
            let #var: #ty = (#fns().take)(&mut __mcp_parts, &__mcp_flat_keys, #n)?;
        });
    }
    if !all.is_empty() {
        let count = all.len();
        takes = quote! {
            let __mcp_flat_keys: [&'static #flat_keys; #count] = [#(#all),*];
            #takes
        };
    }
    FlatTakes { keys, takes }
}

/// Each injected type is borrowed once: the generated struct implements `InjectedOnce<T>` per
/// `&T` parameter, and a second `&T` of the same type (an alias included) is a conflicting impl,
/// reported at that parameter's type. Two `&Context` parameters would be the same borrow twice.
pub fn expand_injected_once(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let injected_once = paths.injected_once();
    let ident = tool.def_ident();
    let mut out = TokenStream::new();
    for p in &tool.params {
        if let Param::Inject(inj) = p {
            let ty = &inj.ty;
            out.extend(quote_spanned! {syn::spanned::Spanned::span(ty)=>
                #[automatically_derived]
                impl #injected_once<#ty> for #ident {}
            });
        }
    }
    out
}
