//! Type contracts left to rustc: calls to the runtime's `assert_*` functions, each spanned at the
//! argument's type so the caret lands on the type the user wrote and the runtime's
//! `on_unimplemented` text explains the fix.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;

use crate::model::ToolFn;
use crate::paths::Paths;

pub fn expand_contracts(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let mut out = TokenStream::new();
    for arg in tool.args() {
        let ty = &arg.ty;
        let span = ty.span();
        let a = &arg.attrs;
        let assert_arg = paths.assert_arg();
        out.extend(quote_spanned!(span=> #assert_arg::<#ty>();));
        if a.pattern.get().is_some() || a.min_length.get().is_some() || a.max_length.get().is_some()
        {
            let f = paths.assert_str_arg();
            out.extend(quote_spanned!(span=> #f::<#ty>();));
        }
        if a.min_items.get().is_some() || a.max_items.get().is_some() {
            let f = paths.assert_items_arg();
            out.extend(quote_spanned!(span=> #f::<#ty>();));
        }
        if a.num_bounds().iter().any(|b| b.get().is_some()) {
            let f = paths.assert_num_arg();
            out.extend(quote_spanned!(span=> #f::<#ty>();));
        }
    }
    out
}
