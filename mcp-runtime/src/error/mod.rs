//! The three ways a call fails: a message for the model, a protocol error, a hidden internal failure.
//! `visible.rs` holds [`VisibleError`]: a domain error type whose `Display` the model may read.

use std::fmt;

use serde_json::Value;

pub(crate) mod visible;

pub use self::visible::{VisibleError, error_chain};

/// A JSON-RPC error object: what a request that cannot be served gets instead of a result.
/// Serialized as the response's `error` member.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProtocolError {
    /// The JSON-RPC error code (-32602 for invalid params, for example).
    pub code: i64,
    /// A short message.
    pub message: String,
    /// Optional structured detail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ProtocolError {
    /// An error with this code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ProtocolError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Adds `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(codes::PARSE_ERROR, message)
    }
    /// -32600
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, message)
    }
    /// -32601
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }
    /// -32602
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }
    /// -32603
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }
}

// Not `thiserror`: that would make `ProtocolError` a `std::error::Error`, whose blanket
// conversion into `ToolError` (a hidden failure) would clash with `From<ProtocolError>` below.
impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// JSON-RPC and MCP error codes.
#[doc(hidden)]
pub mod codes {
    /// Invalid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown or removed method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Stateless era: a header does not match the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// Stateless era: the request needs a client capability the client did not declare.
    pub const MISSING_CAPABILITY: i64 = -32021;
    /// Stateless era: unsupported protocol version.
    pub const UNSUPPORTED_VERSION: i64 = -32022;
    /// The 2025 era's "resource not found" (the 2026-07-28 revision answers -32602).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// What a tool returns when it fails.
///
/// - [`ToolError::new`]: a failure the model can act on; its message reaches the model as an
///   `isError: true` result. So does an error type that implements [`VisibleError`], returned
///   (`Result<T, DeskError>`) or raised with `?` in a `Result<T, ToolError>` tool.
/// - [`ToolError::protocol`]: the request itself is malformed; the client gets a JSON-RPC error.
/// - anything converted with `?` from a `std::error::Error` (and [`ToolError::internal`]): an
///   unexpected failure, logged in full for the operator and hidden from the model.
pub struct ToolError {
    pub(crate) kind: ToolErrorKind,
}

pub(crate) enum ToolErrorKind {
    Visible(String),
    Protocol(ProtocolError),
    Internal(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A visible text sent verbatim (argument rejections found after validation).
    Raw(String),
}

impl ToolError {
    /// A failure the model can fix; `message` is sent to the model.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Visible(message.into()),
        }
    }

    /// A protocol error: the client receives a JSON-RPC error with this code and message.
    pub fn protocol(code: i64, message: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Protocol(ProtocolError::new(code, message)),
        }
    }

    /// The request's parameters are wrong in a way validation could not see (a note id that is
    /// well formed but refers to another tenant, two arguments that exclude each other): the
    /// client gets the JSON-RPC error -32602 with `message`. From a tool, prefer [`ToolError::new`]
    /// when the model could fix the call: it reads a visible error, not a protocol one.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ProtocolError::invalid_params(message).into()
    }

    /// From a resource function: the URI matched a template but names nothing (a note that does
    /// not exist). The client gets the "resource not found" error of its era, as for an unknown
    /// URI: -32002 in the 2025 era, -32602 in the 2026-07-28 one, the URI in `data`.
    pub fn resource_not_found() -> Self {
        ToolError::protocol(codes::RESOURCE_NOT_FOUND, "Resource not found")
    }

    /// An unexpected failure: logged for the operator, hidden from the model.
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>) -> Self {
        ToolError {
            kind: ToolErrorKind::Internal(error.into()),
        }
    }

    /// The message the model would see, for a visible error.
    pub fn message(&self) -> Option<&str> {
        match &self.kind {
            ToolErrorKind::Visible(m) | ToolErrorKind::Raw(m) => Some(m),
            _ => None,
        }
    }

    /// True when this error is hidden from the model.
    pub fn is_internal(&self) -> bool {
        matches!(self.kind, ToolErrorKind::Internal(_))
    }

    /// The protocol error, when this is one.
    pub fn as_protocol(&self) -> Option<&ProtocolError> {
        match &self.kind {
            ToolErrorKind::Protocol(p) => Some(p),
            _ => None,
        }
    }
}

impl From<ProtocolError> for ToolError {
    fn from(p: ProtocolError) -> Self {
        ToolError {
            kind: ToolErrorKind::Protocol(p),
        }
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ToolErrorKind::Visible(m) => f.debug_tuple("ToolError::Visible").field(m).finish(),
            ToolErrorKind::Protocol(p) => f.debug_tuple("ToolError::Protocol").field(p).finish(),
            ToolErrorKind::Internal(e) => f.debug_tuple("ToolError::Internal").field(e).finish(),
            ToolErrorKind::Raw(m) => f.debug_tuple("ToolError::Raw").field(m).finish(),
        }
    }
}

// Not `thiserror`: `ToolError` is not a `std::error::Error` on purpose (see `From<E>` below).
impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ToolErrorKind::Visible(m) => f.write_str(m),
            ToolErrorKind::Protocol(p) => fmt::Display::fmt(p, f),
            ToolErrorKind::Internal(e) => fmt::Display::fmt(e, f),
            ToolErrorKind::Raw(m) => f.write_str(m),
        }
    }
}

/// `?` inside a tool turns any error into a hidden internal failure, like `anyhow`: every
/// `E: std::error::Error + Send + Sync + 'static`, `Box<dyn Error + Send + Sync>`,
/// `anyhow::Error` and `eyre::Report` (both convert into that box), and also a `String` or
/// `&str` (what `Box<dyn Error>` accepts). The one bound covers them all: a second blanket impl
/// over `std::error::Error` could not coexist with one for the box (rustc may not assume that
/// std never implements `Error` for it). `ToolError` itself is not a `std::error::Error`, which
/// is what keeps this impl apart from `impl<T> From<T> for T`. A message for the model is always
/// explicit: [`ToolError::new`].
impl<E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::internal(error)
    }
}

/// The error type of a tool returning `Result<T, E>`: [`ToolError`] itself, or an error hidden
/// from the model and logged in full for the operator.
///
/// `M` tells the implementations apart (each `E` matches exactly one, so rustc infers it):
/// [`ToolError`]; any `E: std::error::Error + Send + Sync + 'static`; and any type that
/// dereferences to `dyn Error + Send + Sync` and converts into its box — `Box<dyn Error + Send +
/// Sync>`, `anyhow::Error`, `eyre::Report`. Found by trait, never by name, and with no
/// dependency on those crates. A `String` is not an error type: a message for the model is
/// `ToolError::new(…)`, a hidden one `ToolError::internal(…)`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a tool",
    label = "not `ToolError`, a `std::error::Error`, nor a box of one",
    note = "return `Result<T, mcp_runtime::ToolError>`, or any error type implementing `std::error::Error + Send + Sync + 'static`, `Box<dyn Error + Send + Sync>`, `anyhow::Error` or `eyre::Report` (reported to the model as a hidden failure with an error id, and logged in full)",
    note = "for a message the model should read, return `Err(ToolError::new(message))`, or implement `mcp_runtime::VisibleError` for your error type; to hide a text, `Err(ToolError::internal(message))`"
)]
pub trait IntoToolError<M> {
    /// Converts the error.
    fn into_tool_error(self) -> ToolError;
}

/// How an error type becomes a [`ToolError`]: the marker of [`IntoToolError`]'s implementations.
#[doc(hidden)]
pub mod via {
    /// `ToolError` itself.
    pub enum Itself {}
    /// A `std::error::Error`.
    pub enum StdError {}
    /// A type that dereferences to `dyn Error + Send + Sync` (a box, `anyhow::Error`, `eyre::Report`).
    pub enum DynError {}
}

impl IntoToolError<via::Itself> for ToolError {
    fn into_tool_error(self) -> ToolError {
        self
    }
}

impl<E: std::error::Error + Send + Sync + 'static> IntoToolError<via::StdError> for E {
    fn into_tool_error(self) -> ToolError {
        ToolError::internal(self)
    }
}

impl<E> IntoToolError<via::DynError> for E
where
    E: std::ops::Deref<Target = dyn std::error::Error + Send + Sync + 'static>
        + Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    fn into_tool_error(self) -> ToolError {
        ToolError::internal(self)
    }
}

impl ToolError {
    /// A visible error whose text is sent as is, without the `Error executing tool` prefix.
    pub(crate) fn new_raw(text: String) -> Self {
        ToolError {
            kind: ToolErrorKind::Raw(text),
        }
    }
}
