//! The server's side of the metrics (feature `metrics`, [`crate::metrics`]): the builder's
//! [`ServerBuilder::metrics`], and each request timed: what it names (the tool, the protocol
//! version, the transport) read when it arrives, how it ended (`error.type`) read from its
//! reply. [`Server::handle`] wraps a request's future in [`timed`] when the server records
//! metrics, so that the request's own future is the same size whether it does or not (one
//! allocation more per request when it does); `lifecycle.rs` starts a session's clock at
//! `initialize`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use opentelemetry::metrics::Meter;

use super::Server;
use super::builder::ServerBuilder;
use super::reply::{Reply, ReplyBody};
use crate::context::connection::Connection;
use crate::metrics::{Ended, Operation, Recorder, SessionClock, Timing, method_index};
use crate::protocol::{HANDSHAKE_VERSIONS, Request, STATELESS_VERSIONS, params_meta};

impl ServerBuilder {
    /// Records the server's metrics on `meter` ([`crate::metrics`]: `mcp.server.operation.duration`,
    /// `mcp.server.session.duration` and the gauges), with any exporter its provider has (OTLP,
    /// or [`Prometheus`](crate::metrics::Prometheus) for a scrape). The instruments are made
    /// here, once. Without this call nothing is recorded.
    ///
    /// ```
    /// # use mcp_runtime::prelude::*;
    /// use mcp_runtime::metrics::opentelemetry::metrics::MeterProvider;
    /// use mcp_runtime::metrics::opentelemetry_sdk::metrics::{ManualReader, SdkMeterProvider};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // An OTLP exporter's `PeriodicReader` goes where the `ManualReader` is.
    /// let reader = ManualReader::builder().build();
    /// let provider = SdkMeterProvider::builder().with_reader(reader).build();
    /// let server = Server::builder("calc", "1.0.0")
    ///     .metrics(provider.meter("mcp-runtime"))
    ///     .build()?;
    /// # let _ = server;
    /// # Ok(()) }
    /// ```
    pub fn metrics(mut self, meter: Meter) -> Self {
        self.options.metrics = Some(Arc::new(Recorder::new(&meter)));
        self
    }
}

impl Server {
    /// This server recording its metrics on `meter`, as [`ServerBuilder::metrics`] does, for a
    /// server already built (a command line's `--metrics`); the instruments are made here.
    pub fn with_metrics(&self, meter: Meter) -> Server {
        let mut inner = (*self.inner).clone();
        let recorder = Arc::new(Recorder::new(&meter));
        if let Some(tasks) = &inner.tasks {
            tasks.watched_by(&recorder);
        }
        inner.options.metrics = Some(recorder);
        Server {
            inner: Arc::new(inner),
        }
    }
}

/// A request being timed, and what it names.
pub(super) struct Begun {
    timing: Timing,
    tool: Option<&'static str>,
    version: Option<&'static str>,
    tcp: bool,
    is_call: bool,
}

/// `req` arrives on `conn`: timed and counted in flight when the server records metrics.
pub(super) fn begin(server: &Server, req: &Request, conn: &Connection) -> Option<Begun> {
    let recorder = server.inner.options.metrics.as_ref()?;
    let method = method_index(&req.method);
    let is_call = method == 0;
    let tool = is_call
        .then(|| req.params.as_ref()?.name.as_ref()?.as_str())
        .flatten()
        .and_then(|name| server.tools().get(name))
        .map(|tool| tool.name());
    Some(Begun {
        timing: recorder.begin(method),
        tool,
        version: version(req, conn),
        tcp: conn.is_http(),
        is_call,
    })
}

/// `handled`, timed by `begun` when there is one.
pub(super) fn timed(
    begun: Option<Begun>,
    handled: BoxFuture<'static, Option<Reply>>,
) -> BoxFuture<'static, Option<Reply>> {
    match begun {
        Some(begun) => Box::pin(Timed {
            inner: handled,
            begun: Some(begun),
        }),
        None => handled,
    }
}

/// A request's future, and its timing until it answers. Dropped before (the client went away):
/// no longer counted in flight, and not recorded.
struct Timed {
    inner: BoxFuture<'static, Option<Reply>>,
    begun: Option<Begun>,
}

impl Future for Timed {
    type Output = Option<Reply>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Reply>> {
        let reply = std::task::ready!(self.inner.poll_unpin(cx));
        if let Some(begun) = self.begun.take() {
            begun.finish(reply.as_ref().map(|r| &r.body));
        }
        Poll::Ready(reply)
    }
}

impl Begun {
    /// The request ended with `body` (`None`: cancelled, no response).
    fn finish(self, body: Option<&ReplyBody>) {
        let ended = match body {
            None => Ended::Cancelled,
            Some(ReplyBody::Error(e)) => Ended::Error(e.code),
            Some(ReplyBody::Call(output, _)) if output.error().is_some() => Ended::ToolError,
            Some(ReplyBody::Result(result))
                if self.is_call
                    && result.get("isError").and_then(|v| v.as_bool()) == Some(true) =>
            {
                Ended::ToolError
            }
            Some(_) => Ended::Ok,
        };
        // `initialize`: the version it negotiated, read from its result.
        let version = self.version.or_else(|| match body {
            Some(ReplyBody::Result(result)) => {
                let v = result.get("protocolVersion")?.as_str()?;
                HANDSHAKE_VERSIONS.iter().find(|h| **h == v).copied()
            }
            _ => None,
        });
        let op = Operation {
            tool: self.tool,
            version,
            tcp: self.tcp,
            ended,
        };
        self.timing.finish(op);
    }
}

/// The protocol version of `req`: its stateless envelope's, when it has one the server serves;
/// else its session's.
fn version(req: &Request, conn: &Connection) -> Option<&'static str> {
    let meta = params_meta(req.params.as_deref());
    if let Some(v) = meta.and_then(|m| m.protocol_version.as_ref()) {
        let v = v.as_str()?;
        return STATELESS_VERSIONS.iter().find(|s| **s == v).copied();
    }
    let session = conn.lock_session();
    session.handshake.as_ref().map(|h| h.version)
}

/// `initialize` answered on `conn` with `version`: the session's clock starts.
pub(super) fn session_opened(server: &Server, conn: &Connection, version: &'static str) {
    if let Some(recorder) = &server.inner.options.metrics {
        let clock = SessionClock::start(recorder, version, conn.is_http());
        conn.lock_session().clock = Some(clock);
    }
}
