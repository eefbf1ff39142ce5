//! Transports: each moves lines between a peer and a [`crate::Server`] and nothing more.
//!
//! - [`stdio`]: newline-delimited JSON-RPC over any reader/writer pair, stdin/stdout included.
//! - [`http`]: MCP Streamable HTTP on axum, both eras (feature `http`, on by default).
//! - `log`: the stderr log `serve_stdio` and `serve_http` install when the application set none.

#[cfg(feature = "http")]
pub mod http;
mod log;
pub mod stdio;

pub use log::DEFAULT_LOG_FILTER;

pub use stdio::LineReader;
