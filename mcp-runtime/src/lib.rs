//! Typed MCP tools: write a plain Rust function, get a published, validated, served MCP tool.
//!
//! # A tour
//!
//! - [`#[tool]`](macro@tool) turns a function into a tool: its doc comments, its parameters with
//!   their `#[arg(...)]` constraints, its hints and its return type become the published contract
//!   (name, title, description, inputSchema, outputSchema, annotations) and the validation that runs
//!   before the body. Mistakes in a contract are compile errors at the token that is wrong.
//! - [`tools!`] collects tools into a [`ToolTable`], in order; the table builds each contract and
//!   compiles each validator once. [`ToolTable::call`] is the in-process call path every transport
//!   ends in: validate, run, convert, hide unexpected failures.
//! - [`Server::builder`] names the server, gives it state (a `&T` parameter of a tool borrows the
//!   `T` given here; a missing one fails at [`ServerBuilder::build`], naming the tool and the type)
//!   and serves it: [`Server::serve_stdio`], [`Server::serve_io`], and with the `http` feature
//!   Streamable HTTP ([`http`]). Both protocol eras are served: the 2025 `initialize`
//!   handshake and the stateless 2026-07-28 revision.
//! - [`#[prompt]`](macro@prompt) turns a function into a prompt (its parameters the arguments, its
//!   return value the messages: [`PromptMessage`]); [`prompts!`] collects them into a
//!   [`PromptTable`] that [`ServerBuilder::prompts`] serves (`prompts/list`, `prompts/get`).
//!   `#[arg(complete = f)]` and string enums answer `completion/complete` ([`CompleteRequest`]).
//! - [`#[resource]`](macro@resource) publishes a function as a resource (a fixed URI) or a
//!   resource template (an RFC 6570 URI template whose variables are its parameters), and
//!   [`resources!`] collects them into a [`ResourceTable`] for [`ServerBuilder::resources`]:
//!   `resources/list`, `resources/templates/list`, `resources/read`, and change notifications
//!   through [`ResourceUpdates`] (`resources/subscribe` in the 2025 era, a `subscriptions/listen`
//!   stream in the 2026-07-28 one; [`Client::listen`] in either).
//! - [`Context`] (a `&Context` parameter) is the request: progress, log messages, cancellation,
//!   elicitation, and who is calling.
//! - [`task`]: a tool marked `#[tool(task)]` can be called as a task in both eras; its state sits
//!   behind the [`task::TaskStore`] trait ([`task::MemoryTaskStore`] by default).
//! - [`Client`] talks to a server over the same JSON-RPC path, in memory
//!   ([`Client::in_process`]) or over any reader and writer: the way to test a server.
//! - Errors: [`ToolError::new`] is a message the model reads; any other error, and any panic, is
//!   logged in full and hidden from the model; [`ToolError::protocol`] is a JSON-RPC error.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `http` | yes | Streamable HTTP on axum: [`http::router`], [`Server::serve_http`], a bearer-token layer |
//! | (none) | always | prompts: [`macro@prompt`], [`prompts!`], `prompts/list`, `prompts/get`, elicitation mid-`prompts/get` in both eras; completions: `completion/complete` from `#[arg(complete = f)]` and string enums |
//! | (always) tasks | yes | long-running tools: `#[tool(task)]`, the `tasks/*` methods of both eras, [`task::TaskStore`]; [`Client::call_tool_as_task`] and the other task calls |
//! | (none) | always | resources: [`#[resource]`](macro@resource), [`resources!`], `resources/list`, `resources/templates/list`, `resources/read`, subscriptions (`resources/subscribe`, `subscriptions/listen`), list changes |
//! | `cli` | no | `cli`: a server binary's command line (clap): stdio or `--http ADDR`, `--help`, `--version`; `cli::run(server)` is a whole `main` |
//! | `metrics` | no | the `metrics` module: OpenTelemetry's MCP metrics (`mcp.server.operation.duration`, `mcp.server.session.duration`, gauges) on the meter given to `ServerBuilder::metrics`; `metrics::Prometheus` and a `/metrics` path on the HTTP listener; `--metrics` with `cli` |
//! | `redis` | no | `http::RedisSessionStore`: handshake-era sessions in Redis, so replicas behind a round-robin balancer serve one session; `task::RedisTaskStore`: tasks in Redis, so any replica reads, lists, awaits and cancels them; one Redis or a Redis Cluster (`RedisConnection`) (implies `http`) |
//!
//! # Example
//!
//! ```
//! # #![deny(warnings)]
//! use mcp_runtime::prelude::*;
//! use serde_json::json;
//!
//! /// Add two numbers.
//! #[tool(read_only)]
//! fn add(a: i64, #[arg(minimum = 0, maximum = 100)] b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("calculator", "1.0.0").tools(tools![add]).build()?;
//! let client = mcp_runtime::Client::in_process(&server).await?;
//!
//! let result = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
//! assert_eq!(result.structured_content, Some(json!({"result": 5})));
//!
//! let rejected = client.call_tool("add", json!({"a": 2, "b": 300})).await?;
//! assert!(rejected.is_error);
//! assert_eq!(rejected.first_text(), Some("Invalid arguments for tool add: /b: must be <= 100 (got 300)"));
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]
// Every example in the docs (the crate's, the README, the guide, the macros' pages) compiles
// without a warning, but for items it declares and does not use (a `run` that is not called).
#![doc(test(attr(deny(warnings), allow(dead_code))))]
// docs.rs (nightly, `--cfg docsrs`): each item behind a feature is shown with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// What a tool is, and what it rests on. Arrows point down this list only: a folder uses the
// ones below it, never one above (ARCHITECTURE.md draws the data path).
#[macro_use]
mod setters;

pub mod auth;
#[cfg(feature = "cli")]
pub mod cli;
pub mod client;
pub mod contract;
pub mod server;
// The transports' files are the server's business; users name `http::…` (and `Server::serve_stdio`).
#[doc(hidden)]
pub mod transport;
#[cfg(feature = "http")]
pub use transport::http;

pub mod prompt;
#[cfg(feature = "redis")]
#[doc(hidden)]
pub mod redis_conn;
pub mod resource;
pub mod tool;

pub mod context;
#[doc(hidden)]
pub mod schema;
pub mod task;
pub mod validate;

pub mod error;
#[cfg(feature = "metrics")]
pub mod metrics;
#[doc(hidden)]
pub mod protocol;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use client::{Client, ClientBuilder, ClientError};
#[doc(hidden)]
pub use context::connection::Connection;
pub use context::{
    AskError, ClientRequestError, Context, CreateMessageRequest, CreateMessageResult, ElicitError,
    Elicitation, Root, RootsChanged, SamplingContent, SamplingMessage,
};
pub use error::{ProtocolError, ToolError, VisibleError, error_chain};
pub use prompt::{
    CompleteRequest, GetPromptResult, Prompt, PromptBuildError, PromptMessage, PromptTable, Role,
};
pub use protocol::{ClientCapabilities, Implementation, LogLevel};
/// The connection every Redis store shares (feature `redis`): one Redis or a Redis Cluster.
#[cfg(feature = "redis")]
pub use redis_conn::{RedisConnection, hash_tag};
pub use resource::{IntoResourceContents, Json, ResourceContents, ResourceTable, UriVar};
#[doc(hidden)]
pub use resource::{ResourceSet, ResourceSpec};
pub use server::{BuildError, ResourceUpdates, Server, ServerBuilder, Shutdown};
pub use tool::{
    Annotations, CallToolResult, Content, Contents, DuplicateTool, IntoToolOutput, StateMap, Tool,
    ToolBuildError, ToolTable, UnknownToolPolicy,
};
#[doc(hidden)]
pub use tool::{ToolDef, ToolSet, ToolSpec};

#[doc(inline)]
pub use mcp_macros::{prompt, prompts, resource, resources, tool, toolbox, tools};

/// The schemars this crate uses (1.x): `#[derive(JsonSchema)]` with [`prelude`] imported needs no
/// schemars dependency of your own. A `JsonSchema` of another major version is another trait, and
/// does not make an argument type.
pub use schemars;
/// The serde this crate uses: derive through it without depending on serde yourself, with
/// `#[serde(crate = "mcp_runtime::serde")]` on the type.
pub use serde;
/// The serde_json this crate uses, for `Value` arguments and `json!`.
pub use serde_json;

// Foreign types: each crate re-exported (with its `serde` feature) when its feature, named as
// schemars names it, is on, so that its types are arguments and results with no dependency of
// the user's own.
/// arrayvec 0.7 (feature `arrayvec07`).
#[cfg(feature = "arrayvec07")]
pub use arrayvec07 as arrayvec;
/// bigdecimal 0.4 (feature `bigdecimal04`).
#[cfg(feature = "bigdecimal04")]
pub use bigdecimal04 as bigdecimal;
/// bytes 1 (feature `bytes1`).
#[cfg(feature = "bytes1")]
pub use bytes;
/// chrono 0.4 (feature `chrono04`): `DateTime<Utc>` is published as `format: date-time`, checked.
#[cfg(feature = "chrono04")]
pub use chrono04 as chrono;
/// either 1 (feature `either1`).
#[cfg(feature = "either1")]
pub use either1 as either;
/// indexmap 2 (feature `indexmap2`).
#[cfg(feature = "indexmap2")]
pub use indexmap2 as indexmap;
/// jiff 0.2 (feature `jiff02`).
#[cfg(feature = "jiff02")]
pub use jiff02 as jiff;
/// rust_decimal 1 (feature `rust_decimal1`).
#[cfg(feature = "rust_decimal1")]
pub use rust_decimal1 as rust_decimal;
/// semver 1 (feature `semver1`).
#[cfg(feature = "semver1")]
pub use semver1 as semver;
/// smallvec 1 (feature `smallvec1`).
#[cfg(feature = "smallvec1")]
pub use smallvec1 as smallvec;
/// smol_str 0.2 (feature `smol_str02`).
#[cfg(feature = "smol_str02")]
pub use smol_str02 as smol_str;
/// url 2 (feature `url2`): `Url` is published as `format: uri`, checked.
#[cfg(feature = "url2")]
pub use url2 as url;
/// uuid 1 (feature `uuid1`): `Uuid` is published as `format: uuid`, checked.
#[cfg(feature = "uuid1")]
pub use uuid1 as uuid;

/// The items a tool author needs: every type `#[tool]`'s documentation names as an argument, a
/// return or an error type, the server and its builder, and the derives, serde's and schemars'
/// own re-exported.
///
/// Neither serde nor schemars needs to be a direct dependency: with this prelude imported,
/// `#[derive(JsonSchema)]` works as is, and `#[derive(Deserialize)]`/`#[derive(Serialize)]` work
/// with `#[serde(crate = "mcp_runtime::serde")]` on the type (serde's derive otherwise names the
/// crate `serde` itself, which only a direct dependency provides). A crate that depends on
/// another major version of schemars must write `::schemars::…` for that one: `schemars` alone is
/// then ambiguous with the one this prelude brings in.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{BuildError, Elicitation, LogLevel, Server, ServerBuilder};
    #[doc(no_inline)]
    pub use crate::{
        CallToolResult, Content, Contents, Context, ProtocolError, StateMap, ToolError, ToolTable,
        VisibleError, tool, toolbox, tools,
    };
    #[doc(no_inline)]
    pub use crate::{
        CompleteRequest, GetPromptResult, Json, PromptMessage, PromptTable, ResourceContents,
        ResourceTable, UriVar, prompt, prompts, resource, resources,
    };
    /// In scope for `#[derive(JsonSchema)]`, whose expansion names `schemars::…`: with the
    /// prelude imported, the derive needs no direct schemars dependency and no attribute.
    #[doc(no_inline)]
    pub use schemars;
    #[doc(no_inline)]
    pub use schemars::JsonSchema;
    #[doc(no_inline)]
    pub use serde::{Deserialize, Serialize};
}

/// The README's quick start is compiled with the doctests, so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The macros' reference pages (`mcp-macros/src/*.md`, the docs of `#[tool]` and the others) are
/// compiled here, with the runtime their examples use: `mcp-macros` has no dev-dependency on the
/// runtime, which as a proc-macro crate's would build a second copy of it for the host.
#[cfg(doctest)]
// As strict as the macros crate was with them: not even an unused item.
#[doc(test(attr(deny(dead_code))))]
mod macro_doctests {
    #[doc = include_str!("../../mcp-macros/src/tool.md")]
    pub struct Tool;
    #[doc = include_str!("../../mcp-macros/src/toolbox.md")]
    pub struct Toolbox;
    #[doc = include_str!("../../mcp-macros/src/tools.md")]
    pub struct Tools;
    #[doc = include_str!("../../mcp-macros/src/prompt.md")]
    pub struct Prompt;
    #[doc = include_str!("../../mcp-macros/src/resource.md")]
    pub struct Resource;
}

/// The guide's pages (docs/guide/) are compiled with the doctests too: every code block in them.
#[cfg(doctest)]
mod guide_doctests {
    #[doc = include_str!("../../docs/guide/tools.md")]
    pub struct Tools;
    #[doc = include_str!("../../docs/guide/validation.md")]
    pub struct Validation;
    #[doc = include_str!("../../docs/guide/errors.md")]
    pub struct Errors;
    #[doc = include_str!("../../docs/guide/resources.md")]
    pub struct Resources;
    #[doc = include_str!("../../docs/guide/prompts.md")]
    pub struct Prompts;
    #[doc = include_str!("../../docs/guide/tasks.md")]
    pub struct Tasks;
    #[doc = include_str!("../../docs/guide/context.md")]
    pub struct Context;
    #[doc = include_str!("../../docs/guide/sampling-and-roots.md")]
    pub struct SamplingAndRoots;
    #[doc = include_str!("../../docs/guide/testing.md")]
    pub struct Testing;
    #[doc = include_str!("../../docs/guide/observability.md")]
    pub struct Observability;
    #[doc = include_str!("../../docs/guide/http.md")]
    pub struct Http;
    #[doc = include_str!("../../docs/guide/scale-out.md")]
    pub struct ScaleOut;
    // docs/auth.md: its examples need the `auth` feature.
    #[cfg(feature = "auth")]
    #[doc = include_str!("../../docs/auth.md")]
    pub struct Auth;
    #[doc = include_str!("../../docs/contract-evolution.md")]
    pub struct ContractEvolution;
}
