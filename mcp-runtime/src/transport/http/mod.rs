//! MCP Streamable HTTP on axum: one endpoint (default `/mcp`) that serves both protocol eras.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | the header names, [`router`], [`Server::serve_http`], the method switch and `POST` |
//! | `options.rs` | [`HttpOptions`] and its defaults |
//! | `guard.rs` | the `Origin` and `Host` checks, media types, the body limit |
//! | `session.rs` | handshake-era sessions: open, find, idle sweep, `GET` stream, `DELETE` |
//! | `stateless.rs` | the 2026-07-28 header rules and the status of a JSON-RPC error |
//! | `dispatch.rs` | one message to the server; its answer as JSON or as an event stream |
//! | `sse.rs` | event-stream framing and keep-alive |
//! | `auth.rs` | [`BearerAuth`]: the bearer-token tower layer |
//!
//! - [`router`] is an axum [`Router`] (a tower `Service`) to mount in an application;
//!   [`Server::serve_http`] binds an address and serves it alone.
//! - Every client message is a `POST` of one JSON-RPC message. A notification or a response gets
//!   `202 Accepted`; a request gets one `application/json` response, or a `text/event-stream`
//!   when the call sends notifications (progress, log messages) or, in the handshake era,
//!   requests to the client (elicitation) before its result.
//! - Handshake era (2025-03-26 … 2025-11-25): `initialize` opens a session named by a random
//!   `Mcp-Session-Id`; later messages carry it (missing: 400; unknown or ended: 404). `GET`
//!   opens the session's server-to-client stream, `DELETE` ends the session.
//! - Stateless era (2026-07-28): no session. `MCP-Protocol-Version` must equal the `_meta`
//!   version and `Mcp-Method` / `Mcp-Name` must match the body (else 400, -32020); `GET` and
//!   `DELETE` answer 405. Closing a request's response stream cancels that call, so a replica
//!   behind any load balancer can serve any request.
//! - Security: the `Origin` header, when present, must be allowed (else 403; localhost origins
//!   are allowed by default), the `Host` header must name an allowed host (DNS rebinding;
//!   loopback names by default), and bodies are limited in size (413). [`BearerAuth`] adds a
//!   bearer-token check as a tower layer.
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
//! use mcp_runtime::transport::http::{BearerAuth, HttpOptions, router};
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
mod dispatch;
mod guard;
mod options;
mod session;
mod sse;
mod stateless;

use std::io;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

pub use auth::{BearerAuth, BearerAuthService};
pub use options::HttpOptions;

use crate::error::{ProtocolError, codes};
use crate::protocol::{HANDSHAKE_VERSIONS, Incoming, error_response};
use crate::server::Server;
use dispatch::{Lifetime, dispatch};
use session::{Sessions, find_session, initialize};
use stateless::{is_stateless_message, is_stateless_version, stateless};

/// The session header of the handshake era.
pub const SESSION_ID: &str = "mcp-session-id";
/// The protocol version header.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The stateless era's copy of the body's `method`.
pub const METHOD: &str = "mcp-method";
/// The stateless era's copy of the body's `params.name` (or `params.uri` of `resources/read`).
pub const NAME: &str = "mcp-name";

/// The endpoint for `server`, as an axum [`Router`] to serve alone or merge into an application.
pub fn router(server: &Server, options: HttpOptions) -> Router {
    let path = options.path.clone();
    let state = Arc::new(Endpoint {
        max_body: options
            .max_body_bytes
            .unwrap_or(server.options().max_message_bytes),
        server: server.clone(),
        options,
        sessions: Mutex::default(),
    });
    Router::new()
        .route(&path, axum::routing::any(handle))
        .with_state(state)
}

impl Server {
    /// Serves MCP Streamable HTTP at `/mcp` on `addr` (for example `"127.0.0.1:8080"`) with the
    /// default [`HttpOptions`], until the process ends.
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        self.serve_http_on(listener, HttpOptions::default()).await
    }

    /// Serves MCP Streamable HTTP on a bound listener with `options`.
    pub async fn serve_http_on(
        &self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
    ) -> io::Result<()> {
        if let Ok(addr) = listener.local_addr() {
            tracing::info!(%addr, path = options.endpoint(), "serving MCP over HTTP");
        }
        axum::serve(listener, router(self, options)).await
    }
}

/// What every request of one endpoint shares.
struct Endpoint {
    server: Server,
    options: HttpOptions,
    max_body: usize,
    sessions: Sessions,
}

/// An HTTP-level refusal: a status, and a JSON-RPC error body when there is something to say.
struct Refusal {
    status: StatusCode,
    id: Value,
    error: Option<Box<ProtocolError>>,
}

impl Refusal {
    fn new(status: StatusCode, code: i64, message: impl Into<String>) -> Self {
        Refusal {
            status,
            id: Value::Null,
            error: Some(Box::new(ProtocolError::new(code, message))),
        }
    }

    fn bare(status: StatusCode) -> Self {
        Refusal {
            status,
            id: Value::Null,
            error: None,
        }
    }

    fn with_id(mut self, id: Value) -> Self {
        self.id = id;
        self
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self.error {
            Some(error) => {
                tracing::debug!(status = %self.status, %error, "refused an HTTP request");
                json_response(self.status, &error_response(&self.id, &error))
            }
            None => self.status.into_response(),
        }
    }
}

/// A JSON body with its content type.
fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Every request: the security checks, then the method.
async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(refusal) = guard::check_security(&endpoint.options, &parts.headers) {
        return refusal.into_response();
    }
    let result = match parts.method {
        Method::POST => post(&endpoint, &parts.headers, body).await,
        Method::GET => session::get(&endpoint, &parts.headers),
        Method::DELETE => session::delete(&endpoint, &parts.headers),
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
    if is_stateless_version(header_str(headers, PROTOCOL_VERSION)) {
        HeaderValue::from_static("POST")
    } else {
        HeaderValue::from_static("GET, POST, DELETE")
    }
}

/// A header as trimmed text; `None` when absent or not visible ASCII.
fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

// ---- POST: one client message ----

/// A `POST`: media types, body, then the era decides where the message goes.
async fn post(endpoint: &Endpoint, headers: &HeaderMap, body: Body) -> Result<Response, Refusal> {
    guard::check_post_media(headers)?;
    let bytes = guard::read_body(body, endpoint.max_body).await?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::PARSE_ERROR,
            format!("Parse error: {e}"),
        )
    })?;
    let message = Incoming::from_value(value).map_err(|rejected| Refusal {
        status: StatusCode::BAD_REQUEST,
        id: rejected.id.clone(),
        error: Some(Box::new(rejected.error.clone())),
    })?;

    let version = header_str(headers, PROTOCOL_VERSION);
    let session_id = header_str(headers, SESSION_ID);
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
            let session = find_session(endpoint, id)?;
            Ok(dispatch(endpoint, &session.conn, message, Lifetime::Detached).await)
        }
    }
}
