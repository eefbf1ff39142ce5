//! Token helpers every stage uses (the model, the checks, the expansions): spans moved onto
//! the user's tokens, the generated names of a parameter's locals, a type as the user wrote it.

use proc_macro2::TokenStream;
use quote::ToTokens;

/// `tokens` with every span set to `span`, paths interpolated from `Paths` included: rustc reports
/// a call's unmet bound at the whole call, which only lands on the user's token when all of the
/// call's tokens carry its span.
pub fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// The local that holds the `i`th parameter in the handler.
pub fn binding(i: usize) -> syn::Ident {
    quote::format_ident!("__mcp_arg_{}", i)
}

/// The generated fn returning the checked operations on the `i`th parameter's type.
pub fn type_fns(i: usize) -> syn::Ident {
    quote::format_ident!("__mcp_type_{}", i)
}

/// A type as the user wrote it, for messages: `Option<u8>`, not `Option < u8 >`.
pub fn type_text(ty: &syn::Type) -> String {
    let mut s = ty.to_token_stream().to_string();
    for (from, to) in [
        (" < ", "<"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        (" :: ", "::"),
        (":: ", "::"),
        (" ,", ","),
        ("& ", "&"),
        ("[ ", "["),
        (" ]", "]"),
        ("( ", "("),
        (" )", ")"),
        (" ;", ";"),
    ] {
        s = s.replace(from, to);
    }
    s
}
