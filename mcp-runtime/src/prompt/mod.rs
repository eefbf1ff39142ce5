//! What a prompt *is*: the spec `#[prompt]` generates, the table `prompts![…]` builds, the
//! messages a prompt renders, the `prompts/get` path and the completion of its arguments.
//!
//! | file | what it holds |
//! |---|---|
//! | [`spec`] | [`PromptSpec`] (static, from the macro), [`PromptSet`] (what `prompts![…]` lists) and [`Prompt`] (built: argument list, validator) |
//! | [`table`] | [`PromptTable`], and [`Prompts`]: every prompt a server serves, built once |
//! | [`message`] | [`PromptMessage`], [`GetPromptResult`], and what a prompt body may return |
//! | `get.rs` | `prompts/get`: string arguments read and validated, the body run, errors mapped |
//! | [`complete`] | `complete = fn` ([`Completer`]), [`CompleteRequest`], the capped answer |

pub mod complete;
mod get;
pub mod message;
pub mod spec;
pub mod table;

pub use complete::{CompleteRequest, Completer, IntoCandidates, MAX_COMPLETION_VALUES};
pub use message::{GetPromptResult, IntoPromptMessages, PromptMessage, PromptReturn, Role};
pub use spec::{Prompt, PromptArgument, PromptDef, PromptSet, PromptSpec};
pub use table::{PromptBuildError, PromptTable, Prompts};
