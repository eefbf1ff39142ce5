//! The call half of a tool: the state it borrows, and the handler that takes each argument out of
//! the validated arguments, borrows the injected values, calls the function and converts its
//! result. Every type-specific step goes through the bundles emitted by `validate.rs`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{binding, default_fn, type_fns};
use crate::model::{Param, ToolFn};
use crate::paths::Paths;

pub fn expand_state(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let vec = paths.vec();
    let option = paths.option();
    let state_req = paths.state_req();
    let reqs: Vec<TokenStream> = tool
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Param::Inject(_) => {
                let fns = type_fns(i);
                Some(quote!((#fns().state_req)()))
            }
            Param::Arg(_) => None,
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
    let call_tool_result = paths.call_tool_result();
    let tool_error = paths.tool_error();
    let boxed = paths.boxed();
    let option = paths.option();

    // -- arguments first: taking them needs `&mut` on the parts the injected values borrow --
    let mut takes = TokenStream::new();
    let mut injects = TokenStream::new();
    let mut bindings = Vec::new();
    for (i, p) in tool.params.iter().enumerate() {
        let var = binding(i);
        let fns = type_fns(i);
        bindings.push(var.clone());
        match p {
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
                injects.extend(quote! {
                    let #var: &#ty = (#fns().get)(&__mcp_parts)?;
                });
            }
        }
    }

    // -- the call and the conversion --
    let ident = tool.ident();
    let call = if tool.is_async() {
        quote!(#ident(#(#bindings),*).await)
    } else {
        quote!(#ident(#(#bindings),*))
    };
    let mutability = tool.args().next().map(|_| quote!(mut));
    quote! {
        fn __mcp_handler(
            #mutability __mcp_parts: #call_parts,
        ) -> #box_future<'static, #result<#call_tool_result, #tool_error>> {
            #boxed(async move {
                #takes
                #injects
                let __mcp_out = #call;
                (__mcp_ret().convert)(__mcp_out, __mcp_parts.wrapped)
            })
        }
    }
}
