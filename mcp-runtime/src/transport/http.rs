//! MCP Streamable HTTP on axum: one endpoint (default `/mcp`) that serves both protocol eras.
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

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;
use futures::stream::{self, Stream, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::context::connection::{Connection, lock};
use crate::error::{ProtocolError, codes};
use crate::protocol::stateless::{PROTOCOL_VERSION_KEY, unsupported_version};
use crate::protocol::{
    HANDSHAKE_VERSIONS, Incoming, Request as RpcRequest, STATELESS_VERSIONS, error_response,
    params_meta,
};
use crate::server::Server;

/// The session header of the handshake era.
pub const SESSION_ID: &str = "mcp-session-id";
/// The protocol version header.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The stateless era's copy of the body's `method`.
pub const METHOD: &str = "mcp-method";
/// The stateless era's copy of the body's `params.name` (or `params.uri` of `resources/read`).
pub const NAME: &str = "mcp-name";

/// How the HTTP endpoint is served: its path and its security checks.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    path: String,
    origins: Vec<String>,
    any_origin: bool,
    localhost_origins: bool,
    hosts: Vec<String>,
    any_host: bool,
    max_body_bytes: Option<usize>,
    keep_alive: Duration,
    session_idle: Duration,
}

impl Default for HttpOptions {
    /// `/mcp`; localhost origins and loopback host names only; the server's message limit as the
    /// body limit; an SSE keep-alive comment every 15 seconds; sessions end after an idle hour.
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            origins: Vec::new(),
            any_origin: false,
            localhost_origins: true,
            hosts: LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect(),
            any_host: false,
            max_body_bytes: None,
            keep_alive: Duration::from_secs(15),
            session_idle: Duration::from_secs(3600),
        }
    }
}

const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

impl HttpOptions {
    /// The endpoint's path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Allows requests whose `Origin` is exactly `origin` (`https://app.example.com`, with a port
    /// when it is not the scheme's default). Requests without an `Origin` are always allowed:
    /// browsers send one, other clients need not.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.origins
            .push(origin.into().trim_end_matches('/').to_ascii_lowercase());
        self
    }

    /// Allows every `Origin`. Only for a server that no browser on a user's machine can reach,
    /// or that checks credentials itself.
    pub fn allow_any_origin(mut self) -> Self {
        self.any_origin = true;
        self
    }

    /// Refuses localhost origins too, unless listed with [`HttpOptions::allow_origin`].
    pub fn deny_localhost_origins(mut self) -> Self {
        self.localhost_origins = false;
        self
    }

    /// Accepts requests whose `Host` names `host` (a name or address, without the port). The
    /// loopback names are accepted by default; a server reached under another name lists it.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Accepts any `Host` (turns DNS-rebinding protection off): for a server behind a proxy
    /// that checks the host itself.
    pub fn allow_any_host(mut self) -> Self {
        self.any_host = true;
        self
    }

    /// The largest request body, in bytes (default: the server's `max_message_bytes`).
    pub fn max_body_bytes(mut self, n: usize) -> Self {
        self.max_body_bytes = Some(n);
        self
    }

    /// How often an idle event stream gets a keep-alive comment (default 15 s).
    pub fn keep_alive(mut self, every: Duration) -> Self {
        self.keep_alive = every;
        self
    }

    /// How long a handshake-era session may go without a request (and without an open `GET`
    /// stream or a call in flight) before it ends, as if the client had sent `DELETE` (default one
    /// hour). Expired sessions are swept when a new one opens.
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// The endpoint's path.
    pub fn endpoint(&self) -> &str {
        &self.path
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.any_origin
            || self.origins.contains(&origin)
            || (self.localhost_origins && is_localhost_origin(&origin))
    }

    fn host_allowed(&self, host: &str) -> bool {
        self.any_host || self.hosts.contains(&host_name(host).to_ascii_lowercase())
    }
}

/// `localhost`, `127.0.0.1` or `[::1]` over http or https, any port.
fn is_localhost_origin(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    LOOPBACK_HOSTS.contains(&host_name(rest))
}

/// The host of a `Host` value or an origin's authority: without the port, brackets kept.
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// The endpoint for `server`, as an axum [`Router`] to serve alone or merge into an application.
pub fn router(server: &Server, options: HttpOptions) -> Router {
    let path = options.path.clone();
    let state = Arc::new(Endpoint {
        max_body: options
            .max_body_bytes
            .unwrap_or(server.options().max_message_bytes),
        server: server.clone(),
        options,
        sessions: Mutex::new(HashMap::new()),
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

struct Endpoint {
    server: Server,
    options: HttpOptions,
    max_body: usize,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

/// A handshake-era session: its connection, and the server-to-client stream a `GET` takes.
struct Session {
    conn: Connection,
    outgoing: Mutex<Option<mpsc::UnboundedReceiver<Value>>>,
    last_seen: Mutex<Instant>,
}

impl Session {
    /// Idle for longer than `limit`, with no stream open and no call in flight.
    fn expired(&self, limit: Duration) -> bool {
        lock(&self.last_seen).elapsed() > limit
            && lock(&self.outgoing).is_some()
            && lock(&self.conn.inner.in_flight).is_empty()
    }
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

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(refusal) = check_security(&endpoint.options, &parts.headers) {
        return refusal.into_response();
    }
    let result = match parts.method {
        Method::POST => post(&endpoint, &parts.headers, body).await,
        Method::GET => get(&endpoint, &parts.headers),
        Method::DELETE => delete(&endpoint, &parts.headers),
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

fn allowed_methods(headers: &HeaderMap) -> HeaderValue {
    if is_stateless_version(header_str(headers, PROTOCOL_VERSION)) {
        HeaderValue::from_static("POST")
    } else {
        HeaderValue::from_static("GET, POST, DELETE")
    }
}

/// `Origin` (403 when present and not allowed) and `Host` (403 when not an allowed host).
fn check_security(options: &HttpOptions, headers: &HeaderMap) -> Result<(), Refusal> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let allowed = origin.to_str().is_ok_and(|o| options.origin_allowed(o));
        if !allowed {
            tracing::warn!(?origin, "refused a request from a disallowed origin");
            return Err(Refusal::new(
                StatusCode::FORBIDDEN,
                codes::INVALID_REQUEST,
                "Forbidden: this Origin is not allowed",
            ));
        }
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    match host {
        Some(host) if options.host_allowed(host) => Ok(()),
        None if options.any_host => Ok(()),
        _ => {
            tracing::warn!(?host, "refused a request for a disallowed host");
            Err(Refusal::new(
                StatusCode::FORBIDDEN,
                codes::INVALID_REQUEST,
                "Forbidden: this Host is not allowed",
            ))
        }
    }
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

fn is_stateless_version(version: Option<&str>) -> bool {
    version.is_some_and(|v| STATELESS_VERSIONS.contains(&v))
}

/// True when `accept` lists `media` (`type/subtype`), directly or through a wildcard.
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|item| item.split(';').next().unwrap_or("").trim())
        .any(|item| {
            item.eq_ignore_ascii_case(media)
                || item == "*/*"
                || item.eq_ignore_ascii_case(&format!("{kind}/*"))
        })
}

// ---- POST: one client message ----

async fn post(endpoint: &Endpoint, headers: &HeaderMap, body: Body) -> Result<Response, Refusal> {
    if !accepts(headers, "application/json") || !accepts(headers, "text/event-stream") {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        ));
    }
    let json_body = header_str(headers, header::CONTENT_TYPE.as_str()).is_some_and(|c| {
        c.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json_body {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        ));
    }
    let bytes = read_body(body, endpoint.max_body).await?;
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

async fn read_body(body: Body, limit: usize) -> Result<Bytes, Refusal> {
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let too_large = std::error::Error::source(&e)
            .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
        if too_large {
            Refusal::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                codes::INVALID_REQUEST,
                format!("Payload Too Large: the body is over the limit of {limit} bytes"),
            )
        } else {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                codes::INVALID_REQUEST,
                format!("Bad Request: reading the body failed: {e}"),
            )
        }
    })
}

/// A message without a session is stateless when the header names a version that is not a
/// handshake one, or when the body carries the `_meta` envelope.
fn is_stateless_message(message: &Incoming, version: Option<&str>) -> bool {
    if version.is_some_and(|v| !HANDSHAKE_VERSIONS.contains(&v)) {
        return true;
    }
    match message {
        Incoming::Request(req) => {
            req.method == "server/discover"
                || params_meta(req.params.as_ref())
                    .is_some_and(|m| m.contains_key(PROTOCOL_VERSION_KEY))
        }
        _ => false,
    }
}

fn find_session(endpoint: &Endpoint, id: &str) -> Result<Arc<Session>, Refusal> {
    let session = lock(&endpoint.sessions).get(id).cloned();
    if let Some(s) = &session {
        *lock(&s.last_seen) = Instant::now();
    }
    session.ok_or_else(|| {
        Refusal::new(
            StatusCode::NOT_FOUND,
            codes::INVALID_REQUEST,
            "Not Found: no such session (it ended or never existed); initialize a new one",
        )
    })
}

/// `initialize` without a session: a new connection, kept as a session when it succeeds.
async fn initialize(endpoint: &Endpoint, message: Incoming) -> Result<Response, Refusal> {
    let (conn, outgoing) = Connection::new();
    let response = endpoint.server.handle(message, &conn).await;
    let Some(response) = response else {
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    if response.get("result").is_none() {
        return Ok(json_response(StatusCode::OK, &response));
    }
    let id = new_session_id();
    let mut sessions = lock(&endpoint.sessions);
    sessions.retain(|old, s| {
        let expired = s.expired(endpoint.options.session_idle);
        if expired {
            tracing::info!(session = %old, "session expired after going idle");
            s.conn.close();
        }
        !expired
    });
    sessions.insert(
        id.clone(),
        Arc::new(Session {
            conn,
            outgoing: Mutex::new(Some(outgoing)),
            last_seen: Mutex::new(Instant::now()),
        }),
    );
    drop(sessions);
    tracing::info!(session = %id, "session opened");
    let mut response = json_response(StatusCode::OK, &response);
    response.headers_mut().insert(
        SESSION_ID,
        HeaderValue::from_str(&id).expect("hex is a valid header value"),
    );
    Ok(response)
}

/// 128 bits from the operating system's CSPRNG, as hex.
fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A stateless message: header checks, then a connection of its own.
async fn stateless(
    endpoint: &Endpoint,
    headers: &HeaderMap,
    message: Incoming,
) -> Result<Response, Refusal> {
    let Incoming::Request(req) = &message else {
        // Nothing to answer: no notification or response means anything without a session.
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let id = req.id.to_json();
    check_stateless_headers(headers, req)
        .and_then(|()| check_param_headers(&endpoint.server, headers, req))
        .map_err(|r| r.with_id(id.clone()))?;
    if req.method == "initialize" {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            codes::METHOD_NOT_FOUND,
            format!(
                "Method not found: initialize (removed in {}; call server/discover)",
                crate::protocol::LATEST_STATELESS_VERSION
            ),
        )
        .with_id(id));
    }
    let (conn, _outgoing) = Connection::new();
    Ok(dispatch(endpoint, &conn, message, Lifetime::Request).await)
}

/// The stateless era's header rules: `MCP-Protocol-Version` present and equal to the `_meta`
/// version (which must be one we serve), `Mcp-Method` equal to the method, `Mcp-Name` equal to
/// the name the body carries.
fn check_stateless_headers(headers: &HeaderMap, req: &RpcRequest) -> Result<(), Refusal> {
    let mismatch = |message: String| {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::HEADER_MISMATCH,
            format!("Header mismatch: {message}"),
        )
    };
    let Some(version) = header_str(headers, PROTOCOL_VERSION) else {
        return Err(mismatch(
            "the MCP-Protocol-Version header is missing".into(),
        ));
    };
    let meta = params_meta(req.params.as_ref());
    match meta.and_then(|m| m.get(PROTOCOL_VERSION_KEY)) {
        // Missing `_meta` or version: the server answers -32602 with what is missing.
        None => {}
        Some(Value::String(v)) if v == version && !STATELESS_VERSIONS.contains(&version) => {
            return Err(Refusal {
                status: StatusCode::BAD_REQUEST,
                id: Value::Null,
                error: Some(Box::new(unsupported_version(version))),
            });
        }
        Some(Value::String(v)) if v == version => {}
        Some(v) => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version is {version:?} but `_meta` says {v}"
            )));
        }
    }
    match header_str(headers, METHOD) {
        Some(m) if m == req.method => {}
        Some(m) => {
            return Err(mismatch(format!(
                "Mcp-Method is {m:?} but the body's method is {:?}",
                req.method
            )));
        }
        None => return Err(mismatch("the Mcp-Method header is missing".into())),
    }
    let field = if req.method == "resources/read" {
        "uri"
    } else {
        "name"
    };
    let named = matches!(
        req.method.as_str(),
        "tools/call" | "prompts/get" | "resources/read"
    );
    let body_name = req
        .params
        .as_ref()
        .and_then(|p| p.get(field))
        .and_then(Value::as_str);
    match (
        named.then_some(body_name).flatten(),
        header_str(headers, NAME),
    ) {
        (Some(b), Some(h)) if b == h => Ok(()),
        (Some(b), Some(h)) => Err(mismatch(format!(
            "Mcp-Name is {h:?} but the body's `{field}` is {b:?}"
        ))),
        (Some(_), None) => Err(mismatch("the Mcp-Name header is missing".into())),
        (None, _) => Ok(()),
    }
}

/// The stateless era's custom headers (SEP-2243): a tool argument whose schema carries
/// `"x-mcp-header": "Name"` travels in `Mcp-Param-Name` too, so that proxies can route on it. The
/// header must be present when the body has the argument and carry the same value, literally or
/// as `=?base64?…?=` (strict Base64, padding included).
fn check_param_headers(
    server: &Server,
    headers: &HeaderMap,
    req: &RpcRequest,
) -> Result<(), Refusal> {
    if req.method != "tools/call" {
        return Ok(());
    }
    let params = req.params.as_ref();
    let Some(tool) = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .and_then(|n| server.tools().get(n))
    else {
        return Ok(());
    };
    let Some(properties) = tool.input_schema()["properties"].as_object() else {
        return Ok(());
    };
    let arguments = params.and_then(|p| p.get("arguments"));
    for (arg, schema) in properties {
        let Some(suffix) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let header = format!("mcp-param-{suffix}");
        let body = arguments.and_then(|a| a.get(arg)).filter(|v| !v.is_null());
        let given = headers
            .get(header.as_str())
            .map(|v| v.to_str().map(str::trim));
        let mismatch = |what: String| {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                codes::HEADER_MISMATCH,
                format!("Header mismatch: Mcp-Param-{suffix} {what}"),
            )
        };
        match (body, given) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(format!("is missing but the body has `{arg}`")));
            }
            (_, Some(Err(_))) => return Err(mismatch("is not visible ASCII".into())),
            (body, Some(Ok(raw))) => {
                let value =
                    decode_param(raw).ok_or_else(|| mismatch("has invalid Base64".into()))?;
                let expected = match body {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(v.to_string()),
                    _ => None,
                };
                if expected.as_deref() != Some(value.as_str()) {
                    return Err(mismatch(format!("does not match the body's `{arg}`")));
                }
            }
        }
    }
    Ok(())
}

/// A parameter header's value: `=?base64?…?=` decoded (strict), anything else literally.
fn decode_param(raw: &str) -> Option<String> {
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => String::from_utf8(base64_decode(encoded)?).ok(),
        None => Some(raw.to_owned()),
    }
}

/// Standard Base64 with padding; `None` for a wrong length, character or padding.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let chunks = bytes.chunks(4).count();
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && i + 1 != chunks) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = (n << 6) | value(c)?;
        }
        n <<= 6 * pad as u32;
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    Some(out)
}

/// What happens to a call when its response stream goes away.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lifetime {
    /// Stateless era: the call is cancelled.
    Request,
    /// Handshake era: the call runs on (the client cancels with `notifications/cancelled`).
    Detached,
}

/// Hands one message to the server; a request's answer comes back as JSON or as an event stream.
async fn dispatch(
    endpoint: &Endpoint,
    conn: &Connection,
    message: Incoming,
    lifetime: Lifetime,
) -> Response {
    let req_id = match &message {
        Incoming::Request(req) => req.id.clone(),
        _ => {
            // Notifications and responses take effect before `handle` returns.
            let _ = endpoint.server.handle(message, conn).await;
            return StatusCode::ACCEPTED.into_response();
        }
    };
    let stateless = lifetime == Lifetime::Request;
    let (sink, mut events) = mpsc::unbounded_channel::<Value>();
    let route = conn.route_request(req_id, sink.clone());
    let answer = endpoint.server.handle(message, conn);
    let task = tokio::spawn(async move {
        let _route = route;
        if let Some(response) = answer.await {
            let _ = sink.send(response);
        }
    });
    let task = CallTask {
        handle: Some(task),
        lifetime,
    };
    // The first message decides the shape: the answer itself is sent as JSON; anything before it
    // opens an event stream that ends with the answer.
    let Some(first) = events.recv().await else {
        // Cancelled with no answer: nothing more will come.
        return StatusCode::ACCEPTED.into_response();
    };
    if is_answer(&first) {
        let status = if stateless {
            stateless_status(&first)
        } else {
            StatusCode::OK
        };
        return json_response(status, &first);
    }
    let rest = stream::unfold(
        (events, Some(task), false),
        |(mut events, task, done)| async move {
            if done {
                return None;
            }
            let message = events.recv().await?;
            let done = is_answer(&message);
            Some((message, (events, task, done)))
        },
    );
    let messages = stream::once(async move { first }).chain(rest);
    sse(messages, endpoint.options.keep_alive)
}

/// A response, as opposed to a notification or a request from the server.
fn is_answer(message: &Value) -> bool {
    message.get("method").is_none()
}

/// The stateless era's status for a JSON-RPC error: 404 for an unknown method, 400 for a request
/// the server cannot take as sent.
fn stateless_status(response: &Value) -> StatusCode {
    let code = response
        .get("error")
        .and_then(|e| e.get("code"))
        .and_then(Value::as_i64);
    match code {
        None => StatusCode::OK,
        Some(codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            codes::PARSE_ERROR
            | codes::INVALID_REQUEST
            | codes::INVALID_PARAMS
            | codes::HEADER_MISMATCH
            | codes::MISSING_CAPABILITY
            | codes::UNSUPPORTED_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Some(_) => StatusCode::OK,
    }
}

/// The task running one call. In the stateless era dropping it (the client closed the stream)
/// aborts the call, which drops the tool's future.
struct CallTask {
    handle: Option<JoinHandle<()>>,
    lifetime: Lifetime,
}

impl Drop for CallTask {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take()
            && self.lifetime == Lifetime::Request
            && !handle.is_finished()
        {
            tracing::info!("the response stream closed; cancelling the call");
            handle.abort();
        }
    }
}

fn sse(messages: impl Stream<Item = Value> + Send + 'static, keep_alive: Duration) -> Response {
    let events = messages
        .map(|m| Ok::<_, Infallible>(Event::default().event("message").data(m.to_string())));
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(keep_alive))
        .into_response()
}

// ---- GET and DELETE: the handshake era's session stream and its end ----

fn get(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Response, Refusal> {
    let session = session_of(endpoint, headers)?;
    if !accepts(headers, "text/event-stream") {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the client must accept text/event-stream",
        ));
    }
    let Some(outgoing) = lock(&session.outgoing).take() else {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            codes::INVALID_REQUEST,
            "Conflict: this session already has a stream open",
        ));
    };
    let stream = SessionStream {
        session: session.clone(),
        outgoing: Some(outgoing),
    };
    Ok(sse(stream, endpoint.options.keep_alive))
}

fn delete(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Response, Refusal> {
    let session = session_of(endpoint, headers)?;
    let id = header_str(headers, SESSION_ID)
        .unwrap_or_default()
        .to_owned();
    lock(&endpoint.sessions).remove(&id);
    session.conn.close();
    tracing::info!(session = %id, "session ended by the client");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The session a `GET` or `DELETE` names: 405 in the stateless era, 400 without a session id,
/// 404 for an unknown one.
fn session_of(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Arc<Session>, Refusal> {
    if is_stateless_version(header_str(headers, PROTOCOL_VERSION)) {
        return Err(Refusal::bare(StatusCode::METHOD_NOT_ALLOWED));
    }
    let Some(id) = header_str(headers, SESSION_ID) else {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: missing Mcp-Session-Id",
        ));
    };
    find_session(endpoint, id)
}

/// A session's server-to-client stream; the receiver goes back to the session when the client
/// closes it, so a later `GET` picks up where it ended.
struct SessionStream {
    session: Arc<Session>,
    outgoing: Option<mpsc::UnboundedReceiver<Value>>,
}

impl Stream for SessionStream {
    type Item = Value;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Value>> {
        match self.outgoing.as_mut() {
            Some(rx) => rx.poll_recv(cx),
            None => Poll::Ready(None),
        }
    }
}

impl Drop for SessionStream {
    fn drop(&mut self) {
        if let Some(rx) = self.outgoing.take()
            && !self.session.conn.is_closed()
        {
            *lock(&self.session.outgoing) = Some(rx);
        }
    }
}

// ---- Bearer tokens ----

/// A tower layer that lets a request through only with `Authorization: Bearer <token>`; others
/// get `401 Unauthorized` with `WWW-Authenticate: Bearer`. The comparison takes the same time
/// wherever the tokens differ.
///
/// ```
/// use mcp_runtime::transport::http::{BearerAuth, HttpOptions, router};
/// # let server = mcp_runtime::Server::builder("demo", "1.0.0").build().unwrap();
/// let app = router(&server, HttpOptions::default()).layer(BearerAuth::new("s3cret"));
/// # let _ = app;
/// ```
#[derive(Clone)]
pub struct BearerAuth {
    token: Arc<[u8]>,
}

impl BearerAuth {
    /// Requires `token`.
    pub fn new(token: impl AsRef<str>) -> Self {
        BearerAuth {
            token: token.as_ref().as_bytes().into(),
        }
    }

    fn allows(&self, headers: &HeaderMap) -> bool {
        let Some(given) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, token) = v.split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
        else {
            return false;
        };
        constant_time_eq(given.as_bytes(), &self.token)
    }
}

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerAuth { .. }")
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i).copied().unwrap_or(0));
    }
    diff == 0
}

impl<S> tower::Layer<S> for BearerAuth {
    type Service = BearerAuthService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BearerAuthService {
            auth: self.clone(),
            inner,
        }
    }
}

/// The service [`BearerAuth`] wraps around another.
#[derive(Clone, Debug)]
pub struct BearerAuthService<S> {
    auth: BearerAuth,
    inner: S,
}

impl<S> tower::Service<Request> for BearerAuthService<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if self.auth.allows(request.headers()) {
            return Box::pin(self.inner.call(request));
        }
        tracing::warn!("refused a request without a valid bearer token");
        let mut response = Refusal::new(
            StatusCode::UNAUTHORIZED,
            codes::INVALID_REQUEST,
            "Unauthorized: a valid bearer token is required",
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        Box::pin(async move { Ok(response) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_drop_the_port() {
        for (input, expected) in [
            ("localhost:8080", "localhost"),
            ("localhost", "localhost"),
            ("127.0.0.1:1", "127.0.0.1"),
            ("[::1]:3000", "[::1]"),
            ("[::1]", "[::1]"),
            ("evil.example.com", "evil.example.com"),
        ] {
            assert_eq!(host_name(input), expected, "{input}");
        }
    }

    #[test]
    fn localhost_origins_are_recognised() {
        for (origin, ok) in [
            ("http://localhost:3000", true),
            ("https://127.0.0.1", true),
            ("http://[::1]:9", true),
            ("http://localhost.evil.com", false),
            ("http://evil.example.com", false),
            ("null", false),
            ("file://localhost", false),
        ] {
            assert_eq!(is_localhost_origin(origin), ok, "{origin}");
        }
    }

    #[test]
    fn parameter_headers_decode_strict_base64_or_stay_literal() {
        for (raw, expected) in [
            ("=?base64?SGVsbG8=?=", Some("Hello")),
            ("=?base64?SGVsbG8?=", None),
            ("=?base64?SGVs!!!bG8=?=", None),
            ("=?base64?SGk=?=", Some("Hi")),
            ("=?base64??=", Some("")),
            ("=?base64?SGVsbG8=", Some("=?base64?SGVsbG8=")),
            ("SGVsbG8=", Some("SGVsbG8=")),
            ("plain", Some("plain")),
        ] {
            assert_eq!(decode_param(raw).as_deref(), expected, "{raw}");
        }
    }

    #[test]
    fn tokens_compare_in_full() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"", b"a"));
    }
}
