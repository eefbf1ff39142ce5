//! What `#[tool]` and `#[toolbox]` emit when the input has errors: the errors, the user's function, and a stub of
//! the generated items. The function keeps direct calls compiling and the stub keeps `tools![…]`
//! compiling, so the only errors the user reads are the ones about the tool itself. The stub keeps
//! the type contracts, so rustc reports a broken one in the same build as the macro's errors.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Item;

use crate::expand::{expand_registration, expand_single_set, expand_type_checks};
use crate::model::ToolFn;
use crate::toolbox::Toolbox;

/// The function and a stub `ToolDef` and `ToolSet` beside the errors.
pub fn expand(tool: &ToolFn, error: syn::Error) -> TokenStream {
    let original = &tool.original;
    if tool.original.sig.receiver().is_some() {
        // A method outside `#[toolbox]`: it sits in an `impl` or a trait, where a struct cannot be
        // declared.
        let error = error.to_compile_error();
        return quote! {
            #error
            #original
        };
    }
    let def = expand_def(tool, error);
    let set = expand_single_set(&tool.def_ident(), &tool.paths());
    quote! {
        #original
        #def
        #set
    }
}

/// The errors and a stub of the tool's `ToolDef` struct: beside a free function, or among the
/// items of a `#[toolbox]` whose method has errors.
pub fn expand_def(tool: &ToolFn, error: syn::Error) -> TokenStream {
    let paths = tool.paths();
    let ident = tool.ident();
    let error = error.to_compile_error();
    // A name unique to this function, so broken tools never collide in `tools![…]`.
    let owner = tool.owner.as_ref().map(|o| {
        let ty = &o.self_ty;
        quote!(::core::stringify!(#ty), "::",)
    });
    let name = quote!(::core::concat!(
        ::core::module_path!(),
        "::",
        #owner
        ::core::stringify!(#ident)
    ));
    // The type contracts too, so rustc's errors come in the same build as ours; not for a generic
    // function (nested items cannot name its parameters) or an `impl Trait` return type.
    let type_checks = if tool.original.sig.generics.params.is_empty() && tool.output.nameable {
        let checks = expand_type_checks(tool);
        quote! {
            #[allow(dead_code)]
            const _: () = { #checks };
        }
    } else {
        TokenStream::new()
    };
    let vis = tool.def_vis();
    let registration = expand_registration(
        &tool.def_ident(),
        &vis,
        &paths,
        name,
        quote! {
            #type_checks
            ::core::unreachable!("the #[tool] input has errors")
        },
    );
    quote! {
        #error
        #registration
    }
}

/// A `#[toolbox]` block that breaks the block's own rules: the errors (its methods' too), the
/// block, and a `ToolSet` stub with the block's generics, so that `tools![…]` still compiles.
pub fn expand_toolbox(toolbox: &Toolbox, error: syn::Error) -> TokenStream {
    let mut errors = error.to_compile_error();
    for (_, result) in &toolbox.tools {
        if let Err(e) = result {
            errors.extend(e.to_compile_error());
        }
    }
    let paths = toolbox.paths();
    let tool_set = paths.tool_set();
    let tool_spec = paths.tool_spec();
    let vec = paths.vec();
    let original = &toolbox.original;
    let ty = &original.self_ty;
    let (impl_generics, _, where_clause) = original.generics.split_for_impl();
    quote! {
        #errors
        #original
        #[automatically_derived]
        impl #impl_generics #tool_set for #ty #where_clause {
            const NAMES: &'static [&'static str] = &[];
            fn specs() -> #vec<#tool_spec> {
                ::core::unreachable!("the #[toolbox] input has errors")
            }
        }
    }
}

/// `#[toolbox]` on something that is not an impl block: the error, the item unchanged.
pub fn not_an_impl(item: &Item) -> TokenStream {
    let error = syn::Error::new_spanned(
        item_keyword(item).0,
        "`#[toolbox]` goes on an `impl` block: `#[toolbox] impl MyState { ... }`",
    )
    .to_compile_error();
    quote! {
        #error
        #item
    }
}

/// `#[tool]` on something that is not a function: the error at its keyword, the item unchanged.
pub fn not_a_fn(item: &Item) -> TokenStream {
    not_a_fn_for("#[tool]", item)
}

/// `attr` on something that is not a function.
pub fn not_a_fn_for(attr: &str, item: &Item) -> TokenStream {
    let (keyword, what) = item_keyword(item);
    let error = syn::Error::new_spanned(
        keyword,
        format!("`{attr}` goes on a `fn` or an `async fn`, not on {what}"),
    )
    .to_compile_error();
    quote! {
        #error
        #item
    }
}

/// The keyword an item starts with, and what to call the item in a message.
fn item_keyword(item: &Item) -> (TokenStream, &'static str) {
    match item {
        Item::Fn(i) => (i.sig.fn_token.to_token_stream(), "a function"),
        Item::Struct(i) => (i.struct_token.to_token_stream(), "a struct"),
        Item::Enum(i) => (i.enum_token.to_token_stream(), "an enum"),
        Item::Const(i) => (i.const_token.to_token_stream(), "a const"),
        Item::Static(i) => (i.static_token.to_token_stream(), "a static"),
        Item::Mod(i) => (i.mod_token.to_token_stream(), "a module"),
        Item::Impl(i) => (i.impl_token.to_token_stream(), "an impl block"),
        Item::Trait(i) => (i.trait_token.to_token_stream(), "a trait"),
        Item::Type(i) => (i.type_token.to_token_stream(), "a type alias"),
        Item::Union(i) => (i.union_token.to_token_stream(), "a union"),
        Item::Use(i) => (i.use_token.to_token_stream(), "a `use` item"),
        other => (other.to_token_stream(), "this item"),
    }
}
