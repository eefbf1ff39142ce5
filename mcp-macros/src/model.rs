//! Our model of one `#[tool]` function, built from syn and read by the checks and the code
//! generator. Every piece keeps its span so later stages can point at the user's source.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::attr::{ArgAttrs, Sp, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::docs::{Description, Docs};
use crate::paths::Paths;

/// A function under `#[tool]`.
pub struct ToolFn {
    /// The function as re-emitted: `#[arg]` and doc attributes removed from its parameters.
    pub original: ItemFn,
    /// The keys of `#[tool(...)]`.
    pub attrs: ToolAttrs,
    /// The function's doc comment.
    pub docs: Docs,
    /// The parameters in signature order; malformed ones are reported and left out.
    pub params: Vec<Param>,
    /// What the function returns.
    pub output: ToolOutput,
}

/// One parameter: a published argument or an injected borrow.
// A few per function, built once per expansion: boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Param {
    Arg(ToolArg),
    Inject(Injected),
}

/// A parameter published in the inputSchema.
pub struct ToolArg {
    /// The binding in the signature; its unraw text is the published name unless renamed.
    pub ident: Ident,
    /// The type as written, spans included.
    pub ty: Type,
    /// The keys of its `#[arg(...)]` attributes.
    pub attrs: ArgAttrs,
    /// Its doc comment.
    pub docs: Docs,
}

/// A `&T` parameter: server state or the context, borrowed for the call.
pub struct Injected {
    /// `T`, as written.
    pub ty: Type,
}

/// The return type, `()` when the signature has none.
pub struct ToolOutput {
    /// The type, spanned at the user's return type (or at the signature when there is none).
    pub ty: TokenStream,
    /// Where trait-bound errors on the return type should point.
    pub span: Span,
    /// False for `impl Trait`, which the generated code cannot name (already an error).
    pub nameable: bool,
}

impl ToolFn {
    pub fn from_syn(cx: &Ctxt, attr: TokenStream, mut original: ItemFn) -> ToolFn {
        let attrs = ToolAttrs::from_tokens(cx, attr);
        let docs = Docs::from_attrs(&original.attrs);
        let mut params = Vec::new();
        for input in original.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => cx.error_spanned_by(
                    r.self_token,
                    "a tool cannot take `self`: write a free function and borrow state with a `&T` parameter",
                ),
                FnArg::Typed(pt) => {
                    let mut arg_attrs = ArgAttrs::new();
                    let mut kept = Vec::new();
                    let mut doc_attrs = Vec::new();
                    for a in std::mem::take(&mut pt.attrs) {
                        if a.path().is_ident("arg") {
                            arg_attrs.add(cx, &a);
                        } else if a.path().is_ident("doc") {
                            doc_attrs.push(a);
                        } else {
                            kept.push(a);
                        }
                    }
                    pt.attrs = kept;
                    let docs = Docs::from_attrs(&doc_attrs);
                    if let Some(p) = Param::from_syn(cx, &pt.pat, &pt.ty, arg_attrs, docs) {
                        params.push(p);
                    }
                }
            }
        }
        let output = match &original.sig.output {
            ReturnType::Default => ToolOutput {
                ty: quote!(()),
                span: original.sig.ident.span(),
                nameable: true,
            },
            ReturnType::Type(_, ty) => {
                if let Type::ImplTrait(t) = &**ty {
                    cx.error_spanned_by(
                        t,
                        "a tool cannot return `impl Trait`: name the return type so its output schema can be published",
                    );
                }
                ToolOutput {
                    ty: ty.to_token_stream(),
                    span: ty.span(),
                    nameable: !matches!(**ty, Type::ImplTrait(_)),
                }
            }
        };
        ToolFn {
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

    pub fn is_async(&self) -> bool {
        self.original.sig.asyncness.is_some()
    }

    /// The published name: `name = "…"`, else the function's name.
    pub fn name(&self) -> Sp<String> {
        match self.attrs.name.get() {
            Some(n) => n.clone(),
            None => Sp::new(self.ident().unraw().to_string(), self.ident().span()),
        }
    }

    /// `description = "…"`, else the doc comment.
    pub fn description(&self) -> Option<Description> {
        match self.attrs.description.value() {
            Some(d) => Some(Description::Text(d.clone())),
            None => self.docs.description(),
        }
    }

    pub fn paths(&self) -> Paths {
        match self.attrs.krate.value() {
            Some(root) => Paths::with_root(root),
            None => Paths::default(),
        }
    }

    pub fn args(&self) -> impl Iterator<Item = &ToolArg> {
        self.params.iter().filter_map(|p| match p {
            Param::Arg(a) => Some(a),
            Param::Inject(_) => None,
        })
    }
}

impl Param {
    fn from_syn(cx: &Ctxt, pat: &Pat, ty: &Type, attrs: ArgAttrs, docs: Docs) -> Option<Param> {
        let destructuring = |cx: &Ctxt| {
            cx.error_spanned_by(
                pat,
                "destructuring patterns are not supported in tool parameters: bind a name (`point: Point`) and destructure in the body",
            );
        };
        match ty {
            Type::Reference(r) => {
                let mut ok = true;
                if let Some(m) = &r.mutability {
                    let and = &r.and_token;
                    cx.error_spanned_by(
                        quote!(#and #m),
                        "a tool cannot take `&mut`: calls may run concurrently, so state is shared; take `&T` and mutate through a `Mutex` or an atomic",
                    );
                    ok = false;
                } else if is_str(&r.elem) {
                    cx.error_spanned_by(
                        r,
                        "`&str` cannot be a tool argument: use `String` (a `&T` parameter borrows server state or the context)",
                    );
                    ok = false;
                } else if let Type::Slice(s) = &*r.elem {
                    let elem = &s.elem;
                    cx.error_spanned_by(
                        r,
                        format!(
                            "`&[{}]` cannot be a tool argument: use `Vec<{}>` (a `&T` parameter borrows server state or the context)",
                            elem.to_token_stream(),
                            elem.to_token_stream()
                        ),
                    );
                    ok = false;
                }
                if let Some(attr) = &attrs.first {
                    cx.error_spanned_by(
                        attr,
                        "`#[arg]` applies to tool arguments, but a `&T` parameter is injected (server state or the context) and is not published",
                    );
                    ok = false;
                }
                match pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {}
                    Pat::Wild(_) => {}
                    _ => {
                        destructuring(cx);
                        ok = false;
                    }
                }
                ok.then(|| {
                    Param::Inject(Injected {
                        ty: (*r.elem).clone(),
                    })
                })
            }
            Type::ImplTrait(t) => {
                cx.error_spanned_by(
                    t,
                    "a tool argument cannot be `impl Trait`: name the type so it can be published in the input schema",
                );
                None
            }
            _ => match pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    Some(Param::Arg(ToolArg {
                        ident: p.ident.clone(),
                        ty: ty.clone(),
                        attrs,
                        docs,
                    }))
                }
                Pat::Wild(w) => {
                    cx.error_spanned_by(
                        w,
                        "a tool argument needs a name to be published: replace `_` with a name",
                    );
                    None
                }
                _ => {
                    destructuring(cx);
                    None
                }
            },
        }
    }
}

/// `str`, written as such.
fn is_str(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.qself.is_none() && p.path.is_ident("str"),
        Type::Paren(p) => is_str(&p.elem),
        _ => false,
    }
}

impl ToolArg {
    /// The published name: `rename = "…"`, else the binding's name.
    pub fn name(&self) -> Sp<String> {
        match self.attrs.rename.get() {
            Some(n) => n.clone(),
            None => Sp::new(self.ident.unraw().to_string(), self.ident.span()),
        }
    }

    /// `description = "…"`, else the parameter's doc comment.
    pub fn description(&self) -> Option<Description> {
        match self.attrs.description.value() {
            Some(d) => Some(Description::Text(d.clone())),
            None => self.docs.description(),
        }
    }
}
