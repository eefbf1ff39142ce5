//! [`BearerAuth`]: a tower layer that lets a request through only with the right bearer token.

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;

use super::Refusal;
use crate::error::codes;

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
    fn tokens_compare_in_full() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"", b"a"));
    }
}
