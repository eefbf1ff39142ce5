//! What a prompt *is*: the spec `#[prompt]` generates, the table `prompts![…]` builds, the
//! messages a prompt renders, the `prompts/get` path and the completion of its arguments.
//!
//! | file | what it holds |
//! |---|---|
//! | `spec.rs` | [`PromptSpec`] (static, from the macro), [`PromptSet`] (what `prompts![…]` lists) and [`Prompt`] (built: argument list, validator) |
//! | `table.rs` | [`PromptTable`], and [`Prompts`]: every prompt a server serves, built once |
//! | `message.rs` | [`PromptMessage`], [`GetPromptResult`], and what a prompt body may return |
//! | `get.rs` | `prompts/get`: string arguments read and validated, the body run, errors mapped |
//! | `complete.rs` | `complete = fn` ([`Completer`]), [`CompleteRequest`], the capped answer |

// The files stay private to the docs: users name the types below, at `prompt::`; what only
// generated code names is re-exported by `__private` and hidden here.
pub(crate) mod complete;
mod get;
pub(crate) mod message;
pub(crate) mod spec;
pub(crate) mod table;

pub use self::complete::CompleteRequest;
#[doc(hidden)]
pub use self::complete::MAX_COMPLETION_VALUES;
#[doc(hidden)]
pub use self::complete::{Completer, IntoCandidates};
#[doc(hidden)]
pub use self::message::PromptReturn;
pub use self::message::{GetPromptResult, IntoPromptMessages, PromptMessage, Role};
pub use self::spec::{Prompt, PromptArgument};
#[doc(hidden)]
pub use self::spec::{PromptDef, PromptSet, PromptSpec};
#[doc(hidden)]
pub use self::table::Prompts;
pub use self::table::{PromptBuildError, PromptTable};
