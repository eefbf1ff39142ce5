//! The accept loop of [`Server::serve_http_on`]: HTTP/1 connections with a header read timeout
//! (slowloris; kept by `watch.rs`), and a cap on connections served at once so that a flood gets
//! `503` instead of exhausting the process's file descriptors. Each request goes to the endpoint
//! (`App`): called directly when its path is literal, as the router would after comparing paths.
//!
//! [`Server::serve_http_on`]: crate::server::Server::serve_http_on

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

use super::options::HttpOptions;
use super::watch::{Watch, Watchdog, WatchedBody, WatchedStream};
use super::{Endpoint, Refusal, SERVER_BUSY};
use crate::server::Server;

/// Connections over the cap that are answered `503` at once; past these, a connection is closed
/// without an answer (each one answered holds a file descriptor until its request is read).
const MAX_REFUSING: usize = 64;

/// The most of a refused request's body read (and dropped) before the `503`, so that closing the
/// connection does not reset it before the client reads the answer.
const REFUSED_BODY_BYTES: usize = 64 * 1024;

/// How long to wait before accepting again when `accept` fails for want of resources
/// (`EMFILE`, `ENFILE`, `ENOBUFS`).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

impl Server {
    /// Serves MCP Streamable HTTP at `/mcp` on `addr` (for example `"127.0.0.1:8080"`) with the
    /// default [`HttpOptions`], until the process ends.
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        self.serve_http_on(listener, HttpOptions::default()).await
    }

    /// Serves MCP Streamable HTTP on a bound listener with `options`, over HTTP/1.1, until the
    /// process ends ([`Server::serve_http_until`] drains when a future resolves), with the
    /// liveness and readiness probes ([`HttpOptions::health_path`]). Beyond [`router`](super::router)'s checks, this server closes a connection whose client
    /// takes longer than [`HttpOptions::header_read_timeout`] to send a request's headers, and
    /// serves at most [`HttpOptions::max_connections`] connections at once: one more is answered
    /// `503 Service Unavailable` with `Retry-After` and closed, and the listener keeps
    /// accepting. Failures to accept (out of file descriptors) are retried, never returned.
    pub async fn serve_http_on(
        &self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
    ) -> io::Result<()> {
        self.serve_http_until(listener, options, std::future::pending())
            .await
    }

    /// [`Server::serve_http_on`] until `shutdown` resolves, then drains
    /// ([`Shutdown`](crate::server::Shutdown)): readiness (`/readyz`) answers `503` at once and new requests
    /// get `503` with `Retry-After`; calls in flight get
    /// [`ServerOptions::drain_timeout`](crate::server::ServerOptions::drain_timeout) to finish, then are
    /// answered with a retryable JSON-RPC error; running tasks still running then end `failed`;
    /// the streams a client can resume on another replica end with an SSE `retry` field.
    /// Returns `Ok(())` once everything is answered and the connections are closed.
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// # async fn run(server: Server) -> std::io::Result<()> {
    /// use mcp_runtime::Shutdown;
    /// use mcp_runtime::http::HttpOptions;
    ///
    /// let shutdown = Shutdown::new();
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// // Elsewhere (a signal handler, an admin command): `shutdown.trigger()`.
    /// server
    ///     .serve_http_until(listener, HttpOptions::default(), shutdown.triggered())
    ///     .await
    /// # }
    /// ```
    pub async fn serve_http_until(
        &self,
        listener: tokio::net::TcpListener,
        #[allow(unused_mut)] mut options: HttpOptions,
        shutdown: impl Future<Output = ()> + Send,
    ) -> io::Result<()> {
        crate::transport::log::install_default_subscriber(self);
        #[cfg(feature = "auth")]
        if let Some(auth) = options.auth.take() {
            (auth.clone().with_declared(self))
                .check()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
            let addr = listener.local_addr()?;
            options.auth = Some(auth.default_resource(&format!("http://{addr}{}", options.path)));
        }
        if let Ok(addr) = listener.local_addr() {
            tracing::info!(%addr, path = options.endpoint(), "serving MCP over HTTP");
        }
        let endpoint = Arc::new(Endpoint::new(self, options.clone()));
        serve(listener, endpoint, &options, shutdown).await
    }
}

/// How long connections get to close once a drain is over (graceful: each finishes the
/// response it is writing), and how long calls cut short at the deadline get to write their
/// errors.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Serves `endpoint` on `listener` until `shutdown` resolves, then drains (`ops.rs`): the
/// listener keeps accepting while calls finish, so that probes and new requests get their
/// `503`, and closes once they are done.
pub(super) async fn serve(
    listener: TcpListener,
    endpoint: Arc<Endpoint>,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(options.max_connections));
    let accepting = accept(listener, endpoint.clone(), options, slots.clone());
    let drained = async {
        shutdown.await;
        super::ops::drain(&endpoint, CLOSE_GRACE).await;
    };
    tokio::select! {
        result = accepting => return result,
        () = drained => {}
    }
    // The listener is closed now; each connection finishes the response it is writing, then
    // closes.
    let closed = async {
        while slots.available_permits() < options.max_connections {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let _ = tokio::time::timeout(CLOSE_GRACE, closed).await;
    tracing::info!("drained; no longer serving");
    Ok(())
}

/// Accepts connections and serves each, until it fails (it never does: errors are retried).
async fn accept(
    listener: TcpListener,
    endpoint: Arc<Endpoint>,
    options: &HttpOptions,
    slots: Arc<Semaphore>,
) -> io::Result<()> {
    let app = App::new(endpoint);
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let head = Head {
        timeout: options.header_read_timeout,
        max_bytes: options.max_header_bytes,
    };
    let body_timeout = options.body_read_timeout;
    let watchdog = Watchdog::start(head.timeout);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _peer)) => stream,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                tracing::warn!(error = %e, "accepting a connection failed; retrying");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        if let Ok(slot) = slots.clone().try_acquire_owned() {
            let watch = watchdog.watch();
            tokio::spawn(serve_connection(stream, app.clone(), head, watch, slot));
        } else if let Ok(slot) = refusing.clone().try_acquire_owned() {
            tracing::warn!(
                max = options.max_connections,
                "too many connections; answering 503"
            );
            tokio::spawn(refuse_connection(stream, head, body_timeout, slot));
        } else {
            tracing::warn!("too many connections; closing one unanswered");
        }
    }
}

/// An error of one incoming connection, not of the listener: accept the next one at once.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// What a client may take to send a request's head (request line and headers): time and bytes.
#[derive(Clone, Copy)]
struct Head {
    timeout: Duration,
    max_bytes: usize,
}

/// An HTTP/1 connection builder whose requests' heads may be up to `head.max_bytes` (more gets
/// `431 Request Header Fields Too Large`).
fn http1_builder(head: Head) -> http1::Builder {
    let mut builder = http1::Builder::new();
    // hyper's own floor: a smaller read buffer would panic.
    builder.max_buf_size(head.max_bytes.max(MIN_HEADER_BYTES));
    builder
}

/// The smallest head limit hyper accepts (its read buffer's minimum).
const MIN_HEADER_BYTES: usize = 8192;

/// What the connections serve: the endpoint at its path. A literal path (the default `/mcp`) is
/// compared here and the endpoint called directly, which is all [`super::router`]'s `Router`
/// would do for it (any method goes to the endpoint; any other path is `404` with no body), at
/// about 4,400 fewer instructions per request (`BENCHMARKS.md`). A path with captures
/// (`{tenant}`) is matched by that router.
#[derive(Clone)]
enum App {
    Direct(Arc<Endpoint>),
    Routed(Arc<Endpoint>, Router),
    /// With authorization at a literal path: the endpoint's requests checked and served here;
    /// the router serves the metadata and answers other paths.
    #[cfg(feature = "auth")]
    Guarded(Arc<Endpoint>, crate::auth::Guard, Router),
}

impl App {
    fn new(endpoint: Arc<Endpoint>) -> Self {
        // The router is built either way: making it checks the path as `router` does (a path
        // that does not start with `/` panics here, when serving starts, not later).
        let literal = !endpoint.options.path.contains(['{', '}']);
        #[cfg(feature = "auth")]
        if let Some(guard) = endpoint.guard.clone() {
            let router = crate::auth::protect(super::plain_router(endpoint.clone()), &guard);
            return match literal {
                true => App::Guarded(endpoint, guard, router),
                false => App::Routed(endpoint, router),
            };
        }
        let router = super::plain_router(endpoint.clone());
        match literal {
            true => App::Direct(endpoint),
            false => App::Routed(endpoint, router),
        }
    }

    fn endpoint(&self) -> &Arc<Endpoint> {
        match self {
            App::Direct(endpoint) | App::Routed(endpoint, _) => endpoint,
            #[cfg(feature = "auth")]
            App::Guarded(endpoint, _, _) => endpoint,
        }
    }

    async fn call(self, request: hyper::Request<Incoming>) -> Response {
        // The probes come first: no `Origin`, `Host` or MCP header rule applies to them.
        if let Some(response) = super::ops::probe(self.endpoint(), request.uri().path()).await {
            return response;
        }
        match self {
            App::Direct(endpoint) if request.uri().path() == endpoint.options.path => {
                super::handle(State(endpoint), request).await
            }
            App::Direct(_) => StatusCode::NOT_FOUND.into_response(),
            #[cfg(feature = "auth")]
            App::Guarded(endpoint, guard, _) if request.uri().path() == endpoint.options.path => {
                let endpoint = tower::service_fn(move |request: axum::extract::Request| {
                    let endpoint = endpoint.clone();
                    async move { Ok(super::handle(State(endpoint), request).await) }
                });
                // Boxed: the check's future inline would make every request's future (this
                // one, without auth too) several KiB larger, and moving it costs each call
                // about 13,000 instructions (callgrind, BENCHMARKS.md).
                Box::pin(guard.serve(endpoint, request.map(axum::body::Body::new))).await
            }
            #[cfg(feature = "auth")]
            App::Guarded(_, _, router) => serve_routed(router, request).await,
            App::Routed(_, router) => serve_routed(router, request).await,
        }
    }
}

async fn serve_routed(router: Router, request: hyper::Request<Incoming>) -> Response {
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// One connection within the cap, holding its `slot` until it closes. Its head deadline is kept
/// by `watch` (the socket and each request's response body report to it).
async fn serve_connection(
    stream: TcpStream,
    app: App,
    head: Head,
    watch: Arc<Watch>,
    slot: OwnedSemaphorePermit,
) {
    let io = WatchedStream {
        stream,
        watch: watch.clone(),
    };
    let drain = app.endpoint().drain.clone();
    let closing = drain.closing();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let in_hand = watch.begin();
        let response = app.clone().call(request);
        // A request that arrives while draining (refused, or a probe) closes its connection:
        // the client takes its next request to a new one (elsewhere). One that was in flight
        // when the drain began keeps it until the drain's end closes it gracefully.
        let draining = drain.is_draining();
        async move {
            let mut response = response.await;
            if draining {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            Ok::<_, Infallible>(response.map(|body| WatchedBody {
                body,
                _in_hand: in_hand,
            }))
        }
    });
    let connection = http1_builder(head).serve_connection(TokioIo::new(io), service);
    let mut connection = std::pin::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = closing => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(error = %e, "an HTTP connection ended with an error");
    }
    drop(slot);
}

/// One connection over the cap: its first request is answered `503` with `Retry-After`, and the
/// connection closes.
async fn refuse_connection(
    stream: TcpStream,
    head: Head,
    body_timeout: Duration,
    slot: OwnedSemaphorePermit,
) {
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| async move {
        let body = Limited::new(request.into_body(), REFUSED_BODY_BYTES);
        let _ = tokio::time::timeout(body_timeout, body.collect()).await;
        Ok::<Response, Infallible>(
            Refusal::new(
                StatusCode::SERVICE_UNAVAILABLE,
                SERVER_BUSY,
                "Service Unavailable: too many connections; retry shortly",
            )
            .into_response(),
        )
    });
    // Answered once and closed: hyper's timer keeps this one's head deadline.
    let result = http1_builder(head)
        .timer(TokioTimer::new())
        .header_read_timeout(head.timeout)
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service)
        .await;
    if let Err(e) = result {
        tracing::debug!(error = %e, "a refused HTTP connection ended with an error");
    }
    drop(slot);
}
