//! What `#[tool]` emits when the input has errors: the errors, the user's function, and a stub of
//! the generated items. The function keeps direct calls compiling and the stub keeps `tools![…]`
//! compiling, so the only errors the user reads are the ones about the tool itself. The stub keeps
//! the type contracts, so rustc reports a broken one in the same build as the macro's errors.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Item;

use crate::expand::{expand_registration, expand_type_checks};
use crate::model::ToolFn;

/// The function and a stub `ToolDef` impl beside the errors.
pub fn expand(tool: &ToolFn, error: syn::Error) -> TokenStream {
    let paths = tool.paths();
    let ident = tool.ident();
    let error = error.to_compile_error();
    let original = &tool.original;
    if tool.original.sig.receiver().is_some() {
        // A method: the function sits in an `impl` or a trait, where a struct cannot be declared.
        return quote! {
            #error
            #original
        };
    }
    // A name unique to this function, so broken tools never collide in `tools![…]`.
    let name = quote!(::core::concat!(
        ::core::module_path!(),
        "::",
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
    let registration = expand_registration(
        ident,
        &tool.original.vis,
        &paths,
        name,
        quote! {
            #type_checks
            ::core::unreachable!("the #[tool] input has errors")
        },
    );
    quote! {
        #error
        #original
        #registration
    }
}

/// `#[tool]` on something that is not a function: the error at its keyword, the item unchanged.
pub fn not_a_fn(item: &Item) -> TokenStream {
    let (keyword, what): (TokenStream, &str) = match item {
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
    };
    let error = syn::Error::new_spanned(
        keyword,
        format!("`#[tool]` goes on a `fn` or an `async fn`, not on {what}"),
    )
    .to_compile_error();
    quote! {
        #error
        #item
    }
}
