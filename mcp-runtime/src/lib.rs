//! Typed MCP tools: write a plain Rust function, get a published, validated, served MCP tool.
//!
//! (The crate tour is written once the runtime is complete; see the README for now.)

#![warn(missing_docs)]

pub mod call;
pub mod content;
pub mod context;
pub mod error;
pub mod output;
pub mod schema;
pub mod state;
pub mod table;
pub mod tool;
pub mod validate;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub(crate) use __private as private;

pub use call::UnknownToolPolicy;
pub use content::{CallToolResult, Content};
pub use context::Context;
pub use error::{ProtocolError, ToolError};
pub use output::{Contents, IntoToolOutput};
pub use state::StateMap;
pub use table::ToolTable;
pub use tool::{Annotations, Tool, ToolDef, ToolSpec};

#[doc(inline)]
pub use mcp_macros::{tool, tools};

/// The items a tool author needs.
pub mod prelude {
    pub use crate::{
        CallToolResult, Content, Context, ProtocolError, StateMap, ToolError, ToolTable, tool,
        tools,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}
