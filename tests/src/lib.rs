//! Shared pieces of the integration tests: a kit of `#[tool]` test tools, the servers built from
//! them, and peers that talk to a server in memory or over a child process's stdio; the drain
//! tests' tools, which their server binary serves too.

pub mod drain;
pub mod kit;
pub mod peer;
pub mod python;
