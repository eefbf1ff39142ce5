//! [`IntrospectionValidator`]: opaque access tokens checked with the authorization server's
//! introspection endpoint (RFC 7662).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Url;
use serde_json::Value;

use super::fetch::{DEFAULT_MAX_FETCH_BYTES, Fetcher, checked_url, form_encode};
use super::{Principal, TokenError, validate_by_check};

/// Validates tokens by asking the introspection endpoint (RFC 7662), authenticated with the
/// resource server's own client credentials (HTTP Basic). The answer must say `active: true`,
/// carry an `exp` still in the future (with the leeway), and an `aud` naming the resource (the
/// canonical resource URI, or the configured audience); with an issuer configured, its `iss`
/// too. A slow endpoint (default timeout 5 s) refuses the token.
///
/// Each call asks the endpoint; wrap it in a [`CachedValidator`](super::CachedValidator) to keep
/// answers for a while (a revoked token then passes until its entry ends).
pub struct IntrospectionValidator {
    fetcher: Fetcher,
    endpoint: Url,
    client: Option<(String, String)>,
    issuer: Option<String>,
    audience: Option<Vec<String>>,
    leeway: Duration,
}

/// The settings of an [`IntrospectionValidator`].
#[derive(Debug, Clone)]
pub struct IntrospectionBuilder {
    endpoint: String,
    client: Option<(String, String)>,
    issuer: Option<String>,
    audience: Option<Vec<String>>,
    leeway: Duration,
    timeout: Duration,
    max_bytes: usize,
}

impl IntrospectionValidator {
    /// The settings for the introspection endpoint at `endpoint` (`https://`, or `http://` on a
    /// loopback host): timeout 5 s, answers up to 256 KiB, leeway 60 s.
    pub fn builder(endpoint: impl Into<String>) -> IntrospectionBuilder {
        IntrospectionBuilder {
            endpoint: endpoint.into(),
            client: None,
            issuer: None,
            audience: None,
            leeway: Duration::from_secs(60),
            timeout: Duration::from_secs(5),
            max_bytes: DEFAULT_MAX_FETCH_BYTES,
        }
    }

    async fn check(&self, token: &str, resource: &str) -> Result<Principal, TokenError> {
        let form = format!("token={}&token_type_hint=access_token", form_encode(token));
        let basic = self
            .client
            .as_ref()
            .map(|(id, secret)| (id.as_str(), secret.as_str()));
        let answer = self.fetcher.post_form(&self.endpoint, &form, basic).await?;
        let invalid = |why: &str| Err(TokenError::Invalid(why.to_owned()));
        if answer.get("active") != Some(&Value::Bool(true)) {
            return invalid("the token is not active");
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        match answer.get("exp").and_then(Value::as_u64) {
            Some(exp) if exp + self.leeway.as_secs() > now => {}
            Some(_) => return invalid("the token has expired"),
            None => return invalid("the introspection answer has no `exp`"),
        }
        if let Some(nbf) = answer.get("nbf").and_then(Value::as_u64)
            && nbf > now + self.leeway.as_secs()
        {
            return invalid("the token is not valid yet (`nbf`)");
        }
        if let Some(issuer) = &self.issuer
            && answer.get("iss").and_then(Value::as_str) != Some(issuer.as_str())
        {
            return invalid("`iss` is not the issuer");
        }
        let wanted: Vec<&str> = match &self.audience {
            Some(list) => list.iter().map(String::as_str).collect(),
            None => vec![resource],
        };
        let names = |a: &str| wanted.contains(&a);
        let audience_ok = match answer.get("aud") {
            Some(Value::String(a)) => names(a),
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).any(names),
            _ => false,
        };
        if !audience_ok {
            return invalid("`aud` does not name this resource");
        }
        match answer {
            Value::Object(claims) => Ok(Principal::from_claims(claims)),
            _ => invalid("the introspection answer is not an object"),
        }
    }
}

validate_by_check!(IntrospectionValidator);

impl std::fmt::Debug for IntrospectionValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionValidator")
            .field("endpoint", &self.endpoint.as_str())
            .finish_non_exhaustive()
    }
}

impl IntrospectionBuilder {
    /// The resource server's client credentials for the endpoint (HTTP Basic).
    pub fn client_credentials(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.client = Some((id.into(), secret.into()));
        self
    }

    /// The `iss` the answer must carry.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The audience the answer's `aud` must contain, instead of the canonical resource URI.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience
            .get_or_insert_with(Vec::new)
            .push(audience.into());
        self
    }

    setters! {
        /// The clock skew allowed on `exp` and `nbf` (default 60 s).
        pub fn leeway(leeway: Duration) => leeway = leeway;

        /// How long one introspection may take (default 5 s); past it the token is refused.
        pub fn timeout(timeout: Duration) => timeout = timeout;

        /// The largest answer read (default 256 KiB).
        pub fn max_answer_bytes(n: usize) => max_bytes = n;
    }

    /// The validator; an error names a bad endpoint URL.
    pub fn build(self) -> Result<IntrospectionValidator, String> {
        Ok(IntrospectionValidator {
            fetcher: Fetcher::new(self.timeout, self.max_bytes)?,
            endpoint: checked_url(&self.endpoint)?,
            client: self.client,
            issuer: self.issuer,
            audience: self.audience,
            leeway: self.leeway,
        })
    }
}
