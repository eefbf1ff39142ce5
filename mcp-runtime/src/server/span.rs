//! The `tracing` span of one request, named and filled the way OpenTelemetry's semantic
//! conventions for MCP say (<https://github.com/open-telemetry/semantic-conventions-genai>,
//! `docs/gen-ai/mcp.md`, status: development), so `tracing-opentelemetry` exports a server span
//! per request with no code of ours:
//!
//! | field | value |
//! |---|---|
//! | `otel.name` | `{mcp.method.name} {gen_ai.tool.name}` (`tools/call add_task`), or the method |
//! | `otel.kind` | `server` |
//! | `mcp.method.name` | the JSON-RPC method |
//! | `jsonrpc.request.id` | the request id, as text |
//! | `mcp.session.id` | the HTTP session (`Mcp-Session-Id`), in a session |
//! | `mcp.protocol.version` | the version a session negotiated |
//! | `gen_ai.tool.name`, `gen_ai.operation.name` | for `tools/call`: the tool, and `execute_tool` |
//! | `error.type` | `tool_error` for an `isError` result, the JSON-RPC code for an error |
//! | `rpc.response.status_code` | the JSON-RPC error code |
//! | `otel.status_code` | `ERROR` when `error.type` is set |
//! | `outcome` | `ok`, `tool_error`, `error` or `cancelled` (ours) |
//! | `error_id` | the id a hidden failure's log line and `_meta.errorId` carry (ours) |
//! | `duration_ms` | the request's handling time (ours; exporters also time the span) |
//!
//! The span is at `DEBUG` level, target `mcp_runtime::server::span`, like tower-http's request
//! spans: enabled, it costs about 20,000 instructions a request under a `fmt` subscriber (about
//! two thirds of a whole `tools/call`), so the `info` log a server runs with leaves it off. A
//! subscriber that exports traces enables it (`RUST_LOG=info,mcp_runtime::server::span=debug`,
//! or an OpenTelemetry layer without a level filter). When no subscriber wants it, creating it is
//! one check of a cached callsite interest, and nothing here reads the request.

use std::time::Instant;

use serde_json::Value;
use tracing::field::Empty;

use super::reply::ReplyBody;
use crate::context::connection::Connection;
use crate::protocol::{Request, RequestId};

/// One request's span, recorded, and the time it started.
pub(super) struct RequestSpan {
    pub(super) span: tracing::Span,
    start: Instant,
}

impl RequestSpan {
    /// The span for `req` on `conn`; `None` when no subscriber wants it, so that a disabled span
    /// costs the request nothing but the check.
    pub(super) fn new(req: &Request, conn: &Connection) -> Option<Self> {
        let span = tracing::debug_span!(
            "mcp.request",
            otel.name = Empty,
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = req.method.as_str(),
            jsonrpc.request.id = Empty,
            mcp.session.id = Empty,
            mcp.protocol.version = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.operation.name = Empty,
            "error.type" = Empty,
            rpc.response.status_code = Empty,
            outcome = Empty,
            error_id = Empty,
            duration_ms = Empty,
        );
        if span.is_disabled() {
            return None;
        }
        span.record("jsonrpc.request.id", id_text(&req.id).as_str());
        {
            let session = conn.lock_session();
            if let Some(id) = &session.session_id {
                span.record("mcp.session.id", &**id);
            }
            if let Some(h) = &session.handshake {
                span.record("mcp.protocol.version", h.version);
            }
        }
        let tool = (req.method == "tools/call")
            .then(|| req.params.as_ref()?.get("name")?.as_str())
            .flatten();
        match tool {
            Some(tool) => {
                span.record("gen_ai.tool.name", tool);
                span.record("gen_ai.operation.name", "execute_tool");
                span.record("otel.name", format!("{} {tool}", req.method).as_str());
            }
            None => {
                span.record("otel.name", req.method.as_str());
            }
        }
        Some(RequestSpan {
            span,
            start: Instant::now(),
        })
    }

    /// Records how the request ended: `None` when it was cancelled (no response).
    pub(super) fn finish(&self, body: Option<&ReplyBody>) {
        let (outcome, error_id) = match body {
            None => ("cancelled", None),
            Some(ReplyBody::Error(e)) => {
                let code = e.code.to_string();
                self.span.record("error.type", code.as_str());
                self.span.record("rpc.response.status_code", code.as_str());
                let id = e.data.as_ref().and_then(|d| d.get("errorId"));
                ("error", id.and_then(Value::as_str))
            }
            Some(ReplyBody::Call(output, _)) => match output.error() {
                Some(id) => ("tool_error", id),
                None => ("ok", None),
            },
            // A tool's result that reached here as JSON rather than typed.
            Some(ReplyBody::Result(result)) if result["isError"] == true => {
                ("tool_error", result["_meta"]["errorId"].as_str())
            }
            Some(ReplyBody::Result(_) | ReplyBody::Page(_)) => ("ok", None),
        };
        self.record(outcome, error_id);
    }

    fn record(&self, outcome: &str, error_id: Option<&str>) {
        let span = &self.span;
        span.record("duration_ms", self.start.elapsed().as_secs_f64() * 1000.0);
        span.record("outcome", outcome);
        if outcome == "tool_error" {
            span.record("error.type", "tool_error");
        }
        if outcome != "ok" && outcome != "cancelled" {
            span.record("otel.status_code", "ERROR");
        }
        if let Some(id) = error_id {
            span.record("error_id", id);
        }
    }
}

fn id_text(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::BigInteger(s) => s.to_string(),
        RequestId::String(s) => s.clone(),
    }
}
