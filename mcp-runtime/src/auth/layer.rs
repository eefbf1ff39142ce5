//! The check in front of the endpoint: the token read from the one `Authorization` header,
//! validated for the resource, the scopes the request needs, the session's owner; then the
//! request goes on with its [`Principal`] (the header removed), or the challenge comes back.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::BoxFuture;
use http_body_util::{BodyExt, Limited};
use serde_json::{Value, json};

use super::server::{challenge, metadata_url};
use super::{Principal, ResourceServer, TokenError, canonical_resource};
use crate::context::connection::lock;
use crate::context::principal::serve_as;
use crate::error::codes;

/// The session header of the handshake era (the transport's `SESSION_ID`).
const SESSION_ID: &str = "mcp-session-id";

/// What the checks of one endpoint share.
struct Shared {
    auth: ResourceServer,
    path: String,
    max_body: usize,
    body_timeout: Duration,
    bindings: Mutex<Bindings>,
}

/// The owner of each handshake-era session this endpoint opened (or first saw).
#[derive(Default)]
struct Bindings {
    owners: HashMap<String, String>,
    order: VecDeque<String>,
}

impl Bindings {
    /// Whether `owner` may use `session`: `Some(true)` when bound to it, `Some(false)` when
    /// bound to another, `None` when unknown (bound to its first user once the endpoint
    /// served it, so a made-up id takes no room).
    fn admit(&self, session: &str, owner: &str) -> Option<bool> {
        self.owners.get(session).map(|known| known == owner)
    }

    fn bind(&mut self, session: &str, owner: &str, cap: usize) {
        while self.owners.len() >= cap {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.owners.remove(&oldest);
        }
        if self
            .owners
            .insert(session.to_owned(), owner.to_owned())
            .is_none()
        {
            self.order.push_back(session.to_owned());
        }
    }

    fn forget(&mut self, session: &str) {
        if self.owners.remove(session).is_some() {
            self.order.retain(|s| s != session);
        }
    }
}

/// `router` (the endpoint at `path`) behind `auth`, with the Protected Resource Metadata routes.
pub(crate) fn protect(
    router: Router,
    path: &str,
    auth: &ResourceServer,
    max_body: usize,
    body_timeout: Duration,
) -> Router {
    let shared = Arc::new(Shared {
        auth: auth.clone(),
        path: path.to_owned(),
        max_body,
        body_timeout,
        bindings: Mutex::new(Bindings::default()),
    });
    let guarded = router.route_layer(AuthLayer(shared.clone()));
    let root = "/.well-known/oauth-protected-resource";
    let mut routes = Router::new().route(root, axum::routing::get(metadata));
    if path != "/" {
        routes = routes.route(&format!("{root}{path}"), axum::routing::get(metadata));
    }
    guarded.merge(routes.with_state(shared))
}

/// The Protected Resource Metadata document.
async fn metadata(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let resource = shared.resource(request.headers());
    let body = shared.auth.metadata(&resource);
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

impl Shared {
    /// The canonical resource URI: configured (or the bound address's), else from `Host`.
    fn resource(&self, headers: &HeaderMap) -> String {
        if let Some(resource) = &self.auth.resource {
            return resource.clone();
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        let uri = format!("http://{host}{}", self.path);
        canonical_resource(&uri).unwrap_or(uri)
    }
}

#[derive(Clone)]
struct AuthLayer(Arc<Shared>);

impl<S> tower::Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuthService {
            shared: self.0.clone(),
            inner,
        }
    }
}

#[derive(Clone)]
struct AuthService<S> {
    shared: Arc<Shared>,
    inner: S,
}

impl<S> tower::Service<Request> for AuthService<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The ready service goes with this request; a clone stays for the next one.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let shared = self.shared.clone();
        Box::pin(async move { Ok(check(shared, inner, request).await) })
    }
}

/// A refusal of the check: status, challenge, and a JSON-RPC error body.
struct Denial {
    status: StatusCode,
    challenge: Option<String>,
    message: String,
}

impl IntoResponse for Denial {
    fn into_response(self) -> Response {
        tracing::debug!(status = %self.status, message = %self.message, "refused a request (auth)");
        let body = json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": codes::INVALID_REQUEST, "message": self.message},
        });
        let mut response = (
            self.status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body.to_string(),
        )
            .into_response();
        if let Some(value) = self.challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        response
    }
}

fn bad_request(message: &str, metadata: &str) -> Denial {
    Denial {
        status: StatusCode::BAD_REQUEST,
        challenge: Some(challenge(metadata, &[], Some(("invalid_request", message)))),
        message: format!("Bad Request: {message}"),
    }
}

async fn check<S>(shared: Arc<Shared>, mut inner: S, request: Request) -> Response
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    // CORS preflight carries no credentials.
    if request.method() == Method::OPTIONS {
        return match inner.call(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
    }
    match admit(&shared, request).await {
        Ok((request, principal, session)) => {
            let is_delete = request.method() == Method::DELETE;
            let owner = principal.owner_key();
            let response = match serve_as(principal, inner.call(request)).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            let cap = shared.auth.max_bindings;
            match session {
                None => {
                    if let Some(id) = response
                        .headers()
                        .get(SESSION_ID)
                        .and_then(|v| v.to_str().ok())
                    {
                        lock(&shared.bindings).bind(id, &owner, cap);
                    }
                }
                Some(id) if is_delete && response.status().is_success() => {
                    lock(&shared.bindings).forget(&id);
                }
                Some(id) if response.status().is_success() => {
                    let mut bindings = lock(&shared.bindings);
                    if bindings.admit(&id, &owner).is_none() {
                        bindings.bind(&id, &owner, cap);
                    }
                }
                Some(_) => {}
            }
            response
        }
        Err(denial) => denial.into_response(),
    }
}

/// The checks: the request to pass on (body buffered, `Authorization` removed), its principal,
/// and its session id; or the refusal.
async fn admit(
    shared: &Shared,
    request: Request,
) -> Result<(Request, Arc<Principal>, Option<String>), Denial> {
    if let Err(fault) = shared.auth.check() {
        tracing::error!(%fault, "the resource server's settings are refused; refusing every request");
        return Err(Denial {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            challenge: None,
            message: "Internal Server Error: authorization is misconfigured".into(),
        });
    }
    let resource = shared.resource(request.headers());
    // The metadata URL is only written into a refusal's challenge: built then, not per request.
    let metadata = || metadata_url(&resource);
    if request.uri().query().is_some_and(has_token_parameter) {
        return Err(bad_request(
            "an access token in the query string is refused; send it in the Authorization header",
            &metadata(),
        ));
    }
    let (mut parts, body) = request.into_parts();
    let mut given = parts.headers.get_all(header::AUTHORIZATION).iter();
    let first = given.next().cloned();
    if given.next().is_some() {
        return Err(bad_request(
            "more than one Authorization header",
            &metadata(),
        ));
    }
    let bytes = if parts.method == Method::POST {
        read_body(body, shared.max_body, shared.body_timeout).await?
    } else {
        Bytes::new()
    };
    let message: Option<Value> = serde_json::from_slice(&bytes).ok();
    let needed = shared.auth.policy.needed(message.as_ref());
    let token = match first {
        None => {
            return Err(Denial {
                status: StatusCode::UNAUTHORIZED,
                challenge: Some(challenge(&metadata(), &needed, None)),
                message: "Unauthorized: a bearer token is required".into(),
            });
        }
        Some(value) => bearer_token(&value, metadata, &needed)?,
    };
    let principal = match shared.auth.validator.validate(&token, &resource).await {
        Ok(principal) => Arc::new(principal),
        Err(TokenError::Invalid(why)) => {
            tracing::info!(reason = %why, "refused an invalid access token");
            return Err(Denial {
                status: StatusCode::UNAUTHORIZED,
                challenge: Some(challenge(
                    &metadata(),
                    &needed,
                    Some(("invalid_token", &why)),
                )),
                message: format!("Unauthorized: invalid token: {why}"),
            });
        }
        Err(TokenError::Unavailable(why)) => {
            tracing::warn!(reason = %why, "an access token could not be checked");
            return Err(Denial {
                status: StatusCode::SERVICE_UNAVAILABLE,
                challenge: None,
                message: "Service Unavailable: the access token cannot be checked now".into(),
            });
        }
    };
    let missing = shared.auth.policy.missing(&principal, &needed);
    if !missing.is_empty() {
        let why = format!("this request needs the scope {}", missing.join(" "));
        return Err(Denial {
            status: StatusCode::FORBIDDEN,
            challenge: Some(challenge(
                &metadata(),
                &needed,
                Some(("insufficient_scope", &why)),
            )),
            message: format!("Forbidden: {why}"),
        });
    }
    let session = parts
        .headers
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = &session
        && lock(&shared.bindings).admit(id, &principal.owner_key()) == Some(false)
    {
        tracing::warn!("a session was presented with another subject's token");
        return Err(Denial {
            status: StatusCode::NOT_FOUND,
            challenge: None,
            message: "Not Found: no such session".into(),
        });
    }
    parts.headers.remove(header::AUTHORIZATION);
    parts.extensions.insert(principal.clone());
    Ok((
        Request::from_parts(parts, Body::from(bytes)),
        principal,
        session,
    ))
}

/// The token of `Authorization: Bearer <token68>` (the scheme in any case). Another scheme
/// is no bearer token (`401`); a malformed bearer header is `400`.
fn bearer_token(
    value: &HeaderValue,
    metadata: impl Fn() -> String,
    needed: &[String],
) -> Result<String, Denial> {
    let malformed = || bad_request("a malformed Authorization header", &metadata());
    let text = value.to_str().map_err(|_| malformed())?;
    let (scheme, token) = text.split_once(' ').unwrap_or((text, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Denial {
            status: StatusCode::UNAUTHORIZED,
            challenge: Some(challenge(&metadata(), needed, None)),
            message: "Unauthorized: a bearer token is required".into(),
        });
    }
    let token = token.trim_matches(' ');
    if !is_token68(token) {
        return Err(malformed());
    }
    Ok(token.to_owned())
}

/// RFC 6750 §2.1's `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_token68(token: &str) -> bool {
    /// The bytes of a `b64token` but `=`, one lookup each.
    const B64TOKEN: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            table[b] =
                c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
            b += 1;
        }
        table
    };
    let body = token.trim_end_matches('=');
    !body.is_empty() && body.bytes().all(|b| B64TOKEN[usize::from(b)])
}

/// Whether a query string carries `access_token` (RFC 6750 §2.3, refused here).
fn has_token_parameter(query: &str) -> bool {
    query
        .split('&')
        .any(|pair| pair.split('=').next() == Some("access_token"))
}

async fn read_body(body: Body, max: usize, timeout: Duration) -> Result<Bytes, Denial> {
    match tokio::time::timeout(timeout, Limited::new(body, max).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(_)) => Err(Denial {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            challenge: None,
            message: format!("Payload Too Large: the body is over {max} bytes"),
        }),
        Err(_) => Err(Denial {
            status: StatusCode::REQUEST_TIMEOUT,
            challenge: None,
            message: "Request Timeout: the body took too long".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token68_and_query() {
        assert!(is_token68("abc.DEF-_~+/=="));
        assert!(!is_token68(""));
        assert!(!is_token68("=="));
        assert!(!is_token68("a b"));
        assert!(!is_token68("a,b"));
        assert!(has_token_parameter("x=1&access_token=abc"));
        assert!(!has_token_parameter("my_access_token=1"));
    }

    #[test]
    fn bindings_refuse_another_owner_and_stay_bounded() {
        let mut b = Bindings::default();
        b.bind("s1", "alice", 2);
        assert_eq!(b.admit("s1", "alice"), Some(true));
        assert_eq!(b.admit("s1", "mallory"), Some(false));
        assert_eq!(b.admit("s9", "mallory"), None);
        b.bind("s2", "bob", 2);
        b.bind("s3", "carol", 2);
        assert_eq!(b.owners.len(), 2);
        b.forget("s3");
        assert_eq!(b.owners.len(), 1);
    }
}
