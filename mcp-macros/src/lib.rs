//! The `#[tool]`, `#[toolbox]` and `#[resource]` attributes and the `tools![…]` and
//! `resources![…]` macros of `mcp-runtime`.
//!
//! Depend on `mcp-runtime`, not on this crate: the generated code names `::mcp_runtime`, and
//! `mcp-runtime` re-exports the macros (also in its `prelude`).

#![deny(missing_docs)]
// The reference pages (`*.md`) are compiled as doctests by `mcp-runtime` (its `macro_doctests`),
// not here: their examples need the runtime, and a dev-dependency of a proc-macro crate on it
// builds a second copy of the runtime and its HTTP stack for the host (about 20 s of CPU in a
// fresh clone's test build).

mod attr;
mod check;
mod ctxt;
mod docs;
mod expand;
mod fallback;
mod kind;
mod model;
mod paths;
mod prompt;
mod question;
mod resource;
mod tokens;
mod toolbox;

use proc_macro::TokenStream;

use crate::ctxt::Ctxt;
use crate::model::{Kind, ToolFn};
use crate::toolbox::Toolbox;

#[cfg_attr(not(doctest), doc = include_str!("tool.md"))]
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug_print("#[tool]", expand_tool(attr.into(), item.into())).into()
}

#[cfg_attr(not(doctest), doc = include_str!("toolbox.md"))]
#[proc_macro_attribute]
pub fn toolbox(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug_print("#[toolbox]", expand_toolbox(attr.into(), item.into())).into()
}

#[cfg_attr(not(doctest), doc = include_str!("tools.md"))]
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    debug_print("tools!", expand::expand_tools(input.into(), Kind::Tool)).into()
}

#[cfg_attr(not(doctest), doc = include_str!("prompt.md"))]
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug_print("#[prompt]", prompt::expand_prompt(attr.into(), item.into())).into()
}

/// Builds a [`PromptTable`] from `#[prompt]` functions, in the order given: `prompts![greet,
/// summarize]`. Listing one twice, two prompts that publish the same name, or none is a compile
/// error; `prompts![crate = my_sdk::runtime; greet]` names a re-exported runtime.
///
/// [`PromptTable`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/prompt/struct.PromptTable.html
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    debug_print("prompts!", expand::expand_tools(input.into(), Kind::Prompt)).into()
}

#[cfg_attr(not(doctest), doc = include_str!("resource.md"))]
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug_print("#[resource]", expand_resource(attr.into(), item.into())).into()
}

/// Builds a [`ResourceTable`] from `#[resource]` functions, in the order given. Listing one twice,
/// two that publish the same URI, or none is a compile error; `resources![crate = path; …]`
/// names a re-exported runtime.
///
/// [`ResourceTable`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.ResourceTable.html
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    debug_print(
        "resources!",
        expand::expand_list(input.into(), &resource::RESOURCES),
    )
    .into()
}

type Tokens = proc_macro2::TokenStream;

/// `#[resource]` on a function.
fn expand_resource(attr: Tokens, item: Tokens) -> Tokens {
    let kind = |item| match item {
        syn::Item::Fn(f) => Ok(f),
        other => Err(fallback::not_a_fn("#[resource]", &other)),
    };
    let model = |cx: &Ctxt, f| {
        let res = resource::ResourceFn::from_syn(cx, attr, f);
        resource::check(cx, &res);
        res
    };
    run(item, kind, model, resource::expand, resource::fallback)
}

/// `#[tool]` on a function.
fn expand_tool(attr: Tokens, item: Tokens) -> Tokens {
    let kind = |item| match item {
        syn::Item::Fn(f) => Ok(f),
        other => Err(fallback::not_a_fn("#[tool]", &other)),
    };
    let model = |cx: &Ctxt, f| {
        let tool = ToolFn::from_syn(cx, attr, f, None);
        check::check(cx, &tool);
        tool
    };
    run(item, kind, model, expand::expand_tool, fallback::expand)
}

/// `#[toolbox]` on an impl block: each method is modelled and checked on the way, then the block.
fn expand_toolbox(attr: Tokens, item: Tokens) -> Tokens {
    let kind = |item| match item {
        syn::Item::Impl(i) => Ok(i),
        other => Err(fallback::not_an_impl(&other)),
    };
    let model = |cx: &Ctxt, i| Toolbox::from_syn(cx, attr, i);
    run(
        item,
        kind,
        model,
        expand::expand_toolbox,
        fallback::expand_toolbox,
    )
}

/// Parse (an item of the kind `kind` picks, else the error it returns), model and check, expand; with
/// errors, the fallback instead of the expansion. A parse error is emitted beside the input.
pub(crate) fn run<I, T>(
    item: Tokens,
    kind: impl FnOnce(syn::Item) -> Result<I, Tokens>,
    model: impl FnOnce(&Ctxt, I) -> T,
    expand: fn(&T) -> Tokens,
    fallback: fn(&T, syn::Error) -> Tokens,
) -> Tokens {
    let item = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(parsed) => match kind(parsed) {
            Ok(i) => i,
            Err(wrong_kind) => return wrong_kind,
        },
        Err(e) => {
            let e = e.to_compile_error();
            return quote::quote!(#e #item);
        }
    };
    let cx = Ctxt::new();
    let model = model(&cx, item);
    match cx.check() {
        Ok(()) => expand(&model),
        Err(e) => fallback(&model, e),
    }
}

/// With `MCP_MACROS_DEBUG` set (to anything but `0`), prints each expansion to stderr.
fn debug_print(what: &str, tokens: Tokens) -> Tokens {
    if std::env::var_os("MCP_MACROS_DEBUG").is_some_and(|v| v != "0" && !v.is_empty()) {
        eprintln!("---- mcp-macros: {what} expansion ----\n{tokens}\n---- end ----");
    }
    tokens
}
