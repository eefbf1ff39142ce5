//! Our model of one `#[toolbox]` impl block: the block as re-emitted, and each `#[tool]` method
//! read into a `ToolFn` whose owner is the impl's type, with the errors found in it.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use syn::{ImplItem, ImplItemFn, ItemFn, ItemImpl, Meta};

use crate::attr::ToolAttrs;
use crate::check;
use crate::check::check_generics;
use crate::ctxt::Ctxt;
use crate::model::{Owner, ToolFn};
use crate::paths::Paths;

/// An `impl` block under `#[toolbox]`.
pub struct Toolbox {
    /// The block as re-emitted: `#[tool]`, `#[arg]` and parameter docs taken off its methods.
    pub original: ItemImpl,
    /// The keys of `#[toolbox(...)]` (`scopes`, `rename_all` and `crate` only).
    pub attrs: ToolAttrs,
    /// Its `#[tool]` methods in order, each with every error found in it.
    pub tools: Vec<(ToolFn, Result<(), syn::Error>)>,
}

impl Toolbox {
    pub fn from_syn(cx: &Ctxt, attr: TokenStream, mut original: ItemImpl) -> Toolbox {
        let attrs = ToolAttrs::for_toolbox(cx, attr);
        let owner = Owner {
            self_ty: (*original.self_ty).clone(),
            rename_all: attrs.rename_all.value().copied(),
            scopes: attrs.scopes.value().cloned(),
            krate: attrs.krate.value().cloned(),
        };
        let mut tools = Vec::new();
        for item in &mut original.items {
            let ImplItem::Fn(method) = item else { continue };
            let Some(tool_attr) = take_tool_attr(cx, method) else {
                continue;
            };
            let tcx = Ctxt::new();
            let args = match tool_attr.meta {
                Meta::Path(_) => TokenStream::new(),
                Meta::List(l) => l.tokens,
                Meta::NameValue(nv) => {
                    tcx.error_spanned_by(&nv, "expected `#[tool]` or `#[tool(key = value, ...)]`");
                    TokenStream::new()
                }
            };
            let tool = ToolFn::from_syn(&tcx, args, to_item_fn(method.clone()), Some(&owner));
            check::check(&tcx, &tool);
            *method = to_impl_item_fn(tool.original.clone());
            tools.push((tool, tcx.check()));
        }
        let toolbox = Toolbox {
            original,
            attrs,
            tools,
        };
        toolbox.check(cx);
        toolbox
    }

    /// The runtime's path for the type's `ToolSet`.
    pub fn paths(&self) -> Paths {
        match self.attrs.krate.value() {
            Some(root) => Paths::with_root(root),
            None => Paths::default(),
        }
    }

    /// The rules of the block as a whole.
    ///
    /// The block is an inherent impl of a concrete type: a trait's methods have the trait's
    /// signatures, and nothing would choose a generic impl's parameters when the server calls a
    /// tool. It has at least one `#[tool]` method (else the attribute is a slip), and its tools
    /// publish distinct names (two would be one entry of `tools/list`).
    fn check(&self, cx: &Ctxt) {
        let imp = &self.original;
        if let Some((path, for_token)) = &imp.trait_ {
            cx.error_spanned_by(
                quote::quote!(#path #for_token),
                "`#[toolbox]` goes on an inherent impl block (`impl MyState { ... }`), not on a trait impl: move the tools into an `impl` block of the type itself",
            );
        }
        check_generics(
            cx,
            &imp.generics,
            "a `#[toolbox]` impl block cannot be generic: its tools' schemas are published for concrete types; write one `#[toolbox]` impl for a concrete type (`impl Store<Memory> { ... }`)",
            "a `#[toolbox]` impl block cannot have a `where` clause: use concrete types",
        );
        if self.tools.is_empty() {
            cx.error_spanned_by(
                imp.impl_token,
                "this `#[toolbox]` impl block has no `#[tool]` method: mark each method that is a tool with `#[tool]`",
            );
        }
        let mut seen: HashMap<String, Span> = HashMap::new();
        for (tool, _) in &self.tools {
            let name = tool.name();
            if let Some(first) = seen.get(&name.value) {
                cx.error_with_note(
                    name.span,
                    format!(
                        "two tools of this impl block are published as `{}`; give one of them another `#[tool(name = \"...\")]`",
                        name.value
                    ),
                    *first,
                    format!("`{}` first published here", name.value),
                );
            } else {
                seen.insert(name.value, name.span);
            }
        }
    }
}

/// Takes `#[tool]` (or `#[some::path::tool]`) off a method; a second one is an error.
fn take_tool_attr(cx: &Ctxt, method: &mut ImplItemFn) -> Option<syn::Attribute> {
    let is_tool = |a: &syn::Attribute| a.path().segments.last().is_some_and(|s| s.ident == "tool");
    let (tool, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut method.attrs)
        .into_iter()
        .partition(is_tool);
    method.attrs = kept;
    for extra in tool.iter().skip(1) {
        cx.error_spanned_by(extra, "`#[tool]` is given twice; remove one");
    }
    tool.into_iter().next()
}

fn to_item_fn(m: ImplItemFn) -> ItemFn {
    ItemFn {
        attrs: m.attrs,
        vis: m.vis,
        modifiers: m.modifiers,
        sig: m.sig,
        block: Box::new(m.block),
    }
}

fn to_impl_item_fn(f: ItemFn) -> ImplItemFn {
    ImplItemFn {
        attrs: f.attrs,
        vis: f.vis,
        modifiers: f.modifiers,
        sig: f.sig,
        block: *f.block,
    }
}
