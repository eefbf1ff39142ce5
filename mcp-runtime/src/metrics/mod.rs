//! Metrics by OpenTelemetry's semantic conventions for MCP (feature `metrics`), recorded
//! through the `opentelemetry` metrics API: any exporter plugs in (OTLP, Prometheus, …).
//!
//! The server records on the [`Meter`](opentelemetry::metrics::Meter) given to
//! [`ServerBuilder::metrics`](crate::ServerBuilder::metrics); without that call nothing is
//! recorded (the global meter provider is not read: a library should not pick the application's
//! provider behind its back). [`Prometheus`] is a ready meter provider for a Prometheus scrape.
//!
//! | instrument | kind | attributes |
//! |---|---|---|
//! | [`OPERATION_DURATION`] `mcp.server.operation.duration` (s) | histogram | `mcp.method.name`, `gen_ai.tool.name` and `gen_ai.operation.name` (`tools/call` of a served tool), `error.type` and `rpc.response.status_code` (when it failed), `mcp.protocol.version`, `network.transport` |
//! | [`SESSION_DURATION`] `mcp.server.session.duration` (s) | histogram | `mcp.protocol.version`, `network.transport` |
//! | [`ACTIVE_SESSIONS`] `mcp.server.active_sessions` | up-down counter (observed) | `network.transport` |
//! | [`ACTIVE_STREAMS`] `mcp.server.active_streams` | up-down counter (observed) | none |
//! | [`ACTIVE_REQUESTS`] `mcp.server.active_requests` | up-down counter (observed) | `mcp.method.name` |
//! | [`ACTIVE_TASKS`] `mcp.server.active_tasks` | up-down counter (observed) | `mcp.task.status` |
//! | [`FINISHED_TASKS`] `mcp.server.finished_tasks` | counter (observed) | `mcp.task.status` |
//!
//! The first two are the conventions' (status: development); the conventions name no gauge,
//! so the others are ours, named after HTTP's `http.server.active_requests`.
//!
//! - A request's operation is timed from the moment the server takes it until its answer is
//!   ready (before the transport writes it). `error.type` is the JSON-RPC error code as text
//!   (`-32602`), `tool_error` for a result with `isError: true`, and (ours) `cancelled` for a
//!   request cancelled before it was answered. Notifications are not recorded.
//! - Every attribute value comes from a fixed set: a method the server does not know is
//!   `_OTHER`, and a tool it does not serve has no `gen_ai.tool.name` (its call is a `-32602`),
//!   so that no client can grow the series without bound.
//! - `network.transport` is `pipe` for stdio (and an in-process client) and `tcp` for HTTP.
//!   `mcp.protocol.version` is a session's negotiated version, or a stateless request's
//!   envelope's (absent when the envelope names none the server serves).
//! - A session is counted by the server that answered its `initialize`, from then until its
//!   connection closes there (`DELETE`, the idle sweep, a session evicted at the cap, the end
//!   of stdio); a replica that serves it from a shared store does not count it again.
//! - Cost (BENCHMARKS.md, "What the metrics cost per call"): about 1,000 instructions per call,
//!   +2 % of a stateless HTTP `tools/call`. The operation histogram is bound to each attribute
//!   set once (the `opentelemetry` API's bound instruments, experimental in 0.33, which the SDK
//!   implements), so that a request's record is a lookup by a cheap key and a direct write, not
//!   a hash of its attributes; the gauges cost it two atomic additions and are read when the
//!   meter's reader collects. A server without a meter pays one check per request. A meter whose
//!   SDK does not implement bound instruments drops the operation histogram's measurements (the
//!   API's default, with a warning): use `opentelemetry_sdk` 0.33, which every exporter here
//!   builds on.
//!
//! | file | what it holds |
//! |---|---|
//! | `names.rs` | the instruments' and attributes' names; the fixed sets of values |
//! | `recorder.rs` | the instruments of one server, a request's timing, a session's clock, the gauges' counts |
//! | `prometheus.rs` | [`Prometheus`]: a meter provider read as Prometheus' text format |
//!
//! The server's side (what a reply means for `error.type`, the tool, the version) is
//! `server/metrics.rs`; the HTTP listener serves [`Prometheus::encode`] at a path of
//! [`HttpOptions::metrics`](crate::transport::http::HttpOptions::metrics).

mod names;
mod prometheus;
mod recorder;

pub(crate) use names::method_index;
// The instruments' and attributes' names are documented in this module's docs; the constants
// stay reachable for tests.
#[doc(hidden)]
pub use names::{
    ACTIVE_REQUESTS, ACTIVE_SESSIONS, ACTIVE_STREAMS, ACTIVE_TASKS, ERROR_TYPE, FINISHED_TASKS,
    METHOD_NAME, NETWORK_TRANSPORT, OPERATION_DURATION, OPERATION_NAME, PROTOCOL_VERSION,
    SESSION_DURATION, STATUS_CODE, TASK_STATUS, TOOL_NAME,
};
#[doc(hidden)]
pub use prometheus::{CONTENT_TYPE, SCOPE};
pub use prometheus::{Prometheus, PrometheusError};
#[doc(hidden)]
pub use recorder::DURATION_BOUNDARIES;
#[cfg(feature = "http")]
pub(crate) use recorder::OpenStream;
pub(crate) use recorder::{Ended, Operation, Recorder, SessionClock, TaskCounts, TaskEnds, Timing};

/// The OpenTelemetry API crate the server records through (the version to build instruments
/// and exporters against).
pub use opentelemetry;
/// The OpenTelemetry SDK crate [`Prometheus`] is built on: for an OTLP exporter's
/// `SdkMeterProvider` of the same version.
pub use opentelemetry_sdk;
