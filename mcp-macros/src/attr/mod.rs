//! `#[tool(...)]`, `#[toolbox(...)]` and `#[arg(...)]` keys parsed into typed slots. A key is checked where it is
//! parsed (unknown, given twice, wrong literal type); rules across keys live in `check/`.
//!
//! - `keys`: one constant per key name, the keys each attribute accepts, the unknown-key error.
//! - `slot`: `Sp` (a value and its span), `Attr` (one key's slot), `Num` (a numeric bound).
//! - `value`: reading a key's value as a string, flag, count, number, list or path.
//! - `case`: `RenameRule`, serde's case names for `rename_all`.
//! - `tool`: `ToolAttrs`, the keys of `#[tool(...)]`, and of `#[toolbox(...)]` (a subset).
//! - `task`: `TaskKey`, the value of `task` (`execution.taskSupport`).
//! - `arg`: `ArgAttrs`, the keys of a parameter's `#[arg(...)]`.
//! - `resource`: `ResourceAttrs`, the keys of `#[resource(...)]` and its nested `annotations(...)`.
//! - `scopes`: the value of `scopes = [...]`, each an RFC 6749 scope-token.

mod arg;
mod case;
mod keys;
mod resource;
mod scopes;
mod slot;
mod task;
mod tool;
mod value;

pub(crate) use arg::ArgAttrs;
pub(crate) use case::RenameRule;
pub(crate) use resource::ResourceAttrs;
pub(crate) use slot::{Attr, Num, Sp};
pub(crate) use task::TaskKey;
pub(crate) use tool::ToolAttrs;
