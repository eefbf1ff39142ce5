//! Transports: each moves lines between a peer and a [`crate::Server`] and nothing more.
//!
//! - [`stdio`]: newline-delimited JSON-RPC over any reader/writer pair, stdin/stdout included.
//! - [`http`]: MCP Streamable HTTP on axum, both eras (feature `http`, on by default).
//! - `lines`: the bounded line reader stdio reads with ([`LineReader`]).
//! - `log`: the stderr log `serve_stdio` and `serve_http` install when the application set none.

#[cfg(feature = "http")]
pub mod http;
mod lines;
pub(crate) mod log;
pub mod stdio;

pub use log::DEFAULT_LOG_FILTER;

pub use stdio::LineReader;

/// Polls `fut` once, here and now. A request whose work is synchronous (most tool calls) is
/// then answered without a task of its own: no spawn, no wake-up of another worker thread.
///
/// The no-op waker is sound: a future that returns `Pending` must register the waker of its
/// next poll, and the task it moves to polls it again at once with a real waker. Request
/// handling contains its own panics (`tool/panic.rs`), so none unwinds into the caller.
pub(crate) fn poll_once<F: std::future::Future + Unpin>(fut: &mut F) -> std::task::Poll<F::Output> {
    std::pin::Pin::new(fut).poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
}
