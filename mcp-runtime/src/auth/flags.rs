//! [`AuthArgs`]: the `--auth-…` flags of a server binary (features `cli` and `auth`).

use std::io;

use super::{CachedValidator, IntrospectionValidator, JwtValidator, ResourceServer};

/// The flags that put a binary's HTTP endpoint behind an authorization server. Without
/// `--auth-issuer` nothing changes.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct AuthArgs {
    /// Accept only OAuth access tokens from this issuer on the HTTP endpoint (JWTs checked
    /// against its published keys, found from the issuer alone). https, or http on loopback.
    #[arg(long, value_name = "URL", requires = "http")]
    pub auth_issuer: Option<String>,
    /// The audience tokens must name, instead of the endpoint's canonical URI.
    #[arg(long, value_name = "URI", requires = "auth_issuer")]
    pub auth_audience: Option<String>,
    /// The endpoint's public URI (behind a proxy), instead of http://ADDR/mcp: the resource
    /// named in the metadata, and the default audience.
    #[arg(long, value_name = "URI", requires = "auth_issuer")]
    pub auth_resource: Option<String>,
    /// Check opaque tokens with this RFC 7662 introspection endpoint instead of as JWTs.
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    pub auth_introspection: Option<String>,
    /// The client id this server introspects with.
    #[arg(long, value_name = "ID", requires = "auth_introspection")]
    pub auth_client_id: Option<String>,
    /// The environment variable holding the introspection client's secret.
    #[arg(long, value_name = "VAR", requires = "auth_client_id")]
    pub auth_client_secret_env: Option<String>,
    /// How many verified tokens are remembered, so that a token presented again is not verified
    /// again (default 10,000; 0: every request's token is verified, its signature or by
    /// introspection).
    #[arg(long, value_name = "ENTRIES", requires = "auth_issuer")]
    pub auth_token_cache: Option<usize>,
}

impl AuthArgs {
    /// The resource server these flags ask for (`None` without `--auth-issuer`); verified
    /// tokens are cached ([`CachedValidator`], 60 s at most for introspected ones) unless
    /// `--auth-token-cache 0`.
    pub fn resource_server(&self) -> io::Result<Option<ResourceServer>> {
        let Some(issuer) = &self.auth_issuer else {
            return Ok(None);
        };
        let invalid = |e: String| io::Error::new(io::ErrorKind::InvalidInput, e);
        let mut auth = match &self.auth_introspection {
            Some(endpoint) => {
                let mut builder = IntrospectionValidator::builder(endpoint).issuer(issuer);
                if let Some(aud) = &self.auth_audience {
                    builder = builder.audience(aud);
                }
                if let Some(id) = &self.auth_client_id {
                    let secret = match &self.auth_client_secret_env {
                        Some(var) => std::env::var(var).map_err(|_| {
                            invalid(format!("--auth-client-secret-env: `{var}` is not set"))
                        })?,
                        None => String::new(),
                    };
                    builder = builder.client_credentials(id, secret);
                }
                let validator = builder.build().map_err(invalid)?;
                match self.auth_token_cache {
                    Some(0) => ResourceServer::new(issuer, validator),
                    entries => ResourceServer::new(
                        issuer,
                        CachedValidator::new(validator)
                            .capacity(entries.unwrap_or(10_000))
                            .max_age(std::time::Duration::from_secs(60)),
                    ),
                }
            }
            None => {
                let mut builder = JwtValidator::builder(issuer);
                if let Some(aud) = &self.auth_audience {
                    builder = builder.audience(aud);
                }
                let validator = builder.build().map_err(invalid)?;
                match self.auth_token_cache {
                    Some(0) => ResourceServer::new(issuer, validator),
                    entries => ResourceServer::new(
                        issuer,
                        CachedValidator::new(validator).capacity(entries.unwrap_or(10_000)),
                    ),
                }
            }
        };
        if let Some(resource) = &self.auth_resource {
            auth = auth.resource(resource);
        }
        auth.check().map_err(invalid)?;
        Ok(Some(auth))
    }
}
