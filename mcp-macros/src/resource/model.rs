//! Our model of one `#[resource]` function, built from syn; every piece keeps its span.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::attr::ResourceAttrs;
use crate::ctxt::Ctxt;
use crate::docs::{Description, Docs};
use crate::paths::Paths;

/// A function under `#[resource]`.
pub struct ResourceFn {
    /// The function as re-emitted.
    pub original: ItemFn,
    /// The keys of `#[resource(...)]`.
    pub attrs: ResourceAttrs,
    /// The function's doc comment.
    pub docs: Docs,
    /// The parameters in signature order; malformed ones are reported and left out.
    pub params: Vec<Param>,
    /// The return type (`()` when there is none), and where its contract errors point.
    pub output: (TokenStream, Span),
}

/// One parameter: a template variable, or an injected `&T` (state or the context).
pub enum Param {
    Var { ident: Ident, ty: Type },
    Inject { ty: Type },
}

impl ResourceFn {
    pub fn from_syn(cx: &Ctxt, attr: TokenStream, original: ItemFn) -> ResourceFn {
        let attrs = ResourceAttrs::from_tokens(cx, attr);
        let docs = Docs::from_attrs(&original.attrs);
        let mut params = Vec::new();
        for input in &original.sig.inputs {
            match input {
                FnArg::Receiver(r) => cx.error_spanned_by(
                    r.self_token,
                    "a resource cannot take `self`: write a free function and borrow state with a `&T` parameter",
                ),
                FnArg::Typed(pt) => match (&*pt.pat, &*pt.ty) {
                    (_, Type::Reference(r)) => {
                        if let Some(m) = r.mutability {
                            cx.error_spanned_by(m, "a resource borrows state as `&T`, not `&mut T`: put the mutable part behind a `Mutex`");
                        }
                        params.push(Param::Inject {
                            ty: (*r.elem).clone(),
                        });
                    }
                    (Pat::Ident(p), ty) if p.by_ref.is_none() && p.subpat.is_none() => {
                        params.push(Param::Var {
                            ident: p.ident.clone(),
                            ty: ty.clone(),
                        })
                    }
                    (pat, _) => cx.error_spanned_by(
                        pat,
                        "a template variable is a plain parameter name, such as `title: String`",
                    ),
                },
            }
        }
        if !original.sig.generics.params.is_empty() {
            cx.error_spanned_by(
                &original.sig.generics,
                "a resource cannot be generic: its variables and state have concrete types",
            );
        }
        let output = match &original.sig.output {
            ReturnType::Default => (quote!(()), original.sig.ident.span()),
            ReturnType::Type(_, ty) => {
                if let Type::ImplTrait(t) = &**ty {
                    cx.error_spanned_by(t, "a resource cannot return `impl Trait`: name the type");
                }
                (ty.to_token_stream(), ty.span())
            }
        };
        ResourceFn {
            original,
            attrs,
            docs,
            params,
            output,
        }
    }

    pub fn ident(&self) -> &Ident {
        &self.original.sig.ident
    }

    /// The published name: `name = "…"`, else the function's name.
    pub fn name(&self) -> String {
        match self.attrs.name.value() {
            Some(n) => n.clone(),
            None => self.ident().unraw().to_string(),
        }
    }

    /// The URI as written (empty when missing: already reported).
    pub fn uri(&self) -> &str {
        self.attrs.uri.value().map_or("", String::as_str)
    }

    /// The description: `description = "…"` beats the doc comment.
    pub fn description(&self) -> Option<Description> {
        match self.attrs.description.value() {
            Some(d) => Some(Description::Text(d.clone())),
            None => self.docs.description(),
        }
    }

    /// The template variables among the parameters, with their positions.
    pub fn vars(&self) -> impl Iterator<Item = (usize, &Ident, &Type)> {
        self.params.iter().enumerate().filter_map(|(i, p)| match p {
            Param::Var { ident, ty } => Some((i, ident, ty)),
            Param::Inject { .. } => None,
        })
    }

    pub fn paths(&self) -> Paths {
        match self.attrs.krate.value() {
            Some(root) => Paths::with_root(root),
            None => Paths::default(),
        }
    }
}
