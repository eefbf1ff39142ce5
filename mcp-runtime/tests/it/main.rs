//! mcp-runtime's integration tests, one binary: each module below was a test file of its own.
//! One binary links the tree once instead of once per file (ARCHITECTURE.md, "Tests"). Every
//! module is `pub`, as each file's items were when it was a crate of its own: the modules that
//! `#![deny(missing_docs)]` are linted on what they export, and nothing public reads as dead.

pub mod common;
#[path = "../shared/inexact.rs"]
pub mod inexact;
pub mod wild;

#[cfg(feature = "auth")]
pub mod auth;
pub mod backpressure;
pub mod completion;
pub mod contract;
pub mod crash_proof;
pub mod differential;
pub mod elicitation_limits;
pub mod error_types;
pub mod flatten;
pub mod formats;
pub mod formats_served;
pub mod hand_expanded;
pub mod hidden_failures;
pub mod http_limits;
pub mod macro_tools;
pub mod methods;
#[cfg(feature = "metrics")]
pub mod metrics;
pub mod pattern_consts;
pub mod prompts;
pub mod resource_results;
pub mod resource_uris;
pub mod resources;
pub mod resume;
pub mod sampling;
pub mod slow_tools;
pub mod spans;
pub mod subscriptions;
pub mod subscriptions_http;
pub mod tasks;
pub mod tool_sets;
pub mod union_messages;
pub mod visible_errors;
pub mod wild_types;
