//! The check in front of the endpoint: the token read from the one `Authorization` header,
//! validated for the resource, the scopes the request needs; then the request goes on with its
//! [`Principal`] (the header removed), or the challenge comes back. A session's owner is
//! checked by the endpoint against the session's record (`SessionRecord::owner`).

use std::borrow::Cow;
use std::convert::Infallible;
use std::sync::Arc;
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

use super::bearer::bearer_bytes;
use super::server::{challenge, metadata_url};
use super::{Principal, ResourceServer, TokenError, canonical_resource};
use crate::context::principal::serve_as;
use crate::error::codes;
use crate::server::scopes::Named;

/// What the checks of one endpoint share.
struct Shared {
    auth: ResourceServer,
    path: String,
    max_body: usize,
    body_timeout: Duration,
}

/// The check of one endpoint: what the router's layer runs, and what the listener runs itself
/// in front of the endpoint at a literal path (no router between them, as without auth).
#[derive(Clone)]
pub(crate) struct Guard(Arc<Shared>);

impl Guard {
    /// The check of the endpoint at `path` behind `auth`.
    pub(crate) fn new(
        path: &str,
        auth: &ResourceServer,
        max_body: usize,
        body_timeout: Duration,
    ) -> Guard {
        Guard(Arc::new(Shared {
            auth: auth.clone(),
            path: path.to_owned(),
            max_body,
            body_timeout,
        }))
    }

    /// `request` checked, then served by `inner`; or refused.
    pub(crate) async fn serve<S>(&self, inner: S, request: Request) -> Response
    where
        S: tower::Service<Request, Response = Response, Error = Infallible>,
    {
        check(self.0.clone(), inner, request).await
    }
}

/// `router` (the endpoint at the guard's path) behind `guard`, with the Protected Resource
/// Metadata routes.
pub(crate) fn protect(router: Router, guard: &Guard) -> Router {
    let shared = guard.0.clone();
    let path = shared.path.clone();
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
    fn resource(&self, headers: &HeaderMap) -> Cow<'_, str> {
        if let Some(resource) = &self.auth.resource {
            return Cow::Borrowed(resource);
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        let uri = format!("http://{host}{}", self.path);
        Cow::Owned(canonical_resource(&uri).unwrap_or(uri))
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
        challenge: Some(challenge::<&str>(
            metadata,
            &[],
            Some(("invalid_request", message)),
        )),
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
        Ok((request, principal)) => match serve_as(principal, inner.call(request)).await {
            Ok(response) => response,
            Err(never) => match never {},
        },
        Err(denial) => denial.into_response(),
    }
}

/// The checks that need no body: the request to pass on (`Authorization` removed) and its
/// principal; or the refusal. The scopes of what the body names (a tool called, a prompt got, a
/// resource read) are checked by the endpoint once it has read the message ([`Guard::check`]),
/// so that an admitted request's body is read once, by the endpoint; only a refusal reads it
/// here, for the scopes its challenge names. A session's owner is checked by the endpoint, from
/// the session's record, which every replica shares.
async fn admit(shared: &Shared, request: Request) -> Result<(Request, Principal), Denial> {
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
    let validated = match &first {
        None => Err(Refused::NoBearer),
        Some(value) => match remembered(&shared.auth, value, &resource) {
            Some(principal) => Ok(principal),
            None => match bearer_token(value) {
                Err(Refused::Malformed) => {
                    return Err(bad_request("a malformed Authorization header", &metadata()));
                }
                Err(refused) => Err(refused),
                Ok(token) => match shared.auth.validator.validate(token, &resource).await {
                    Ok(principal) => Ok(principal),
                    Err(TokenError::Invalid(why)) => {
                        tracing::info!(reason = %why, "refused an invalid access token");
                        Err(Refused::Invalid(why))
                    }
                    Err(TokenError::Unavailable(why)) => {
                        tracing::warn!(reason = %why, "an access token could not be checked");
                        return Err(Denial {
                            status: StatusCode::SERVICE_UNAVAILABLE,
                            challenge: None,
                            message: "Service Unavailable: the access token cannot be checked now"
                                .into(),
                        });
                    }
                },
            },
        },
    };
    let refused = match validated {
        Ok(principal) => {
            let policy = &shared.auth.policy;
            // The server-wide scopes need no body; a request lacking one is refused here, its
            // challenge naming every scope the body needs too.
            if policy.missing(&principal, policy.required()).is_empty() {
                parts.headers.remove(header::AUTHORIZATION);
                return Ok((Request::from_parts(parts, body), principal));
            }
            let needed = shared.needed(&parts.method, body).await?;
            let missing = policy.missing(&principal, &needed);
            return Err(insufficient(&metadata(), &needed, &missing));
        }
        Err(refused) => refused,
    };
    let needed = shared.needed(&parts.method, body).await?;
    Err(refused.denial(&metadata(), &needed))
}

/// Why a request's credentials were refused before its scopes were looked at.
enum Refused {
    /// No `Authorization: Bearer` header (another scheme counts as none).
    NoBearer,
    /// A bearer header that is not `Bearer <b64token>`.
    Malformed,
    /// A token the validator refused.
    Invalid(String),
}

impl Refused {
    /// The refusal, its challenge naming `needed`, the scopes the request needs.
    fn denial<S: AsRef<str>>(self, metadata: &str, needed: &[S]) -> Denial {
        match self {
            Refused::NoBearer => Denial {
                status: StatusCode::UNAUTHORIZED,
                challenge: Some(challenge(metadata, needed, None)),
                message: "Unauthorized: a bearer token is required".into(),
            },
            Refused::Malformed => bad_request("a malformed Authorization header", metadata),
            Refused::Invalid(why) => Denial {
                status: StatusCode::UNAUTHORIZED,
                challenge: Some(challenge(metadata, needed, Some(("invalid_token", &why)))),
                message: format!("Unauthorized: invalid token: {why}"),
            },
        }
    }
}

/// The `403` of a valid token that lacks `missing` of the `needed` scopes: the step-up signal.
fn insufficient<S: AsRef<str>>(metadata: &str, needed: &[S], missing: &[String]) -> Denial {
    let why = format!("this request needs the scope {}", missing.join(" "));
    Denial {
        status: StatusCode::FORBIDDEN,
        challenge: Some(challenge(
            metadata,
            needed,
            Some(("insufficient_scope", &why)),
        )),
        message: format!("Forbidden: {why}"),
    }
}

impl Shared {
    /// The scopes a refused request needs, for its challenge: those of what its body names
    /// (a `POST`'s body read here, within the endpoint's limits), else the server-wide ones.
    async fn needed(&self, method: &Method, body: Body) -> Result<Vec<String>, Denial> {
        let policy = &self.auth.policy;
        if *method != Method::POST {
            return Ok(policy.needed(None));
        }
        let bytes = read_body(body, self.max_body, self.body_timeout).await?;
        let message: Option<Value> = serde_json::from_slice(&bytes).ok();
        Ok(policy.needed(message.as_ref()))
    }
}

impl Guard {
    /// The endpoint's half of the check, once it has read the body's `messages`: the scopes
    /// they need against those of the request's principal. `None` when they are held; else the
    /// `403` (or, with no principal, which only a request that did not pass [`admit`] lacks, the
    /// `401`), its challenge naming every scope the messages need.
    pub(crate) fn check(&self, headers: &HeaderMap, messages: &[Named<'_>]) -> Option<Response> {
        let policy = &self.0.auth.policy;
        let needed = policy.needed_by(messages);
        let principal = crate::context::principal::current();
        let missing = match &principal {
            Some(principal) => policy.missing(principal, &needed),
            None => needed.iter().map(|s| (*s).to_owned()).collect(),
        };
        if missing.is_empty() && principal.is_some() {
            return None;
        }
        let metadata = metadata_url(&self.0.resource(headers));
        let denial = match principal {
            Some(_) => insufficient(&metadata, &needed, &missing),
            None => Refused::NoBearer.denial(&metadata, &needed),
        };
        Some(denial.into_response())
    }
}

/// The principal of a bearer token the validator remembers (a cache's entry): asked before
/// the token's syntax is checked ([`bearer_token`]), which a remembered token passed when it was
/// first validated. The check of every byte cost a cached call about 2,300 instructions for a
/// 613-byte RS256 JWT (callgrind, BENCHMARKS.md).
fn remembered(auth: &ResourceServer, value: &HeaderValue, resource: &str) -> Option<Principal> {
    let token = std::str::from_utf8(bearer_bytes(value)?).ok()?;
    auth.validator.remembered(token, resource)
}

/// The token of `Authorization: Bearer <token68>` (the scheme in any case). Another scheme
/// is no bearer token (`401`); a malformed bearer header is `400`.
///
/// Read from the bytes in one pass over the token, no text check first: a `b64token` is visible
/// ASCII, so a token that passes needs no other. Going through `HeaderValue::to_str`, then a
/// table lookup per byte, cost about 8,900 instructions for a 613-byte RS256 JWT; this, about
/// 2,300 (callgrind, BENCHMARKS.md).
fn bearer_token(value: &HeaderValue) -> Result<&str, Refused> {
    let Some(token) = bearer_bytes(value) else {
        // What is not text at all is malformed, whatever its scheme.
        return Err(match value.to_str() {
            Ok(_) => Refused::NoBearer,
            Err(_) => Refused::Malformed,
        });
    };
    if !is_token68(token) {
        return Err(Refused::Malformed);
    }
    // A `b64token` is ASCII: this never fails.
    std::str::from_utf8(token).map_err(|_| Refused::Malformed)
}

/// RFC 6750 §2.1's `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_token68(token: &[u8]) -> bool {
    /// One byte of a `b64token` but `=`, by comparisons only: the fold below then runs on
    /// vector registers, several bytes an instruction.
    fn b64(b: u8) -> bool {
        let letter = (b | 0x20).wrapping_sub(b'a') < 26;
        let digit = b.wrapping_sub(b'0') < 10;
        letter
            | digit
            | (b == b'-')
            | (b == b'.')
            | (b == b'_')
            | (b == b'~')
            | (b == b'+')
            | (b == b'/')
    }
    let end = token
        .iter()
        .rposition(|&b| b != b'=')
        .map_or(0, |last| last + 1);
    let body = &token[..end];
    !body.is_empty() && body.iter().fold(true, |all, &b| all & b64(b))
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
        assert!(is_token68(b"abc.DEF-_~+/=="));
        assert!(is_token68(b"Zz09"));
        assert!(!is_token68(b""));
        assert!(!is_token68(b"=="));
        assert!(!is_token68(b"a b"));
        assert!(!is_token68(b"a,b"));
        assert!(!is_token68(b"a=b"));
        // Every byte: the b64token characters, and no other.
        for b in 0..=255u8 {
            let expected = b.is_ascii_alphanumeric() || b"-._~+/".contains(&b);
            assert_eq!(is_token68(&[b]), expected, "{b}");
        }
        assert!(has_token_parameter("x=1&access_token=abc"));
        assert!(!has_token_parameter("my_access_token=1"));
    }
}
