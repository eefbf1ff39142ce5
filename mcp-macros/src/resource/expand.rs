//! Code generation for `#[resource]`: the function unchanged, then a struct of the same name
//! whose `ResourceDef::spec()` holds the checked type operations, the handler and the spec, and
//! its `ResourceSet` (what `resources![…]` lists). Reads only the model.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use super::model::{Param, ResourceFn};
use crate::docs::Description;
use crate::expand::{ListKind, expand_bundle_fn, expand_state_fn};
use crate::paths::Paths;
use crate::tokens::{binding, respan, type_fns};

/// `resources![…]`.
pub const RESOURCES: ListKind = ListKind {
    macro_name: "resources",
    entries: "`#[resource]` function: `resources![readme, note]`",
    set: Paths::resource_set,
    table: Paths::resource_table,
    keys: "URIS",
    duplicate: |a, b| {
        (
            format!("`{a}` and `{b}` both publish the URI `"),
            "`; give one of the two resources another `uri`".to_owned(),
        )
    },
};

/// The expansion of a `#[resource]` function that passed every check.
pub fn expand(res: &ResourceFn) -> TokenStream {
    let paths = res.paths();
    let original = &res.original;
    let ident = res.ident();
    let uri = res.uri();
    let resource_def = paths.resource_def();
    let resource_spec = paths.resource_spec();
    let contracts = expand_contracts(res, &paths);
    let state = expand_state(res, &paths);
    let complete = expand_complete(res, &paths);
    let handler = expand_handler(res, &paths);
    let spec = expand_spec(res, &paths);
    let set = expand_set(res, &paths);
    let def = expand_struct(res);
    quote! {
        #original
        #def

        #[automatically_derived]
        impl #ident {
            #[doc(hidden)]
            pub const __MCP_URI: &'static str = #uri;
        }

        #[automatically_derived]
        impl #resource_def for #ident {
            fn spec() -> #resource_spec {
                #contracts
                #state
                #complete
                #handler
                #spec
            }
        }

        #set
    }
}

/// With errors: the function, and the struct with an empty `ResourceSet` so that `resources![…]`
/// naming it still compiles and only the real errors are reported.
pub fn fallback(res: &ResourceFn, error: syn::Error) -> TokenStream {
    let paths = res.paths();
    let (original, ident) = (&res.original, res.ident());
    let (resource_set, resource_spec, vec) =
        (paths.resource_set(), paths.resource_spec(), paths.vec());
    let error = error.to_compile_error();
    let def = expand_struct(res);
    quote! {
        #error
        #original
        #def
        #[automatically_derived]
        impl #resource_set for #ident {
            const URIS: &'static [&'static str] = &[];
            fn specs() -> #vec<#resource_spec> {
                #vec::new()
            }
        }
    }
}

/// The struct named after the function, which `resources![…]` lists.
fn expand_struct(res: &ResourceFn) -> TokenStream {
    let (vis, ident) = (&res.original.vis, res.ident());
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #ident {}
    }
}

/// One checked bundle per parameter type (a variable must be string-like, a borrow
/// `Send + Sync + 'static`) and one for the return type, each spanned at the type as written.
fn expand_contracts(res: &ResourceFn, paths: &Paths) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, p) in res.params.iter().enumerate() {
        let f = type_fns(i);
        out.extend(match p {
            Param::Var { ty, .. } => expand_bundle_fn(&f, ty, paths.var_fns(), paths.var_fns_of()),
            Param::Inject { ty } => {
                expand_bundle_fn(&f, ty, paths.inject_fns(), paths.inject_fns_of())
            }
        });
    }
    let (ret, span) = &res.output;
    let (res_ret_fns, probe) = (paths.res_ret_fns(), paths.ret_probe());
    let kinds = [
        paths.result_res_kind(),
        paths.direct_res_kind(),
        paths.json_res_kind(),
        paths.visible_err_kind(),
        paths.plain_err_kind(),
    ];
    let body = quote_spanned! {*span=>
        let __mcp_probe = #probe::<#ret>::new();
        let __mcp_kind = (&&__mcp_probe).__mcp_res_kind();
        // A `Result`'s `Ok` type goes through the same autoref: text or JSON; its error type
        // through its own: a `VisibleError` is shown.
        let __mcp_ok = __mcp_kind.ok(&__mcp_probe);
        let __mcp_err = __mcp_kind.err(&__mcp_probe);
        __mcp_kind.fns(
            &__mcp_probe,
            (&&__mcp_ok).__mcp_res_kind(),
            (&&__mcp_err).__mcp_err_kind(),
        )
    };
    out.extend(quote! {
        fn __mcp_ret() -> #res_ret_fns<#ret> {
            #(#[allow(unused_imports)] use #kinds as _;)*
            #body
        }
    });
    out
}

fn expand_state(res: &ResourceFn, paths: &Paths) -> TokenStream {
    let injected = res.params.iter().map(|p| matches!(p, Param::Inject { .. }));
    expand_state_fn(injected, paths)
}

/// Each variable completes from its `complete(var = f)` function (a completion fn, as for a
/// prompt argument: `fn(&CompleteRequest) -> Vec<String>` or async), else from its type's fixed
/// values (an enum's variants) that start with what was typed, else not at all.
fn expand_complete(res: &ResourceFn, paths: &Paths) -> TokenStream {
    let (option, vec, complete_with) = (paths.option(), paths.vec(), paths.complete_with());
    let (request, box_future, result) =
        (paths.complete_request(), paths.box_future(), paths.result());
    let (tool_error, fixed) = (paths.tool_error(), paths.fixed_candidates());
    let arms = res.vars().map(|(i, ident, _)| {
        let name = ident.unraw().to_string();
        let given = res.attrs.complete.iter().find(|(v, _)| v.unraw() == name);
        let f = type_fns(i);
        match given {
            Some((_, path)) => {
                let call = respan(quote!(#complete_with(#path, __mcp_request)), path.span());
                quote!(#name => #option::Some(#call),)
            }
            None => quote!(#name => #fixed((#f().candidates)(), &__mcp_request),),
        }
    });
    quote! {
        fn __mcp_complete(
            __mcp_request: #request,
        ) -> #option<#box_future<'static, #result<#vec<::std::string::String>, #tool_error>>> {
            let __mcp_argument = ::std::string::ToString::to_string(__mcp_request.argument());
            match __mcp_argument.as_str() {
                #(#arms)*
                _ => #option::None,
            }
        }
    }
}

fn expand_handler(res: &ResourceFn, paths: &Paths) -> TokenStream {
    let (call_parts, box_future) = (paths.call_parts(), paths.box_future());
    let (result, tool_error, contents) = (
        paths.result(),
        paths.tool_error(),
        paths.resource_contents(),
    );
    let vec = paths.vec();
    // The variables are taken out of the parts first (a `&mut` borrow each), then the borrows of
    // state and context, which last until the call: any parameter order works.
    let (mut takes, mut gets) = (TokenStream::new(), TokenStream::new());
    let mut bindings = Vec::new();
    for (i, p) in res.params.iter().enumerate() {
        let (var, f) = (binding(i), type_fns(i));
        match p {
            Param::Var { ident, ty } => {
                let name = ident.unraw().to_string();
                takes.extend(quote!(let #var: #ty = (#f().take)(&mut __mcp_parts, #name)?;));
            }
            Param::Inject { .. } => gets.extend(quote!(let #var = (#f().get)(&__mcp_parts)?;)),
        }
        bindings.push(var);
    }
    takes.extend(gets);
    let ident = res.ident();
    let call = match res.original.sig.asyncness {
        Some(_) => quote!(#ident(#(#bindings),*).await),
        None => quote!(#ident(#(#bindings),*)),
    };
    quote! {
        fn __mcp_handler(
            #[allow(unused_mut)] mut __mcp_parts: #call_parts,
        ) -> #box_future<'static, #result<#vec<#contents>, #tool_error>> {
            ::std::boxed::Box::pin(async move {
                #takes
                (__mcp_ret().convert)(#call)
            })
        }
    }
}

fn expand_spec(res: &ResourceFn, paths: &Paths) -> TokenStream {
    let (resource_spec, annotations, option) = (
        paths.resource_spec(),
        paths.resource_annotations(),
        paths.option(),
    );
    let opt = |v: Option<TokenStream>| match v {
        Some(v) => quote!(#option::Some(#v)),
        None => quote!(#option::None),
    };
    let a = &res.attrs;
    let uri = res.uri();
    let name = res.name();
    let title = opt(a.title.value().map(|t| quote!(#t)));
    let description = opt(res.description().map(|d| match d {
        Description::Text(t) => quote!(#t),
        Description::Concat(c) => c,
    }));
    let mime_type = opt(a.mime_type.value().map(|m| quote!(#m)));
    let size = opt(a.size.value().map(|s| quote!(#s)));
    let audience = a.audience.value().cloned().unwrap_or_default();
    let priority = opt(a.priority.value().map(|p| quote!(#p)));
    let last_modified = opt(a.last_modified.value().map(|t| quote!(#t)));
    let scopes = a.scopes.value().cloned().unwrap_or_default();
    quote! {
        #resource_spec {
            uri: #uri,
            name: #name,
            title: #title,
            description: #description,
            mime_type: #mime_type,
            size: #size,
            annotations: #annotations {
                audience: &[#(#audience),*],
                priority: #priority,
                last_modified: #last_modified,
            },
            state: __mcp_state,
            complete: __mcp_complete,
            handler: __mcp_handler,
            scopes: &[#(#scopes),*],
        }
    }
}

fn expand_set(res: &ResourceFn, paths: &Paths) -> TokenStream {
    let ident = res.ident();
    let (resource_set, resource_def) = (paths.resource_set(), paths.resource_def());
    let (resource_spec, vec) = (paths.resource_spec(), paths.vec());
    quote! {
        #[automatically_derived]
        impl #resource_set for #ident {
            const URIS: &'static [&'static str] = &[#ident::__MCP_URI];
            fn specs() -> #vec<#resource_spec> {
                #vec::from([<#ident as #resource_def>::spec()])
            }
        }
    }
}
