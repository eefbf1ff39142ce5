//! The official Python SDK as a test peer: where its virtualenv is, and what to do without it
//! (skip, or fail under `MCP_INTEROP_REQUIRED`); shared with every crate's tests.

pub use test_support::python::*;
pub use test_support::repo;
