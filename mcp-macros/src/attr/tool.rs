//! `#[tool(...)]`: the tool's name, title, description, annotation hints and the runtime's path.

use proc_macro2::TokenStream;

use super::case::{RenameRule, parse_rename_rule};
use super::keys::{
    CRATE, DESCRIPTION, DESTRUCTIVE, IDEMPOTENT, INLINE, NAME, OPEN_WORLD, PROMPT_KEYS, READ_ONLY,
    RENAME_ALL, SCOPES, TASK, TITLE, TOOL_KEYS, TOOLBOX_KEYS, path_text, unknown_key,
};
use super::scopes::parse_scopes;
use super::slot::Attr;
use super::task::{TaskKey, parse_task};
use super::value::{parse_bool, parse_crate, parse_metas, parse_str};
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
    /// Whether the tool can be called as a task (`execution.taskSupport`).
    pub task: Attr<TaskKey>,
    /// The OAuth scopes a call needs (`#[toolbox]`: the default of its methods).
    pub scopes: Attr<Vec<String>>,
    /// The case every argument's published name is written in, unless renamed.
    pub rename_all: Attr<RenameRule>,
    pub krate: Attr<TokenStream>,
}

impl ToolAttrs {
    pub(crate) fn from_tokens(cx: &Ctxt, tokens: TokenStream) -> Self {
        Self::parse(cx, tokens, "#[tool]", TOOL_KEYS)
    }

    /// The keys of `#[prompt(...)]`: a tool's, without the hints, `inline` and `task`.
    pub(crate) fn for_prompt(cx: &Ctxt, tokens: TokenStream) -> Self {
        Self::parse(cx, tokens, "#[prompt]", PROMPT_KEYS)
    }

    /// The keys of `#[toolbox(...)]`: those of `#[tool]` that its methods share, each tool's own
    /// key winning.
    pub(crate) fn for_toolbox(cx: &Ctxt, tokens: TokenStream) -> Self {
        Self::parse(cx, tokens, "#[toolbox]", TOOLBOX_KEYS)
    }

    /// The keys `valid` allows; any other is an unknown key of `attr`.
    fn parse(cx: &Ctxt, tokens: TokenStream, attr: &str, valid: &[&str]) -> Self {
        let mut attrs = ToolAttrs {
            name: Attr::none(NAME),
            title: Attr::none(TITLE),
            description: Attr::none(DESCRIPTION),
            read_only: Attr::none(READ_ONLY),
            destructive: Attr::none(DESTRUCTIVE),
            idempotent: Attr::none(IDEMPOTENT),
            open_world: Attr::none(OPEN_WORLD),
            inline: Attr::none(INLINE),
            task: Attr::none(TASK),
            scopes: Attr::none(SCOPES),
            rename_all: Attr::none(RENAME_ALL),
            krate: Attr::none(CRATE),
        };
        for meta in &parse_metas(cx, tokens) {
            let key = meta.path();
            let written = path_text(key);
            if !valid.contains(&written.as_str()) {
                unknown_key(cx, attr, key, valid);
                continue;
            }
            match written.as_str() {
                NAME => attrs.name.read(cx, meta, parse_str),
                TITLE => attrs.title.read(cx, meta, parse_str),
                DESCRIPTION => attrs.description.read(cx, meta, parse_str),
                READ_ONLY => attrs.read_only.read(cx, meta, parse_bool),
                INLINE => attrs.inline.read(cx, meta, parse_bool),
                TASK => attrs.task.read(cx, meta, parse_task),
                SCOPES => attrs.scopes.read(cx, meta, parse_scopes),
                DESTRUCTIVE => attrs.destructive.read(cx, meta, parse_bool),
                IDEMPOTENT => attrs.idempotent.read(cx, meta, parse_bool),
                OPEN_WORLD => attrs.open_world.read(cx, meta, parse_bool),
                RENAME_ALL => attrs.rename_all.read(cx, meta, parse_rename_rule),
                CRATE => attrs.krate.read(cx, meta, parse_crate),
                // Not in `valid`: reported above.
                _ => {}
            }
        }
        attrs
    }
}
