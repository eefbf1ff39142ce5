//! `?` in a tool returning `Result<T, ToolError>`: each one converts its error through the
//! runtime's probe, so that a `VisibleError` stays visible (`?` alone would take the one blanket
//! `From<E> for ToolError`, which hides every `std::error::Error`). Every other error converts
//! exactly as `?` converts it. Closures, `async` blocks and nested items have their own return
//! types: their `?` is left alone.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, GenericArgument, ItemFn, PathArguments, ReturnType, Type};

/// Rewrites the `?`s of `f`'s body when its return type is `Result<_, ToolError>` as written.
/// `probe` is the path of `__private::ErrProbe`, `kinds` the two probe traits.
pub fn rewrite_question_marks(f: &mut ItemFn, probe: TokenStream, kinds: [TokenStream; 2]) {
    if !returns_tool_error(&f.sig.output) {
        return;
    }
    let mut rewriter = Rewriter { probe, kinds };
    rewriter.visit_block_mut(&mut f.block);
}

/// `Result<T, ToolError>` (any path to either name).
fn returns_tool_error(output: &ReturnType) -> bool {
    let ReturnType::Type(_, ty) = output else {
        return false;
    };
    let Type::Path(p) = &**ty else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    if last.ident != "Result" {
        return false;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    let Some(GenericArgument::Type(Type::Path(err))) = args.args.iter().nth(1) else {
        return false;
    };
    err.path
        .segments
        .last()
        .is_some_and(|s| s.ident == "ToolError" && s.arguments.is_empty())
}

struct Rewriter {
    probe: TokenStream,
    kinds: [TokenStream; 2],
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // Inner `?`s first, so `a()?.b()?` rewrites both.
        visit_mut::visit_expr_mut(self, e);
        let Expr::Try(t) = e else {
            return;
        };
        let span = t.question_token.span();
        let inner = &t.expr;
        let probe = &self.probe;
        let [visible, plain] = &self.kinds;
        let attrs = &t.attrs;
        let rewritten: TokenStream = quote_spanned! {span=>
            #(#attrs)*
            ::core::result::Result::map_err(#inner, |__mcp_e| {
                #[allow(unused_imports)]
                use #visible as _;
                #[allow(unused_imports)]
                use #plain as _;
                // The probe's two references choose the conversion (autoref).
                #[allow(clippy::needless_borrow)]
                let __mcp_convert = (&&#probe::of(&__mcp_e)).__mcp_question();
                __mcp_convert(__mcp_e)
            })?
        };
        if let Ok(new) = syn::parse2::<Expr>(rewritten) {
            *e = new;
        }
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_expr_const_mut(&mut self, _: &mut syn::ExprConst) {}
    fn visit_expr_try_block_mut(&mut self, _: &mut syn::ExprTryBlock) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn rewritten(f: TokenStream) -> String {
        let mut f: ItemFn = syn::parse2(f).unwrap();
        rewrite_question_marks(&mut f, quote!(P), [quote!(V), quote!(K)]);
        quote!(#f).to_string()
    }

    #[test]
    fn only_a_tool_error_results_own_question_marks_are_rewritten() {
        let out = rewritten(quote! {
            fn t() -> Result<u8, mcp_runtime::ToolError> {
                let a = read()?;
                let c = || read2()?;
                let d = async { read3()? };
                fn inner() -> Result<u8, E> { read4()? }
                Ok(a?)
            }
        });
        assert_eq!(out.matches("__mcp_question").count(), 2, "{out}");
        assert!(out.contains("read2 () ?"), "{out}");
        assert!(out.contains("read3 () ?"), "{out}");
        assert!(out.contains("read4 () ?"), "{out}");
        let other = rewritten(quote! {
            fn t() -> Result<u8, DeskError> { Ok(read()?) }
        });
        assert!(!other.contains("__mcp_question"), "{other}");
        let nested = rewritten(quote! {
            fn t() -> Result<u8, ToolError> { Ok(a()?.b()?) }
        });
        assert_eq!(nested.matches("__mcp_question").count(), 2, "{nested}");
    }
}
