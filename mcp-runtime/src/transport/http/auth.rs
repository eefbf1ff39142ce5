//! [`BearerAuth`]: a tower layer that lets a request through only with the right bearer token.

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::BoxFuture;
use subtle::ConstantTimeEq;

use super::Refusal;
use crate::auth::bearer::bearer_bytes;
use crate::error::codes;

/// A tower layer that lets a request through only with `Authorization: Bearer <token>`; others
/// get `401 Unauthorized` with `WWW-Authenticate: Bearer`. The comparison is constant-time
/// ([`subtle`]): it takes the same time wherever same-length tokens differ.
///
/// ```
/// use mcp_runtime::http::{BearerAuth, HttpOptions, router};
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
        // Only text, with a space after the scheme (a bare `Bearer` is no token here), and the
        // tabs around the token dropped as well as its spaces.
        let Some(given) = headers
            .get(header::AUTHORIZATION)
            .filter(|v| v.to_str().is_ok() && v.as_bytes().contains(&b' '))
            .and_then(bearer_bytes)
        else {
            return false;
        };
        given.trim_ascii().ct_eq(&self.token).into()
    }
}

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerAuth { .. }")
    }
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
    fn only_the_exact_bearer_token_passes() {
        let auth = BearerAuth::new("abc");
        let allows = |value: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(v) = value {
                headers.insert(header::AUTHORIZATION, v.parse().unwrap());
            }
            auth.allows(&headers)
        };
        assert!(allows(Some("Bearer abc")));
        assert!(allows(Some("bearer  abc ")));
        assert!(!allows(Some("Bearer abd")));
        assert!(!allows(Some("Bearer ab")));
        assert!(!allows(Some("Bearer abcd")));
        assert!(!allows(Some("Bearer ")));
        assert!(!allows(Some("Basic abc")));
        assert!(!allows(Some("abc")));
        assert!(!allows(None));
        assert!(allows(Some("Bearer \tabc\t")));
        assert!(!allows(Some("Bearer\tabc")));
        assert!(!BearerAuth::new("").allows(&HeaderMap::new()));
        // A bare scheme is no empty token.
        let mut bare = HeaderMap::new();
        bare.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer"));
        assert!(!BearerAuth::new("").allows(&bare));
        // Only text: a token of other bytes never matches, even the configured one's.
        let mut latin = HeaderMap::new();
        let value = HeaderValue::from_bytes("Bearer p\u{e4}ss".as_bytes()).unwrap();
        latin.insert(header::AUTHORIZATION, value);
        assert!(!BearerAuth::new("p\u{e4}ss").allows(&latin));
    }
}
