//! What a tool *is*: the spec `#[tool]` generates, the table a server serves, the call path
//! (arguments → validation → body → output), what a body may return, and the state it borrows.
//!
//! | file | what it holds |
//! |---|---|
//! | `spec.rs` | [`ToolSpec`] (static, from the macro), [`ToolSet`] (what `tools![…]` lists) and [`Tool`] (built: schemas, validator) |
//! | `table.rs` | [`ToolTable`]: the tools in declaration order, looked up by name |
//! | `call.rs` | the one call path every transport ends in; error hiding and panic capture |
//! | `output.rs` | return types → outputSchema; a structured result kept typed until the edge, and its two encoders (bytes, `CallToolResult`) |
//! | `ret.rs` | what `#[tool]` generates for a return type (through `__private`): the probe that tells `Result<T, E>` from a plain value, and the conversion of each |
//! | `names.rs` | the compile error `tools![…]`, `prompts![…]` and `resources![…]` give for a name published twice |
//! | `text.rs` | a structured result's text block: the indented JSON, written as the JSON string it travels in |
//! | `handler.rs` | what a generated handler calls at run time (through `__private`): `CallParts`, argument extraction, injection, receivers |
//! | `panic.rs` | panics contained: in tool bodies and in the handling of every request |
//! | `content.rs` | content blocks and [`CallToolResult`] on the wire |
//! | `state.rs` | [`StateMap`]: server state a tool borrows as `&T` (a `#[toolbox]` method as `&self` or `self: Arc<Self>`), and [`StateReq`], what a tool borrows |

// The files stay private to the docs: users name the types below, at `tool::`; what only
// generated code names is re-exported by `__private` and hidden here.
#[doc(hidden)]
pub mod call;
pub(crate) mod content;
#[doc(hidden)]
pub mod handler;
pub(crate) mod names;
pub(crate) mod output;
pub(crate) mod panic;
pub(crate) mod ret;
pub(crate) mod spec;
pub(crate) mod state;
pub(crate) mod table;
pub(crate) mod text;

pub use self::call::UnknownToolPolicy;
pub use self::content::{CallToolResult, Content};
pub use self::output::{Contents, IntoToolOutput};
pub use self::spec::{Annotations, TaskSupport, Tool, ToolBuildError};
#[doc(hidden)]
pub use self::spec::{ToolDef, ToolSet, ToolSpec};
pub use self::state::StateMap;
#[doc(hidden)]
pub use self::state::StateReq;
pub use self::table::{DuplicateTool, ToolTable};
