//! Typed MCP tools: write a plain Rust function, get a published, validated, served MCP tool.
//!
//! (The crate tour is written once the runtime is complete; see the README for now.)

#![warn(missing_docs)]

pub mod call;
pub mod client;
pub mod connection;
pub mod content;
pub mod context;
pub mod elicitation;
pub mod error;
pub mod output;
pub mod protocol;
pub mod schema;
pub mod server;
pub mod state;
pub mod table;
pub mod tool;
pub mod transport;
pub mod validate;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub(crate) use __private as private;

pub use call::UnknownToolPolicy;
pub use client::{Client, ClientBuilder, ClientError};
pub use connection::Connection;
pub use content::{CallToolResult, Content};
pub use context::{ClientRequestError, Context};
pub use elicitation::{ElicitError, Elicitation};
pub use error::{ProtocolError, ToolError};
pub use output::{Contents, IntoToolOutput};
pub use protocol::{ClientCapabilities, Implementation, LogLevel};
pub use server::{BuildError, Server, ServerBuilder};
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
    pub use crate::{Elicitation, LogLevel, Server};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}
