//! A tool is a plain function the generated handler can call: no qualifiers, no generics.

use syn::Signature;

use crate::ctxt::Ctxt;

/// A tool is a plain function the generated handler calls by name with owned arguments: no
/// generics (nothing would choose them), and no `const`, `unsafe` or `extern` qualifier (the
/// handler cannot uphold an `unsafe` contract it does not know, and an ABI changes nothing here).
pub(super) fn check_signature(cx: &Ctxt, sig: &Signature) {
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "a tool cannot be a `const fn`: remove `const`");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        cx.error_spanned_by(
            u,
            "a tool cannot be an `unsafe fn`: the generated handler has no way to uphold its safety contract; make the function safe and keep the `unsafe` block inside",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "a tool cannot declare an ABI: remove `extern`");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "a tool cannot be variadic");
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its schema is published for concrete types; use concrete types (borrowed state `&T` needs no lifetime parameter)",
        );
    } else if let Some(w) = &sig.generics.where_clause {
        cx.error_spanned_by(
            w.where_token,
            "a tool cannot have a `where` clause: use concrete types",
        );
    }
}
