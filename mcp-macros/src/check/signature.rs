//! A tool is a plain function the generated handler can call: no qualifiers, no generics.

use syn::{Generics, Signature};

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
    check_generics(
        cx,
        &sig.generics,
        "a tool cannot be generic: its schema is published for concrete types; use concrete types (borrowed state `&T` needs no lifetime parameter)",
        "a tool cannot have a `where` clause: use concrete types",
    );
}

/// No generic parameters and no `where` clause: `generic` is the error at the parameters,
/// `where_clause` the one at `where` (reported only without parameters, which explain it).
pub(crate) fn check_generics(cx: &Ctxt, generics: &Generics, generic: &str, where_clause: &str) {
    if !generics.params.is_empty() {
        cx.error_spanned_by(generics, generic);
    } else if let Some(w) = &generics.where_clause {
        cx.error_spanned_by(w.where_token, where_clause);
    }
}
