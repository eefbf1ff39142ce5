//! `#[toolbox]`: the impl block with its methods cleaned of our attributes, then, in an anonymous
//! constant beside it, one `ToolDef` struct per `#[tool]` method and the type's `ToolSet`, which
//! `tools![…]` lists by the type's path.

use proc_macro2::TokenStream;
use quote::quote;

use super::expand_def;
use crate::fallback;
use crate::toolbox::Toolbox;

/// The expansion of a `#[toolbox]` block whose own rules hold; a method with errors gets the
/// fallback's stub, so the other methods and the `ToolSet` still compile.
pub fn expand_toolbox(toolbox: &Toolbox) -> TokenStream {
    let defs = toolbox.tools.iter().map(|(tool, result)| match result {
        Ok(()) => expand_def(tool),
        Err(e) => fallback::expand_def(tool, e.clone()),
    });
    let set = expand_set(toolbox);
    let original = &toolbox.original;
    quote! {
        #original
        const _: () = {
            #(#defs)*
            #set
        };
    }
}

/// `impl ToolSet for Type`: the methods' names and specs, in order.
fn expand_set(toolbox: &Toolbox) -> TokenStream {
    let paths = toolbox.paths();
    let tool_set = paths.tool_set();
    let tool_def = paths.tool_def();
    let tool_spec = paths.tool_spec();
    let vec = paths.vec();
    let ty = &toolbox.original.self_ty;
    let defs: Vec<_> = toolbox.tools.iter().map(|(t, _)| t.def_ident()).collect();
    quote! {
        #[automatically_derived]
        impl #tool_set for #ty {
            const NAMES: &'static [&'static str] = &[#(#defs::__MCP_NAME),*];
            fn specs() -> #vec<#tool_spec> {
                #vec::from([#(<#defs as #tool_def>::spec()),*])
            }
        }
    }
}
