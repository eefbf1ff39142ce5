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

use super::server::{challenge, metadata_url};
use super::{Principal, ResourceServer, TokenError, canonical_resource};
use crate::context::principal::serve_as;
use crate::error::codes;

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
        Ok((request, principal)) => match serve_as(principal, inner.call(request)).await {
            Ok(response) => response,
            Err(never) => match never {},
        },
        Err(denial) => denial.into_response(),
    }
}

/// The checks: the request to pass on (body buffered, `Authorization` removed) and its
/// principal; or the refusal. A session's owner is checked by the endpoint, from the session's
/// record, which every replica shares.
async fn admit(shared: &Shared, request: Request) -> Result<(Request, Arc<Principal>), Denial> {
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
    let needed = match super::peek::named(&bytes) {
        Some(named) => shared.auth.policy.needed_by(std::slice::from_ref(&named)),
        None if bytes.is_empty() => shared.auth.policy.needed(None),
        None => {
            let message: Option<Value> = serde_json::from_slice(&bytes).ok();
            shared.auth.policy.needed(message.as_ref())
        }
    };
    let token = match &first {
        None => {
            return Err(Denial {
                status: StatusCode::UNAUTHORIZED,
                challenge: Some(challenge(&metadata(), &needed, None)),
                message: "Unauthorized: a bearer token is required".into(),
            });
        }
        Some(value) => bearer_token(value, metadata, &needed)?,
    };
    let principal = match shared.auth.validator.validate(token, &resource).await {
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
    parts.headers.remove(header::AUTHORIZATION);
    Ok((Request::from_parts(parts, Body::from(bytes)), principal))
}

/// The token of `Authorization: Bearer <token68>` (the scheme in any case). Another scheme
/// is no bearer token (`401`); a malformed bearer header is `400`.
fn bearer_token<'v>(
    value: &'v HeaderValue,
    metadata: impl Fn() -> String,
    needed: &[String],
) -> Result<&'v str, Denial> {
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
    Ok(token)
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
}
