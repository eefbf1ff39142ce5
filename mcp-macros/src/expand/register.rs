//! Registration: the struct named after the function with its `ToolDef` impl and its `ToolSet`,
//! and `tools![…]`, which collects `ToolSet`s (functions and `#[toolbox]` types) into a table and
//! rejects a name published twice at compile time.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, Token, Visibility};

use crate::docs::Description;
use crate::model::{Kind, ToolFn};
use crate::paths::Paths;

/// The `ToolSpec` literal ending `spec()`: the fns it names are emitted beside it.
pub fn expand_spec(tool: &ToolFn, paths: &Paths) -> TokenStream {
    let tool_spec = paths.tool_spec();
    let annotations = paths.annotations();
    let option = paths.option();
    let name = tool.name().value;
    let (title, description) = expand_texts(tool, paths);
    let hint = |v: Option<&bool>| match v {
        Some(b) => quote!(#option::Some(#b)),
        None => quote!(#option::None),
    };
    let read_only = hint(tool.attrs.read_only.value());
    let destructive = hint(tool.attrs.destructive.value());
    let idempotent = hint(tool.attrs.idempotent.value());
    let open_world = hint(tool.attrs.open_world.value());
    let scopes = tool.scopes();
    let task_support = paths.task_support();
    let task = syn::Ident::new(
        tool.attrs.task.value().map_or("Forbidden", |t| t.variant()),
        Span::call_site(),
    );
    quote! {
        #tool_spec {
            name: #name,
            title: #title,
            description: #description,
            annotations: #annotations {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            },
            input: __mcp_input,
            output: __mcp_output,
            state: __mcp_state,
            handler: __mcp_handler,
            task: #task_support::#task,
            scopes: &[#(#scopes),*],
        }
    }
}

/// The `title` (an `Option`) and `description` of a spec.
pub fn expand_texts(tool: &ToolFn, paths: &Paths) -> (TokenStream, TokenStream) {
    let option = paths.option();
    let title = match tool.attrs.title.value() {
        Some(t) => quote!(#option::Some(#t)),
        None => quote!(#option::None),
    };
    let description = match tool.description() {
        Some(Description::Text(t)) => quote!(#t),
        Some(Description::Concat(c)) => c,
        // Rejected by `check_description`; unreachable in an expansion without errors.
        None => quote!(""),
    };
    (title, description)
}

/// The struct beside the function, its `ToolDef` impl with `spec_body`, and the published name as
/// a constant `tools![…]` compares.
pub fn expand_registration(
    kind: Kind,
    ident: &Ident,
    vis: &Visibility,
    paths: &Paths,
    name: TokenStream,
    spec_body: TokenStream,
) -> TokenStream {
    let tool_def = paths.def_trait(kind);
    let tool_spec = paths.spec_ty(kind);
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #ident {}

        #[automatically_derived]
        impl #tool_def for #ident {
            fn spec() -> #tool_spec {
                #spec_body
            }
        }

        #[automatically_derived]
        impl #ident {
            #[doc(hidden)]
            pub const __MCP_NAME: &'static str = #name;
        }
    }
}

/// The `ToolSet` of a free function's struct: the one tool, which `tools![…]` lists by the
/// function's path.
pub fn expand_single_set(kind: Kind, ident: &Ident, paths: &Paths) -> TokenStream {
    let tool_set = paths.set_trait(kind);
    let tool_def = paths.def_trait(kind);
    let tool_spec = paths.spec_ty(kind);
    let vec = paths.vec();
    quote! {
        #[automatically_derived]
        impl #tool_set for #ident {
            const NAMES: &'static [&'static str] = &[#ident::__MCP_NAME];
            fn specs() -> #vec<#tool_spec> {
                #vec::from([<#ident as #tool_def>::spec()])
            }
        }
    }
}

// ---- tools![…] ---------------------------------------------------------------------------------

/// `tools![a, m::b]`, optionally prefixed with `crate = path;`.
struct ToolsInput {
    krate: Option<syn::Path>,
    tools: Vec<syn::Path>,
}

impl Parse for ToolsInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut krate = None;
        if input.peek(Token![crate]) && input.peek2(Token![=]) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            krate = Some(input.call(syn::Path::parse_mod_style)?);
            input.parse::<Token![;]>()?;
        }
        let tools = Punctuated::<syn::Path, Token![,]>::parse_terminated(input)?;
        Ok(ToolsInput {
            krate,
            tools: tools.into_iter().collect(),
        })
    }
}

/// What differs between `tools![…]` and `resources![…]`: the set trait and its constant of
/// published keys, the table, and the words of the errors.
pub struct ListKind {
    /// `tools` or `resources`.
    pub macro_name: &'static str,
    /// What one entry is, for the error of an empty list.
    pub entries: &'static str,
    pub set: fn(&Paths) -> TokenStream,
    pub table: fn(&Paths) -> TokenStream,
    /// The set's constant listing what it publishes (`NAMES`, `URIS`).
    pub keys: &'static str,
    /// The error when two entries publish the same key: the text before the key and after it.
    pub duplicate: fn(&str, &str) -> (String, String),
}

/// `tools![…]`.
pub const TOOLS: ListKind = ListKind {
    macro_name: "tools",
    entries: "`#[tool]` function or `#[toolbox]` type: `tools![my_tool, MyState]`",
    set: Paths::tool_set,
    table: Paths::tool_table,
    keys: "NAMES",
    duplicate: |a, b| {
        (
            format!("`{a}` and `{b}` both publish the tool `"),
            "`; give one of the two tools another `#[tool(name = \"...\")]`".to_owned(),
        )
    },
};

/// `prompts![…]`.
pub const PROMPTS: ListKind = ListKind {
    macro_name: "prompts",
    entries: "`#[prompt]` function: `prompts![my_prompt]`",
    set: Paths::prompt_set,
    table: Paths::prompt_table,
    keys: "NAMES",
    duplicate: |a, b| {
        (
            format!("`{a}` and `{b}` both publish the prompt `"),
            "`; give one of the two prompts another `#[prompt(name = \"...\")]`".to_owned(),
        )
    },
};

/// `tools![…]` (`Kind::Tool`) or `prompts![…]` (`Kind::Prompt`).
pub fn expand_tools(input: TokenStream, kind: Kind) -> TokenStream {
    match kind {
        Kind::Tool => expand_list(input, &TOOLS),
        Kind::Prompt => expand_list(input, &PROMPTS),
    }
}

/// A list macro: its entries' specs in one table, a key published twice refused at compile time.
pub fn expand_list(input: TokenStream, kind: &ListKind) -> TokenStream {
    let parsed = match syn::parse2::<ToolsInput>(input) {
        Ok(p) => p,
        Err(e) => return tools_fallback(&Paths::default(), kind, e),
    };
    let paths = match &parsed.krate {
        Some(root) => Paths::with_root(root),
        None => Paths::default(),
    };
    if let Err(e) = check_tools(&parsed.tools, kind) {
        return tools_fallback(&paths, kind, e);
    }
    let tool_set = (kind.set)(&paths);
    let tool_table = (kind.table)(&paths);
    let (shared_name, joined, joined_len, joined_text) = (
        paths.shared_name(),
        paths.joined(),
        paths.joined_len(),
        paths.joined_text(),
    );
    let keys = syn::Ident::new(kind.keys, Span::call_site());
    let tools = &parsed.tools;

    // -- one compile-time comparison per pair, spanned at the later path --
    let mut checks = TokenStream::new();
    for (j, b) in tools.iter().enumerate() {
        for a in &tools[..j] {
            let (before, after) = (kind.duplicate)(&path_text(a), &path_text(b));
            // The last segment names the entry: the smallest token to point at.
            let span = b
                .segments
                .last()
                .map_or_else(|| b.span(), |s| s.ident.span());
            checks.extend(quote_spanned! {span=>
                const _: () = {
                    const SHARED: &str =
                        #shared_name(<#a as #tool_set>::#keys, <#b as #tool_set>::#keys);
                    const PARTS: [&str; 3] = [#before, SHARED, #after];
                    const MESSAGE: [u8; #joined_len(&PARTS)] = #joined(&PARTS);
                    if !SHARED.is_empty() {
                        ::core::panic!("{}", #joined_text(&MESSAGE));
                    }
                };
            });
        }
    }
    quote! {
        {
            #checks
            #tool_table::from_specs([#(<#tools as #tool_set>::specs()),*].into_iter().flatten())
        }
    }
}

/// A list names each entry once, and at least one.
fn check_tools(tools: &[syn::Path], kind: &ListKind) -> syn::Result<()> {
    let name = kind.macro_name;
    if tools.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            format!("`{name}![]` needs at least one {}", kind.entries),
        ));
    }
    let mut seen: HashMap<String, &syn::Path> = HashMap::new();
    let mut error: Option<syn::Error> = None;
    for path in tools {
        let key = path_text(path);
        if let Some(first) = seen.get(&key) {
            let mut e = syn::Error::new_spanned(
                path,
                format!("`{key}` is listed twice in `{name}![...]`; remove one"),
            );
            e.combine(syn::Error::new_spanned(
                first,
                format!("`{key}` first listed here"),
            ));
            match &mut error {
                Some(all) => all.combine(e),
                None => error = Some(e),
            }
        } else {
            seen.insert(key, path);
        }
    }
    error.map_or(Ok(()), Err)
}

fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// The errors, and an empty table so the code using the table sees the type it expects.
fn tools_fallback(paths: &Paths, kind: &ListKind, error: syn::Error) -> TokenStream {
    let tool_table = (kind.table)(paths);
    let default = paths.default_trait();
    let error = error.to_compile_error();
    quote! {
        {
            #error
            <#tool_table as #default>::default()
        }
    }
}
