//! `#[tool(...)]`: the tool's name, title, description, annotation hints and the runtime's path.

use proc_macro2::TokenStream;
use syn::punctuated::Punctuated;
use syn::{Meta, Token};

use super::keys::{
    CRATE, DESCRIPTION, DESTRUCTIVE, IDEMPOTENT, INLINE, NAME, OPEN_WORLD, READ_ONLY, TITLE,
    TOOL_KEYS, path_text, unknown_key,
};
use super::slot::Attr;
use super::value::{parse_bool, parse_crate, parse_str};
use crate::ctxt::Ctxt;

/// The keys of `#[tool(...)]` as written.
pub(crate) struct ToolAttrs {
    pub name: Attr<String>,
    pub title: Attr<String>,
    pub description: Attr<String>,
    pub read_only: Attr<bool>,
    pub destructive: Attr<bool>,
    pub idempotent: Attr<bool>,
    pub open_world: Attr<bool>,
    /// Run a synchronous body on the task that serves the request instead of the blocking pool.
    pub inline: Attr<bool>,
    pub krate: Attr<TokenStream>,
}

impl ToolAttrs {
    pub(crate) fn from_tokens(cx: &Ctxt, tokens: TokenStream) -> Self {
        let mut attrs = ToolAttrs {
            name: Attr::none(NAME),
            title: Attr::none(TITLE),
            description: Attr::none(DESCRIPTION),
            read_only: Attr::none(READ_ONLY),
            destructive: Attr::none(DESTRUCTIVE),
            idempotent: Attr::none(IDEMPOTENT),
            open_world: Attr::none(OPEN_WORLD),
            inline: Attr::none(INLINE),
            krate: Attr::none(CRATE),
        };
        if tokens.is_empty() {
            return attrs;
        }
        let metas = match syn::parse::Parser::parse2(
            Punctuated::<Meta, Token![,]>::parse_terminated,
            tokens,
        ) {
            Ok(m) => m,
            Err(e) => {
                cx.syn_error(e);
                return attrs;
            }
        };
        for meta in &metas {
            let key = meta.path();
            match path_text(key).as_str() {
                NAME => attrs.name.read(cx, meta, parse_str),
                TITLE => attrs.title.read(cx, meta, parse_str),
                DESCRIPTION => attrs.description.read(cx, meta, parse_str),
                READ_ONLY => attrs.read_only.read(cx, meta, parse_bool),
                INLINE => attrs.inline.read(cx, meta, parse_bool),
                DESTRUCTIVE => attrs.destructive.read(cx, meta, parse_bool),
                IDEMPOTENT => attrs.idempotent.read(cx, meta, parse_bool),
                OPEN_WORLD => attrs.open_world.read(cx, meta, parse_bool),
                CRATE => attrs.krate.read(cx, meta, parse_crate),
                _ => unknown_key(cx, "#[tool]", key, TOOL_KEYS),
            }
        }
        attrs
    }
}
