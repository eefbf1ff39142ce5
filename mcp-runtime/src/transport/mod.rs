//! Transports: each moves lines between a peer and a [`crate::Server`] and nothing more.
//!
//! - [`stdio`]: newline-delimited JSON-RPC over any reader/writer pair, stdin/stdout included.
//! - [`http`]: MCP Streamable HTTP on axum, both eras (feature `http`, on by default).

#[cfg(feature = "http")]
pub mod http;
pub mod stdio;

pub use stdio::LineReader;
