//! An OAuth 2.1 resource server for the Streamable HTTP endpoint (feature `auth`; the scope
//! declarations on [`ServerBuilder`](crate::ServerBuilder) and [`Principal`] are always there), as the MCP
//! authorization spec asks: access tokens validated and audience-bound (RFC 9068, RFC 8707),
//! Protected Resource Metadata (RFC 9728), the `401`/`403` challenges of RFC 6750 that let a
//! client discover the authorization server and step up its scopes, scopes checked per tool,
//! prompt and resource, and the verified [`Principal`] handed to tools (never the token).
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | `TokenValidator`, `TokenError`; [`Principal`] (in `context/`) and [`ScopePolicy`] (in `server/`, with the builder's scope methods) re-exported |
//! | `jwt.rs` | `JwtValidator`: JWTs against the issuer's JWKS, header and claim checks |
//! | `jwks.rs` | discovery (RFC 8414, OpenID), the JWKS with its TTL, single-flight rate-limited refresh |
//! | `jws.rs` | `Algorithm`, a public key read from its JWK, and a signature verified (with `ring`) |
//! | `introspect.rs` | `IntrospectionValidator`: RFC 7662 for opaque tokens |
//! | `cache.rs` | `CachedValidator`: verified tokens by hash, bounded, dropped at `exp` |
//! | `flags.rs` | `AuthArgs`: the `--auth-…` flags of a server binary (with `cli`) |
//! | `fetch.rs` | the fetches: https (or loopback http), no redirects, timeout, size cap |
//! | `server.rs` | `ResourceServer`: the settings; Protected Resource Metadata; the challenges |
//! | `declare.rs` | the scope methods of `ServerBuilder` (always there, whatever the features) |
//! | `bearer.rs` | the token of an `Authorization: Bearer` header, read from its bytes (with `http`: `BearerAuth` reads it too) |
//! | `layer.rs` | the check in front of the endpoint (token, server-wide scopes), and its half the endpoint runs on the messages it read (the scopes of what they name) |
//!
//! ```no_run
//! # use mcp_runtime::prelude::*;
//! use mcp_runtime::auth::{JwtValidator, ResourceServer};
//! use mcp_runtime::http::HttpOptions;
//!
//! # async fn run(server: Server) -> Result<(), Box<dyn std::error::Error>> {
//! let issuer = "https://idp.example.com";
//! let auth = ResourceServer::new(issuer, JwtValidator::builder(issuer).build()?)
//!     .resource("https://mcp.example.com/mcp")
//!     .tool_scopes("add_task", ["tasks:write"])
//!     .scope_implies("tasks:write", "tasks:read");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! server
//!     .serve_http_on(listener, HttpOptions::default().authorization(auth))
//!     .await?;
//! # Ok(()) }
//! ```

#[cfg(feature = "http")]
pub(crate) mod bearer;
#[cfg(feature = "auth")]
mod cache;
mod declare;
#[cfg(feature = "auth")]
mod fetch;
#[cfg(all(feature = "auth", feature = "cli"))]
mod flags;
#[cfg(feature = "auth")]
mod introspect;
#[cfg(feature = "auth")]
mod jwks;
#[cfg(feature = "auth")]
mod jws;
#[cfg(feature = "auth")]
mod jwt;
#[cfg(feature = "auth")]
mod layer;
#[cfg(feature = "auth")]
#[cfg(feature = "auth")]
mod server;

#[cfg(feature = "auth")]
use std::sync::Arc;

#[cfg(feature = "auth")]
use futures_util::future::BoxFuture;

pub use crate::context::principal::Principal;
pub use crate::server::scopes::ScopePolicy;
#[doc(hidden)]
pub use crate::server::scopes::is_scope_token;
#[cfg(feature = "auth")]
pub use cache::CachedValidator;
#[cfg(feature = "auth")]
#[doc(hidden)]
pub use fetch::{DEFAULT_FETCH_TIMEOUT, DEFAULT_MAX_FETCH_BYTES};
#[cfg(all(feature = "auth", feature = "cli"))]
pub use flags::AuthArgs;
#[cfg(feature = "auth")]
pub use introspect::{IntrospectionBuilder, IntrospectionValidator};
#[cfg(feature = "auth")]
pub use jws::Algorithm;
#[cfg(feature = "auth")]
#[doc(hidden)]
pub use jwt::{DEFAULT_ALGORITHMS, DEFAULT_MAX_TOKEN_BYTES};
#[cfg(feature = "auth")]
pub use jwt::{JwtValidator, JwtValidatorBuilder};
#[cfg(feature = "auth")]
pub use server::ResourceServer;
#[cfg(feature = "auth")]
#[doc(hidden)]
pub use server::canonical_resource;

#[cfg(feature = "auth")]
pub(crate) use layer::{Guard, protect};

/// Why a token was refused.
#[cfg(feature = "auth")]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not valid for this resource (bad signature, expired, wrong issuer or
    /// audience, not active, malformed): `401` with `error="invalid_token"`.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The token could not be checked (the authorization server's keys or introspection
    /// endpoint are unreachable and nothing is cached): `503`, and the request is refused.
    #[error("the token cannot be checked now: {0}")]
    Unavailable(String),
}

/// Checks an access token for a resource: the principal it speaks for, or why not. Implement it
/// to plug another kind of token (mTLS- or DPoP-bound tokens, a gateway's header); wrap it in a
/// [`CachedValidator`] to verify each token once.
#[cfg(feature = "auth")]
pub trait TokenValidator: Send + Sync + 'static {
    /// Validates `token` for `resource`, the canonical URI of the resource served (the audience
    /// the token must name unless the validator is told another).
    fn validate<'a>(
        &'a self,
        token: &'a str,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Principal, TokenError>>;

    /// The principal of `token` for `resource` when it is known at once, without a check to wait
    /// for (a [`CachedValidator`]'s entry); else `None`, and the endpoint calls
    /// [`validate`](Self::validate). The endpoint asks this first, before its own check of the
    /// token's syntax, which a token remembered here passed when it was first validated through
    /// the endpoint. Default: `None`.
    fn remembered(&self, token: &str, resource: &str) -> Option<Principal> {
        let _ = (token, resource);
        None
    }
}

/// `impl TokenValidator for $validator` by the validator's own `async fn check(&self, token,
/// resource)`, its future boxed: how this folder's validators are written.
#[cfg(feature = "auth")]
macro_rules! validate_by_check {
    ($validator:ty) => {
        impl $crate::auth::TokenValidator for $validator {
            fn validate<'a>(
                &'a self,
                token: &'a str,
                resource: &'a str,
            ) -> futures_util::future::BoxFuture<
                'a,
                Result<$crate::auth::Principal, $crate::auth::TokenError>,
            > {
                Box::pin(self.check(token, resource))
            }
        }
    };
}

#[cfg(feature = "auth")]
use validate_by_check;

/// A validator behind a pointer (`Arc<V>`, `Box<V>`) validates and remembers as `V` itself.
#[cfg(feature = "auth")]
macro_rules! through_pointer {
    ($($pointer:ident),+) => {$(
        impl<V: TokenValidator + ?Sized> TokenValidator for $pointer<V> {
            fn validate<'a>(
                &'a self,
                token: &'a str,
                resource: &'a str,
            ) -> BoxFuture<'a, Result<Principal, TokenError>> {
                (**self).validate(token, resource)
            }

            fn remembered(&self, token: &str, resource: &str) -> Option<Principal> {
                (**self).remembered(token, resource)
            }
        }
    )+};
}

#[cfg(feature = "auth")]
through_pointer!(Arc, Box);
