//! The schema half of a tool: each argument declared into the inputSchema with its constraints,
//! and the return type's outputSchema. Both go through the runtime's autoref probes so the type
//! system, not the spelling of a type, decides what is optional and what a `Result` is.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use super::default_fn;
use crate::attr::{ArgAttrs, Attr, Num};
use crate::docs::Description;
use crate::model::ToolFn;
use crate::paths::Paths;
use crate::tokens::{respan, type_fns};

/// One fn per default, `fn __mcp_default_<i>() -> ArgType { expr }`: the schema and the handler
/// share it, so a default of the wrong type is reported once, at the expression.
///
/// The fn also refuses `default` on an `Option<T>` argument, through the autoref probe that tells
/// `Option<T>` from other types (an alias of `Option` included); that error points at `default`.
pub fn expand_defaults(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let arg_probe = paths.arg_probe();
    let option_kind = paths.option_arg_kind();
    let plain_kind = paths.plain_arg_kind();
    let mut out = TokenStream::new();
    for (i, arg) in tool.indexed_args() {
        let (Some(expr), Some(key)) = (arg.attrs.default.value(), arg.attrs.default.key_span())
        else {
            continue;
        };
        let f = default_fn(i);
        let ty = &arg.ty;
        // The value goes through the argument's kind: a plain type checks it against itself (a
        // mismatch is reported at the expression), `Option<T>` refuses `default` at the key
        // without typing the value, so rustc adds no "wrap it in `Some`" to that one error.
        let default_of = respan(quote!((&__mcp_probe).__mcp_arg_kind().default_of), key);
        let value = quote_spanned!(expr.span()=> || #expr);
        let probe = respan(quote!(&__mcp_probe,), key);
        let mut call = Group::new(Delimiter::Parenthesis, quote!(#probe #value));
        call.set_span(key);
        out.extend(quote! {
            fn #f() -> #ty {
                #[allow(unused_imports)]
                use #option_kind as _;
                #[allow(unused_imports)]
                use #plain_kind as _;
                let __mcp_probe = #arg_probe::<#ty>::new();
                #default_of #call
            }
        });
    }
    out
}

pub fn expand_input(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let input_schema = paths.input_schema();
    let arg_spec = paths.arg_spec();
    let option = paths.option();
    let to_json = paths.to_json();
    let mut decls = TokenStream::new();
    for (i, arg) in tool.indexed_args() {
        let ty = &arg.ty;
        let fns = type_fns(i);
        if arg.attrs.is_flatten() {
            // Its struct's fields are declared; the parameter's own name is only for messages.
            let ident = arg.ident.unraw().to_string();
            decls.extend(quote!((#fns().declare)(__mcp_b, #ident);));
            continue;
        }
        let name = arg.name().value;
        let description = match arg.description() {
            None => quote!(#option::None),
            Some(Description::Text(t)) => quote!(#option::Some(#t)),
            Some(Description::Concat(c)) => quote!(#option::Some(#c)),
        };
        let default = match arg.attrs.default.get() {
            None => quote!(#option::None),
            Some(d) => {
                let f = default_fn(i);
                quote_spanned!(d.span=> #option::Some(#to_json::<#ty>(&#f())))
            }
        };
        let constraints = expand_constraints(&arg.attrs, paths);
        decls.extend(quote! {
            (#fns().declare)(
                __mcp_b,
                #arg_spec {
                    name: #name,
                    description: #description,
                    default: #default,
                    constraints: #constraints,
                },
            );
        });
    }
    quote! {
        fn __mcp_input(__mcp_b: &mut #input_schema) {
            #decls
        }
    }
}

fn expand_constraints(a: &ArgAttrs, paths: &Paths) -> TokenStream {
    let constraints = paths.constraints();
    let option = paths.option();
    let default = paths.default_trait();
    let mut fields = TokenStream::new();
    if let Some(p) = a.pattern.value() {
        fields.extend(quote!(pattern: #option::Some(#p),));
    }
    if let Some(f) = a.format.value() {
        fields.extend(quote!(format: #option::Some(#f),));
    }
    let num = |slot: &Attr<Num>| slot.value().map(|n| expand_num(*n, paths));
    let count = |slot: &Attr<u64>| slot.value().map(|n| quote!(#n));
    for (field, value) in [
        (quote!(minimum), num(&a.minimum)),
        (quote!(maximum), num(&a.maximum)),
        (quote!(exclusive_minimum), num(&a.exclusive_minimum)),
        (quote!(exclusive_maximum), num(&a.exclusive_maximum)),
        (quote!(min_length), count(&a.min_length)),
        (quote!(max_length), count(&a.max_length)),
        (quote!(min_items), count(&a.min_items)),
        (quote!(max_items), count(&a.max_items)),
    ] {
        if let Some(v) = value {
            fields.extend(quote!(#field: #option::Some(#v),));
        }
    }
    if let Some(values) = a.one_of.value() {
        let to_json = paths.to_json();
        let vec = paths.vec();
        let values = values
            .iter()
            .map(|v| quote_spanned!(v.span()=> #to_json(&(#v))));
        fields.extend(quote!(one_of: #option::Some(#vec::from([#(#values),*])),));
    }
    quote!(#constraints { #fields ..#default::default() })
}

fn expand_num(n: Num, paths: &Paths) -> TokenStream {
    let num = paths.num();
    match n {
        Num::Int(i) => quote!(#num::Int(#i)),
        Num::UInt(u) => quote!(#num::UInt(#u)),
        Num::Float(f) => quote!(#num::Float(#f)),
    }
}

pub fn expand_output(paths: &Paths) -> TokenStream {
    let generator = paths.schema_generator();
    let output_schema = paths.output_schema();
    let option = paths.option();
    quote! {
        fn __mcp_output(__mcp_g: &mut #generator) -> #option<#output_schema> {
            (__mcp_ret().output_schema)(__mcp_g)
        }
    }
}
