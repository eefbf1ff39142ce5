//! What a tool *is*: the spec `#[tool]` generates, the table a server serves, the call path
//! (arguments → validation → body → output), what a body may return, and the state it borrows.
//!
//! | file | what it holds |
//! |---|---|
//! | [`spec`] | [`ToolSpec`] (static, from the macro), [`ToolSet`] (what `tools![…]` lists) and [`Tool`] (built: schemas, validator) |
//! | [`table`] | [`ToolTable`]: the tools in declaration order, looked up by name |
//! | [`call`] | the one call path every transport ends in; error hiding and panic capture |
//! | [`output`] | return types → outputSchema and the call result |
//! | `text.rs` | a structured result's text block: the indented JSON, written as the JSON string it travels in |
//! | [`handler`] | what a generated handler calls at run time (through `__private`): `CallParts`, argument extraction, injection, receivers |
//! | `panic.rs` | panics contained: in tool bodies and in the handling of every request |
//! | [`content`] | content blocks and [`CallToolResult`] on the wire |
//! | [`state`] | [`StateMap`]: server state a tool borrows as `&T` (a `#[toolbox]` method as `&self` or `self: Arc<Self>`), and [`StateReq`], what a tool borrows |

pub mod call;
pub mod content;
pub mod handler;
pub(crate) mod names;
pub mod output;
pub(crate) mod panic;
pub(crate) mod ret;
pub mod spec;
pub mod state;
pub mod table;
pub(crate) mod text;

pub use call::UnknownToolPolicy;
pub use content::{CallToolResult, Content};
pub use output::{Contents, IntoToolOutput};
pub use spec::{Annotations, TaskSupport, Tool, ToolBuildError, ToolDef, ToolSet, ToolSpec};
pub use state::{StateMap, StateReq};
pub use table::{DuplicateTool, ToolTable};
