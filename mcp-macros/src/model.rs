//! Our model of one `#[tool]` function, built from syn and read by the checks and the code
//! generator. Every piece keeps its span so later stages can point at the user's source.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::attr::{ArgAttrs, RenameRule, Sp, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::docs::{Description, Docs};
use crate::paths::Paths;

pub use crate::kind::Kind;

/// A function under `#[tool]` (or `#[prompt]`: see `kind`).
pub struct ToolFn {
    /// Which attribute the function is under.
    pub kind: Kind,
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
    /// The `#[toolbox]` impl block the function is a method of, if any.
    pub owner: Option<Owner>,
}

/// What a `#[tool]` method takes from its `#[toolbox]` impl block.
#[derive(Clone)]
pub struct Owner {
    /// The impl's self type: the state `&self` borrows, and the type the method is called on.
    pub self_ty: Type,
    /// `#[toolbox(rename_all = "…")]`, for tools that do not set their own.
    pub rename_all: Option<RenameRule>,
    /// `#[toolbox(scopes = […])]`, for tools that do not set their own.
    pub scopes: Option<Vec<String>>,
    /// `#[toolbox(crate = …)]`, for tools that do not set their own.
    pub krate: Option<TokenStream>,
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
    /// The tool's `rename_all` (else its impl block's), applied unless the argument is renamed.
    pub rename_all: Option<RenameRule>,
}

/// A `&T` parameter (server state or the context, borrowed for the call), or a method's receiver.
pub struct Injected {
    /// `T`, as written (`Self` resolved to the impl's type).
    pub ty: Type,
    /// A receiver taken by value (`self: Arc<Self>`, then `ty` is `Arc<…>`) rather than borrowed.
    pub by_value: bool,
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
    /// The published arguments, each with its position among all the parameters (the index the
    /// generated names use).
    pub fn indexed_args(&self) -> impl Iterator<Item = (usize, &ToolArg)> {
        self.params.iter().enumerate().filter_map(|(i, p)| match p {
            Param::Arg(arg) => Some((i, arg)),
            Param::Inject(_) => None,
        })
    }

    pub fn from_syn(
        cx: &Ctxt,
        attr: TokenStream,
        original: ItemFn,
        owner: Option<&Owner>,
    ) -> ToolFn {
        let attrs = ToolAttrs::from_tokens(cx, attr);
        Self::from_attrs(cx, Kind::Tool, attrs, original, owner)
    }

    /// A function under `#[prompt]`.
    pub fn prompt_from_syn(cx: &Ctxt, attr: TokenStream, original: ItemFn) -> ToolFn {
        let attrs = ToolAttrs::for_prompt(cx, attr);
        Self::from_attrs(cx, Kind::Prompt, attrs, original, None)
    }

    fn from_attrs(
        cx: &Ctxt,
        kind: Kind,
        attrs: ToolAttrs,
        mut original: ItemFn,
        owner: Option<&Owner>,
    ) -> ToolFn {
        let docs = Docs::from_attrs(&original.attrs);
        let rename_all = attrs
            .rename_all
            .value()
            .copied()
            .or_else(|| owner.and_then(|o| o.rename_all));
        let mut params = Vec::new();
        for input in original.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => match owner {
                    Some(owner) => params.extend(Param::from_receiver(cx, r, owner)),
                    None => cx.error_spanned_by(
                        r.self_token,
                        "a tool cannot take `self` outside a `#[toolbox]` impl block: add `#[toolbox]` to the `impl` block, or write a free function and borrow state with a `&T` parameter",
                    ),
                },
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
                    if let Some(mut p) = Param::from_syn(cx, &pt.pat, &pt.ty, arg_attrs, docs) {
                        if let Param::Arg(a) = &mut p {
                            a.rename_all = rename_all;
                        }
                        if let Some(owner) = owner {
                            p.resolve_self(owner);
                        }
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
                    ty: match owner {
                        Some(o) => o.resolve_self(ty.to_token_stream()),
                        None => ty.to_token_stream(),
                    },
                    span: ty.span(),
                    nameable: !matches!(**ty, Type::ImplTrait(_)),
                }
            }
        };
        let mut tool = ToolFn {
            kind,
            original,
            attrs,
            docs,
            params,
            output,
            owner: owner.cloned(),
        };
        if kind == Kind::Tool {
            let paths = tool.paths();
            let kinds = [paths.visible_err_kind(), paths.plain_err_kind()];
            crate::question::rewrite_question_marks(&mut tool.original, paths.err_probe(), kinds);
        }
        tool
    }

    pub fn ident(&self) -> &Ident {
        &self.original.sig.ident
    }

    /// The visibility of that struct: the function's own for a free function, private beside a
    /// method (the `#[toolbox]` type is what `tools![…]` names).
    pub fn def_vis(&self) -> syn::Visibility {
        match self.owner {
            None => self.original.vis.clone(),
            Some(_) => syn::Visibility::Inherited,
        }
    }

    /// The struct that carries the tool's `ToolDef`: the function's own name for a free function
    /// (so that `tools![…]` names the function), a hidden one beside a method.
    pub fn def_ident(&self) -> Ident {
        match &self.owner {
            None => self.ident().clone(),
            Some(_) => format_ident!(
                "__mcp_tool_{}",
                self.ident().unraw(),
                span = self.ident().span()
            ),
        }
    }

    /// How the handler calls the function: by name, or on the impl's type.
    pub fn call_path(&self) -> TokenStream {
        let ident = self.ident();
        match &self.owner {
            None => quote!(#ident),
            Some(o) => {
                let ty = &o.self_ty;
                quote!(<#ty>::#ident)
            }
        }
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

    /// The OAuth scopes a call needs: `scopes = […]`, else its `#[toolbox]`'s, else none.
    pub fn scopes(&self) -> &[String] {
        let owner = self.owner.as_ref().and_then(|o| o.scopes.as_ref());
        self.attrs
            .scopes
            .value()
            .or(owner)
            .map_or(&[], Vec::as_slice)
    }

    pub fn paths(&self) -> Paths {
        let owner = self.owner.as_ref().and_then(|o| o.krate.as_ref());
        match self.attrs.krate.value().or(owner) {
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
                // Only a parameter that is injected otherwise: a `&str` already has its error.
                if let Some(attr) = attrs.first.as_ref().filter(|_| ok) {
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
                        by_value: false,
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
                        rename_all: None,
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

impl Param {
    /// A method's receiver: `&self` borrows the impl's type from the server's state, and
    /// `self: Arc<Self>` shares it (any other typed receiver is refused by the `SharedReceiver`
    /// bound, at its type). `&mut self` and `self` by value are refused here.
    fn from_receiver(cx: &Ctxt, r: &syn::Receiver, owner: &Owner) -> Option<Param> {
        let borrowed = Param::Inject(Injected {
            ty: owner.self_ty.clone(),
            by_value: false,
        });
        let mut_self = |cx: &Ctxt, tokens: TokenStream| {
            cx.error_spanned_by(
                tokens,
                "a tool method cannot take `&mut self`: calls may run concurrently, so the state is shared; take `&self` and mutate through a `Mutex` or an atomic",
            );
            None
        };
        match &r.kind {
            syn::ReceiverKind::Reference(and, _, Some(m)) => mut_self(cx, quote!(#and #m)),
            syn::ReceiverKind::Reference(_, _, None) => Some(borrowed),
            syn::ReceiverKind::Typed(_, ty) => match &**ty {
                Type::Reference(t) if t.mutability.is_some() => mut_self(cx, t.to_token_stream()),
                Type::Reference(_) => Some(borrowed),
                _ => Some(Param::Inject(Injected {
                    ty: syn::parse2(owner.resolve_self(ty.to_token_stream()))
                        .unwrap_or_else(|_| (**ty).clone()),
                    by_value: true,
                })),
            },
            _ => {
                let m = &r.mutability;
                let s = &r.self_token;
                cx.error_spanned_by(
                    quote!(#m #s),
                    "a tool method cannot take `self` by value: the server keeps the state and lends it to every call; take `&self`, or `self: Arc<Self>` for a handle that outlives the call",
                );
                None
            }
        }
    }

    /// `Self` in a method's parameter type, as the impl's type: the generated code that names the
    /// type sits outside the impl block.
    fn resolve_self(&mut self, owner: &Owner) {
        let ty = match self {
            Param::Arg(a) => &mut a.ty,
            Param::Inject(i) => &mut i.ty,
        };
        if let Ok(resolved) = syn::parse2(owner.resolve_self(ty.to_token_stream())) {
            *ty = resolved;
        }
    }
}

impl Owner {
    /// `tokens` with every `Self` replaced by the impl's type, spanned where `Self` was written.
    pub fn resolve_self(&self, tokens: TokenStream) -> TokenStream {
        use proc_macro2::{Group, TokenTree};
        tokens
            .into_iter()
            .flat_map(|tt| -> Vec<TokenTree> {
                match tt {
                    TokenTree::Ident(i) if i == "Self" => {
                        crate::tokens::respan(self.self_ty.to_token_stream(), i.span())
                            .into_iter()
                            .collect()
                    }
                    TokenTree::Group(g) => {
                        let mut group = Group::new(g.delimiter(), self.resolve_self(g.stream()));
                        group.set_span(g.span());
                        vec![TokenTree::Group(group)]
                    }
                    other => vec![other],
                }
            })
            .collect()
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
    /// The published name: `rename = "…"`, else the binding's name in the `rename_all` case.
    pub fn name(&self) -> Sp<String> {
        match self.attrs.rename.get() {
            Some(n) => n.clone(),
            None => {
                let ident = self.ident.unraw().to_string();
                let name = match self.rename_all {
                    Some(rule) => rule.apply(&ident),
                    None => ident,
                };
                Sp::new(name, self.ident.span())
            }
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
