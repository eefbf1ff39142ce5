//! MCP Streamable HTTP on axum: one endpoint (default `/mcp`) that serves both protocol eras.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`router`], [`Server::serve_http`], the method switch and `POST` |
//! | `headers.rs`, `refusal.rs` | the headers of Streamable HTTP; the answers that are not a handler's (HTTP-level refusals and their JSON bodies) |
//! | `options.rs` | [`HttpOptions`] and its defaults |
//! | `guard.rs` | the headers every request reads, found in one pass; the `Origin` and `Host` checks, media types, the body limit and timeout |
//! | `listener.rs` | [`Server::serve_http_on`]'s accept loop ([`Server::serve_http_until`]: then the drain): connection cap, each connection served (the endpoint called without the router when its path is literal) |
//! | `watch.rs` | the listener's header timeout: one sweeper per listener instead of a timer per request |
//! | `session/` | handshake-era sessions: open, find, cap, idle sweep (`mod.rs`); the live table (`table.rs`), each live session (`live.rs`), the `GET` stream and `DELETE` (`getstream.rs`) |
//! | `relay.rs` | a client message about a call on another replica, handed on through the store's relay |
//! | `store/` | [`SessionStore`]: where sessions are kept (in memory; in Redis with `redis`) |
//! | `stateless.rs` | the 2026-07-28 header rules |
//! | `dispatch.rs` | one message to the server; its answer as JSON or as an event stream (in the stateless era with the status of a JSON-RPC error) |
//! | `frames.rs` | a call's response stream (`Frames`) and the task running the call (`CallTask`, `Lifetime`) |
//! | `batch.rs` | a batch on a 2025-03-26 session: its answers as one JSON array |
//! | `resume.rs` | resumable streams: each session stream's events recorded in the event store, `Last-Event-ID` replay and follow |
//! | `sse.rs` | event-stream framing and keep-alive |
//! | `ops.rs` | the liveness and readiness probes; the drain's refusals and stream ends |
//! | `auth.rs` | [`BearerAuth`]: the bearer-token tower layer |
//!
//! - [`router`] is an axum [`Router`] (a tower `Service`) to mount in an application;
//!   [`Server::serve_http`] binds an address and serves it alone.
//! - Every client message is a `POST` of one JSON-RPC message (or, on a session that negotiated
//!   2025-03-26, a batch of them, answered with one JSON array; see `batch.rs`). A notification or a response gets
//!   `202 Accepted`; a request gets one `application/json` response, or a `text/event-stream`
//!   when the call sends notifications (progress, log messages) or, in the handshake era,
//!   requests to the client (elicitation) before its result.
//! - Handshake era (2025-03-26 … 2025-11-25): `initialize` opens a session named by a random
//!   `Mcp-Session-Id`; later messages carry it (missing: 400; unknown or ended: 404). `GET`
//!   opens the session's server-to-client stream, `DELETE` ends the session.
//! - Stateless era (2026-07-28): no session. `MCP-Protocol-Version` must equal the `_meta`
//!   version and `Mcp-Method` / `Mcp-Name` must match the body (else 400, -32020); `GET` and
//!   `DELETE` answer 405. Closing a request's response stream cancels that call, so a replica
//!   behind any load balancer can serve any request. A `subscriptions/listen` is answered with
//!   an event stream that stays open (its acknowledgement first, then the change notifications
//!   it opted in to) until the client closes it.
//! - Security: the `Origin` header, when present, must be allowed (else 403; localhost origins
//!   are allowed by default), the `Host` header must name an allowed host (DNS rebinding;
//!   loopback names by default), and bodies are limited in size (413). [`BearerAuth`] adds a
//!   bearer-token check as a tower layer.
//! - Limits (each set on [`HttpOptions`]): a client has 10 s and 64 KiB to send a request's
//!   headers (431 over the size) and 30 s for its body (408); [`Server::serve_http_on`] serves 512 connections at once and
//!   answers more with `503` and `Retry-After`; at most 10,000 sessions are open (a new one ends
//!   the one idle longest) and idle ones are swept by a background task; a session has at most
//!   64 requests in flight (one more gets a JSON-RPC error, [`SERVER_BUSY`]).
//! - An application that serves [`router`] with its own server (`axum::serve`, hyper) brings its
//!   own connection limits: the header read timeout on its HTTP/1 builder, and a bound on
//!   requests at once, for example tower's `ConcurrencyLimitLayer` under a `LoadShedLayer`.
//!
//! ```no_run
//! # use mcp_runtime::prelude::*;
//! # async fn run(server: Server) -> std::io::Result<()> {
//! // Alone, on loopback:
//! server.serve_http("127.0.0.1:8080").await?;
//! # Ok(()) }
//! ```
//!
//! Mounted in an application, behind a bearer token:
//!
//! ```no_run
//! # use mcp_runtime::prelude::*;
//! use mcp_runtime::http::{BearerAuth, HttpOptions, router};
//!
//! # async fn run(server: Server) -> std::io::Result<()> {
//! let mcp = router(&server, HttpOptions::default().allow_host("mcp.example.com"))
//!     .layer(BearerAuth::new(std::env::var("MCP_TOKEN").unwrap_or_default()));
//! let app = axum::Router::new()
//!     .route("/health", axum::routing::get(|| async { "ok" }))
//!     .merge(mcp);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! axum::serve(listener, app).await
//! # }
//! ```

mod auth;
mod batch;
mod dispatch;
mod frames;
mod guard;
mod headers;
mod listener;
mod ops;
mod options;
mod refusal;
mod relay;
mod resume;
mod session;
mod sse;
mod stateless;
#[doc(hidden)]
pub mod store;
mod watch;

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub use auth::BearerAuth;
#[doc(hidden)]
pub use auth::BearerAuthService;
pub use options::HttpOptions;
// The stores are named here, at `http::`: a custom store implements these traits.
pub use store::{
    MemoryEventStore, MemorySessionStore, SessionRecord, SessionStore, StoreError, StoreFuture,
};
#[cfg(feature = "redis")]
pub use store::{RedisEventStore, RedisOptions, RedisSessionStore};
// An event store's and a fleet relay's own types: the stores above implement them; a store of
// another kind is not yet a promised API.
#[doc(hidden)]
pub use store::{
    EventId, EventKind, EventStore, Relay, RelayKind, Relayed, StoredEvent, StreamKey, Stretch,
};

use crate::error::{ProtocolError, codes};
use crate::protocol::subscriptions::LISTEN;
use crate::protocol::{HANDSHAKE_VERSIONS, Incoming, RequestId};
#[cfg(feature = "auth")]
use crate::server::scopes::Named;
use crate::server::{Reply, Server, batch_items};
use dispatch::dispatch;
use frames::Lifetime;
use refusal::{Refusal, json_body, json_response, reply_response};
use session::{Sessions, find_session, initialize};
use stateless::{is_stateless_message, is_stateless_version, stateless};

// The headers' names and the load-refusal code: tests name them, users read them in the docs.
use headers::names;
#[doc(hidden)]
pub use headers::{LAST_EVENT_ID, METHOD, NAME, PROTOCOL_VERSION, SERVER_BUSY, SESSION_ID};

/// The endpoint for `server`, as an axum [`Router`] to serve alone or merge into an application.
pub fn router(server: &Server, options: HttpOptions) -> Router {
    serve_endpoint(Arc::new(Endpoint::new(server, options)))
}

/// The router of `endpoint`.
fn serve_endpoint(endpoint: Arc<Endpoint>) -> Router {
    #[cfg(feature = "auth")]
    if let Some(guard) = endpoint.guard.clone() {
        return crate::auth::protect(plain_router(endpoint), &guard);
    }
    plain_router(endpoint)
}

/// The router of `endpoint` without authorization: the endpoint at its path.
fn plain_router(endpoint: Arc<Endpoint>) -> Router {
    let path = endpoint.options.path.clone();
    Router::new()
        .route(&path, axum::routing::any(handle::<Body>))
        .with_state(endpoint)
}

/// The check in front of the endpoint at `options.path` when it has authorization, with the
/// scopes `server` declares.
#[cfg(feature = "auth")]
fn guard_of(server: &Server, options: &HttpOptions, max_body: usize) -> Option<crate::auth::Guard> {
    let auth = options.auth.clone()?.with_declared(server);
    Some(crate::auth::Guard::new(
        &options.path,
        &auth,
        max_body,
        options.body_read_timeout,
    ))
}

/// What every request of one endpoint shares.
struct Endpoint {
    server: Server,
    options: HttpOptions,
    max_body: usize,
    sessions: Sessions,
    drain: Arc<crate::server::drain::Drain>,
    /// The authorization in front of the endpoint, whose scopes of what a body names the
    /// endpoint checks once it has read the body.
    #[cfg(feature = "auth")]
    guard: Option<crate::auth::Guard>,
}

impl Endpoint {
    /// Must run on a tokio runtime when the store relays between replicas (its listener starts).
    fn new(server: &Server, options: HttpOptions) -> Self {
        let sessions = Sessions::new(options.session_store.0.clone(), options.session_idle);
        if tokio::runtime::Handle::try_current().is_ok() {
            sessions.join_fleet(server);
        }
        let max_body = options
            .max_body_bytes
            .unwrap_or(server.options().max_message_bytes);
        Endpoint {
            #[cfg(feature = "auth")]
            guard: guard_of(server, &options, max_body),
            max_body,
            server: server.clone(),
            drain: crate::server::drain::Drain::new(server.options().drain_timeout),
            sessions,
            options,
        }
    }
}

/// Every request: the security checks, then the method. Generic over the body so that the
/// server's own connections hand hyper's body in as it is (an axum `Body` would box it: an
/// allocation and a dynamic call per read); [`router`] serves it with axum's.
async fn handle<B>(
    State(endpoint): State<Arc<Endpoint>>,
    request: axum::http::Request<B>,
) -> Response
where
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    let (parts, body) = request.into_parts();
    let headers = guard::Headers::read(&parts.headers);
    if let Err(refusal) = guard::check_security(&endpoint.options, &headers) {
        return refusal.into_response();
    }
    if let Some(why) = headers.session_id_fault() {
        let message = format!("Bad Request: {why}");
        return Refusal::new(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, message)
            .into_response();
    }
    let result = match parts.method {
        Method::POST => post(&endpoint, &headers, body).await,
        // A draining replica opens no stream: the client opens it (or resumes it) elsewhere.
        Method::GET if endpoint.drain.is_draining() => Err(ops::draining()),
        Method::GET => session::get(&endpoint, &parts.headers).await,
        Method::DELETE => session::delete(&endpoint, &parts.headers).await,
        _ => Err(Refusal::bare(StatusCode::METHOD_NOT_ALLOWED)),
    };
    let mut response = result.unwrap_or_else(IntoResponse::into_response);
    if response.status() == StatusCode::METHOD_NOT_ALLOWED {
        response
            .headers_mut()
            .insert(header::ALLOW, allowed_methods(&parts.headers));
    }
    response
}

/// The `Allow` header of a 405: the stateless era has only `POST`.
fn allowed_methods(headers: &HeaderMap) -> HeaderValue {
    if is_stateless_version(header_str(headers, &names::PROTOCOL_VERSION)) {
        HeaderValue::from_static("POST")
    } else {
        HeaderValue::from_static("GET, POST, DELETE")
    }
}

/// A header as trimmed text; `None` when absent or not visible ASCII.
fn header_str<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Option<&'h str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

// ---- POST: one client message ----

/// A `POST`: media types, body, then the era decides where the message goes.
async fn post<B>(
    endpoint: &Endpoint,
    headers: &guard::Headers<'_>,
    body: B,
) -> Result<Response, Refusal>
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<axum::BoxError>,
{
    guard::check_post_media(headers)?;
    let bytes =
        guard::read_body(body, endpoint.max_body, endpoint.options.body_read_timeout).await?;
    let version = headers.protocol_version();
    let session_id = headers.session_id();
    let batch = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    if batch && endpoint.drain.is_draining() {
        return Err(ops::draining());
    }
    if batch && let Some(id) = session_id {
        let session = find_session(endpoint, id).await?;
        if endpoint.server.accepts_batches(&session.conn)
            && let Some(items) = batch_items(&bytes)
        {
            #[cfg(feature = "auth")]
            if let Some(guard) = &endpoint.guard {
                let named: Vec<_> = items.iter().flatten().map(Named::of_incoming).collect();
                if let Some(refused) = guard.check(headers.map, &named) {
                    return Ok(refused);
                }
            }
            return Ok(batch::post(endpoint, &session, items).await);
        }
    }
    // Read from the text, not through a `Value`: an id beyond 64 bits stays exact.
    let message = Incoming::parse(&bytes).map_err(|rejected| Refusal {
        status: StatusCode::BAD_REQUEST,
        id: rejected.id,
        error: Some(Box::new(rejected.error)),
    })?;
    #[cfg(feature = "auth")]
    if let Some(guard) = &endpoint.guard
        && let Some(refused) = guard.check(headers.map, &[Named::of_incoming(&message)])
    {
        return Ok(refused);
    }
    // Draining: a request is refused before any work; a notification or a response (an answer
    // to a call in flight, a cancellation) still lets a call finish.
    if let Incoming::Request(req) = &message
        && endpoint.drain.is_draining()
    {
        return Err(ops::draining().with_id(&req.id));
    }

    if session_id.is_none() && is_stateless_message(&message, version) {
        return stateless(endpoint, headers, message).await;
    }
    if let Some(v) = version
        && !HANDSHAKE_VERSIONS.contains(&v)
    {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            format!("Bad Request: unsupported MCP-Protocol-Version: {v}"),
        ));
    }
    match (session_id, &message) {
        (None, Incoming::Request(req)) if req.method == "initialize" => {
            initialize(endpoint, message).await
        }
        (None, _) => Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: missing Mcp-Session-Id; send initialize first, or use the stateless \
             protocol version with a `_meta` envelope",
        )),
        (Some(id), _) => {
            let session = find_session(endpoint, id).await?;
            // Only requests count: a notification (`notifications/cancelled` above all) or a
            // response to the server is never refused, as it is what lets calls finish.
            let slot = match &message {
                Incoming::Request(req) => {
                    let cap = endpoint.options.max_in_flight_per_session;
                    match session.begin_request(cap) {
                        Some(slot) => Some(slot),
                        None => return Ok(session_busy(&req.id, cap)),
                    }
                }
                _ => None,
            };
            let sessions = &endpoint.sessions;
            let elsewhere = sessions.relays() && relay::elsewhere(&session.conn, &message);
            // A listen lives as long as its response stream, in a session too: "Closing the
            // SSE response stream is the cancellation signal" (2026-07-28,
            // basic/patterns/cancellation). Other calls of a session run on.
            let lifetime = match &message {
                Incoming::Request(req) if req.method == LISTEN => Lifetime::Request,
                _ => Lifetime::Detached,
            };
            // The session's streams are recorded (see `resume.rs`); a listen's is not resumed.
            let resumable = (lifetime == Lifetime::Detached).then_some(id);
            let response = dispatch(
                endpoint,
                &session.conn,
                message,
                lifetime,
                slot,
                resumable,
                None,
            )
            .await;
            if elsewhere {
                sessions.hand_on(id, &bytes).await?;
            }
            sessions
                .persist(id, &session, endpoint.options.session_idle)
                .await;
            Ok(response)
        }
    }
}

/// The answer to a request over a session's in-flight cap: `200 OK` with a JSON-RPC error for
/// the request's id, not `429 Too Many Requests`. The Streamable HTTP transport answers a POSTed
/// request with its JSON-RPC response, and every MCP client matches a response to its pending
/// request by id: this error fails exactly that request, which the client may retry, while the
/// session and its other calls go on. An HTTP error status carries no request id; MCP clients
/// treat it as a failure of the transport rather than of one request (the session's other
/// requests can be torn down with it, or the request left waiting for its own timeout).
fn session_busy(id: &RequestId, cap: usize) -> Response {
    reply_response(StatusCode::OK, &busy_reply(id, cap))
}

/// The JSON-RPC error of a request over its session's in-flight cap.
fn busy_reply(id: &RequestId, cap: usize) -> Reply {
    tracing::warn!(
        cap,
        "a session is over its in-flight cap; refused a request"
    );
    let error = ProtocolError::new(
        SERVER_BUSY,
        format!("Server busy: this session already has {cap} requests in flight; retry later"),
    );
    Reply::error(Some(id.clone()), error)
}
