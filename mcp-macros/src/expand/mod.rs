//! Code generation for `#[tool]`: the user's function unchanged, then a struct of the same name
//! whose `ToolDef::spec()` holds the pieces emitted by the sibling modules; for `#[toolbox]`, the
//! impl block, one such struct per method and the type's `ToolSet`. Reads only the model.
//!
//! | file | what it emits |
//! |---|---|
//! | `validate.rs` | each parameter type and the return type named once, spanned where the user wrote it: the bundles of operations (`ArgFns`, `InjectFns`, `RetFns`) the other parts call through |
//! | `schema.rs` | each argument declared into the inputSchema with its constraints; the return type's outputSchema |
//! | `handler.rs` | the state a tool borrows, and the handler: arguments taken, values injected, the function called, its result converted |
//! | `register.rs` | the struct named after the function, its `ToolDef` and `ToolSet`; `tools![…]` |
//! | `toolbox.rs` | `#[toolbox]`: the impl block, one `ToolDef` per `#[tool]` method, the type's `ToolSet` |
//! | `prompt.rs` | what `#[prompt]` adds: its return type's conversion into messages, its completion fns, its spec |

mod handler;
mod prompt;
mod register;
mod schema;
mod toolbox;
mod validate;

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Kind, ToolFn};

pub(crate) use handler::expand_state_fn;
pub use register::{
    ListKind, expand_list, expand_registration, expand_single_set, expand_texts, expand_tools,
};
pub use toolbox::expand_toolbox;
pub(crate) use validate::expand_bundle_fn;

/// The expansion of a `#[tool]` function that passed every check.
pub fn expand_tool(tool: &ToolFn) -> TokenStream {
    let original = &tool.original;
    let def = expand_def(tool);
    let set = expand_single_set(tool.kind, &tool.def_ident(), &tool.paths());
    quote! {
        #original
        #def
        #set
    }
}

/// The struct carrying a tool's `ToolDef` (beside a free function, or in the items a `#[toolbox]`
/// emits after its impl block), for a tool that passed every check.
pub fn expand_def(tool: &ToolFn) -> TokenStream {
    let paths = tool.paths();
    let checks = expand_type_checks(tool);
    let input = schema::expand_input(tool, &paths);
    let state = handler::expand_state(tool, &paths);
    let handler = handler::expand_handler(tool, &paths);
    let (output, spec) = match tool.kind {
        Kind::Tool => (
            schema::expand_output(&paths),
            register::expand_spec(tool, &paths),
        ),
        Kind::Prompt => (
            prompt::expand_completers(tool, &paths),
            prompt::expand_spec(tool, &paths),
        ),
    };
    let name = tool.name().value;
    let vis = tool.def_vis();
    let registration = expand_registration(
        tool.kind,
        &tool.def_ident(),
        &vis,
        &paths,
        quote!(#name),
        quote! {
            #checks
            #input
            #output
            #state
            #handler
            #spec
        },
    );
    let injected_once = handler::expand_injected_once(tool, &paths);
    quote! {
        #registration
        #injected_once
    }
}

/// The type contracts alone (argument, injected and return types, constraint keys against the
/// argument's type, defaults): what the fallback still emits beside errors found by the macro, so
/// that one build reports the type errors too.
pub fn expand_type_checks(tool: &ToolFn) -> TokenStream {
    let paths = tool.paths();
    let contracts = validate::expand_contracts(tool, &paths);
    let defaults = schema::expand_defaults(tool, &paths);
    quote!(#contracts #defaults)
}

/// The generated fn computing the default of the `i`th parameter.
fn default_fn(i: usize) -> syn::Ident {
    quote::format_ident!("__mcp_default_{}", i)
}
