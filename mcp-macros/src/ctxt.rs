//! Collects every error found in one macro input, so the user sees all of them from one build.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// The error collector threaded through parsing and checking as `cx: &Ctxt`.
///
/// Errors are combined once, by [`Ctxt::check`]; dropping a `Ctxt` without checking it is a bug in
/// this crate, caught by the `Drop` impl in debug builds.
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// An error spanned at the tokens of `obj`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, obj: T, msg: M) {
        self.push(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Reports an error at `obj` and yields nothing: the value of a key that cannot be read.
    pub fn refuse<T, O: ToTokens, M: Display>(&self, obj: O, msg: M) -> Option<T> {
        self.error_spanned_by(obj, msg);
        None
    }

    /// An error underlining everything from `start` to `end`.
    pub fn error_range<M: Display>(&self, start: Span, end: Span, msg: M) {
        // `new_spanned` underlines from its first token to its last: two placeholder idents.
        let (start, end) = (
            proc_macro2::Ident::new("start", start),
            proc_macro2::Ident::new("end", end),
        );
        self.push(syn::Error::new_spanned(quote::quote!(#start #end), msg));
    }

    /// An error at one span.
    pub fn error_at<M: Display>(&self, span: Span, msg: M) {
        self.push(syn::Error::new(span, msg));
    }

    /// An error at `obj` plus a second message at `earlier`, the closest stable Rust offers to a
    /// note: proc macros on stable cannot attach a child diagnostic.
    pub fn error_with_note<M: Display, N: Display>(
        &self,
        span: Span,
        msg: M,
        earlier: Span,
        note: N,
    ) {
        let mut e = syn::Error::new(span, msg);
        e.combine(syn::Error::new(earlier, note));
        self.push(e);
    }

    /// A parse error from syn.
    pub fn syn_error(&self, err: syn::Error) {
        self.push(err);
    }

    fn push(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(err);
    }

    /// All errors as one, or `Ok` when there were none.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        let mut iter = errors.into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for e in iter {
            first.combine(e);
        }
        Err(first)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            debug_assert!(false, "Ctxt dropped without check()");
        }
    }
}
