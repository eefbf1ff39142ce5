//! The call half of a tool: the state it borrows, and the handler that takes each argument out of
//! the validated arguments, borrows the injected values, calls the function and converts its result.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{binding, default_fn};
use crate::model::{Param, ToolFn};
use crate::paths::Paths;

pub fn expand_state(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let vec = paths.vec();
    let option = paths.option();
    let state_req = paths.state_req();
    let state_req_of = paths.state_req_of();
    let reqs: Vec<TokenStream> = tool
        .params
        .iter()
        .filter_map(|p| match p {
            Param::Inject(inj) => {
                let ty = &inj.ty;
                Some(quote_spanned!(ty.span()=> #state_req_of::<#ty>()))
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
    let take_arg = paths.take_arg();
    let inject = paths.inject();
    let arg_probe = paths.arg_probe();
    let option = paths.option();
    let option_kind = paths.option_arg_kind();
    let plain_kind = paths.plain_arg_kind();
    let result_kind = paths.result_ret_kind();
    let plain_ret_kind = paths.plain_ret_kind();
    let ret_probe = paths.ret_probe();

    // -- arguments first: taking them needs `&mut` on the parts the injected values borrow --
    let mut takes = TokenStream::new();
    let mut injects = TokenStream::new();
    let mut bindings = Vec::new();
    for (i, p) in tool.params.iter().enumerate() {
        let var = binding(i);
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
                    None => quote_spanned! {ty.span()=> {
                        let __mcp_probe = #arg_probe::<#ty>::new();
                        (&__mcp_probe).__mcp_arg_kind().absent(&__mcp_probe, &__mcp_parts, #name)?
                    }},
                };
                takes.extend(quote_spanned! {ty.span()=>
                    let #var: #ty = match #take_arg::<#ty>(&mut __mcp_parts, #name)? {
                        #option::Some(__mcp_v) => __mcp_v,
                        #option::None => #absent,
                    };
                });
            }
            Param::Inject(inj) => {
                let ty = &inj.ty;
                injects.extend(quote_spanned! {ty.span()=>
                    let #var: &#ty = #inject::<#ty>(&__mcp_parts)?;
                });
            }
        }
    }

    // -- the call and the conversion, spanned at the return type for its trait errors --
    let ident = tool.ident();
    let call = if tool.is_async() {
        quote!(#ident(#(#bindings),*).await)
    } else {
        quote!(#ident(#(#bindings),*))
    };
    let ret = &tool.output.ty;
    let convert = quote_spanned! {tool.output.span=>
        let __mcp_probe = #ret_probe::<#ret>::new();
        (&__mcp_probe).__mcp_ret_kind().convert(__mcp_out, __mcp_parts.wrapped)
    };
    let mutability = tool.args().next().map(|_| quote!(mut));
    quote! {
        fn __mcp_handler(
            #mutability __mcp_parts: #call_parts,
        ) -> #box_future<'static, #result<#call_tool_result, #tool_error>> {
            #boxed(async move {
                #[allow(unused_imports)]
                use #option_kind as _;
                #[allow(unused_imports)]
                use #plain_kind as _;
                #[allow(unused_imports)]
                use #result_kind as _;
                #[allow(unused_imports)]
                use #plain_ret_kind as _;
                #takes
                #injects
                let __mcp_out = #call;
                #convert
            })
        }
    }
}
