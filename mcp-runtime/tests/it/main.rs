//! mcp-runtime's integration tests, one binary: each module below was a test file of its own.
//! One binary links the tree once instead of once per file (ARCHITECTURE.md, "Tests"). The
//! modules that `#![deny(missing_docs)]` are `pub`, so that the lint sees what they export.

#[path = "../shared/inexact.rs"]
mod inexact;
mod common;
mod wild;

mod backpressure;
mod completion;
mod crash_proof;
mod differential;
mod elicitation_limits;
mod error_types;
pub mod flatten;
mod hand_expanded;
mod hidden_failures;
mod http_limits;
pub mod macro_tools;
pub mod methods;
mod prompts;
mod resource_uris;
mod resources;
mod resume;
mod slow_tools;
mod spans;
mod subscriptions;
mod subscriptions_http;
mod tasks;
mod tool_sets;
pub mod union_messages;
mod wild_types;
