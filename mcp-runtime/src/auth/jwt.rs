//! [`JwtValidator`]: JWT access tokens (RFC 9068) verified against the issuer's JWKS.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

use super::fetch::{DEFAULT_FETCH_TIMEOUT, DEFAULT_MAX_FETCH_BYTES, Fetcher, checked_url};
use super::jwks::{KeyPolicy, KeySource, find};
use super::jws::Algorithm;
use super::{Principal, TokenError, validate_by_check};

/// The algorithms accepted by default: RS256, PS256, ES256, EdDSA.
pub const DEFAULT_ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::EdDSA,
];

/// Validates JWT access tokens of one issuer: the signature against the issuer's published keys
/// (the JWKS, found by discovery from the issuer alone unless given), then the header and claims:
///
/// - `alg` one of the accepted asymmetric algorithms ([`DEFAULT_ALGORITHMS`]; never `none`,
///   never HMAC), and a key whose `kty`/`crv`, `use`, `key_ops` and `alg` allow it;
/// - `typ` `at+jwt` (RFC 9068) or `JWT`; a `crit` header is refused (no extension is understood);
/// - `iss` equal to the issuer; `aud` containing the audience (default: the resource the
///   endpoint serves, its canonical URI); `exp` required; `nbf` and `iat` honoured; each time
///   with a leeway (default 60 s).
///
/// ```no_run
/// # fn demo() -> Result<(), String> {
/// use mcp_runtime::auth::JwtValidator;
/// let validator = JwtValidator::builder("https://idp.example.com").build()?;
/// # let _ = validator; Ok(()) }
/// ```
pub struct JwtValidator {
    keys: KeySource,
    issuer: String,
    audience: Option<Vec<String>>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    max_token_bytes: usize,
}

/// The settings of a [`JwtValidator`], each with a default.
#[derive(Debug, Clone)]
pub struct JwtValidatorBuilder {
    issuer: String,
    jwks_uri: Option<String>,
    audience: Option<Vec<String>>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    jwks_ttl: Duration,
    min_refresh: Duration,
    fetch_timeout: Duration,
    max_fetch_bytes: usize,
    max_token_bytes: usize,
}

/// The default cap on a token's length, in bytes (longer ones are refused unread).
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 16 * 1024;

impl JwtValidator {
    /// The settings for tokens of `issuer` (its exact `iss`, an `https://` URL, or `http://` on a
    /// loopback host): JWKS found by discovery and kept 5 minutes, refreshed at most every
    /// 30 s; fetches time out after 5 s and take at most 256 KiB; leeway 60 s; tokens up to
    /// 16 KiB.
    pub fn builder(issuer: impl Into<String>) -> JwtValidatorBuilder {
        JwtValidatorBuilder {
            issuer: issuer.into(),
            jwks_uri: None,
            audience: None,
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: Duration::from_secs(60),
            jwks_ttl: Duration::from_secs(300),
            min_refresh: Duration::from_secs(30),
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            max_fetch_bytes: DEFAULT_MAX_FETCH_BYTES,
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
        }
    }

    /// Checks the header; returns its algorithm and `kid`.
    fn header(&self, token: &str) -> Result<(Algorithm, Option<String>), TokenError> {
        let invalid = |why: &str| TokenError::Invalid(why.to_owned());
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("not a JWS compact serialization"));
        };
        if header.is_empty() || payload.is_empty() || signature.is_empty() {
            return Err(invalid("a part of the token is empty (unsigned?)"));
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(header)
            .map_err(|_| invalid("the header is not base64url"))?;
        let header: Map<String, Value> = serde_json::from_slice(&bytes)
            .map_err(|_| invalid("the header is not a JSON object"))?;
        if header.contains_key("crit") {
            return Err(invalid("a `crit` header names an extension not understood"));
        }
        match header.get("typ").and_then(Value::as_str) {
            Some(typ) => {
                let typ = typ.to_ascii_lowercase();
                let typ = typ.strip_prefix("application/").unwrap_or(&typ);
                if typ != "at+jwt" && typ != "jwt" {
                    return Err(invalid("`typ` is neither at+jwt nor JWT"));
                }
            }
            None => return Err(invalid("no `typ` header (at+jwt or JWT)")),
        }
        let alg = header
            .get("alg")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("no `alg` header"))?;
        let alg = Algorithm::named(alg)
            .filter(|a| self.algorithms.contains(a))
            .ok_or_else(|| TokenError::Invalid(format!("algorithm `{alg}` is not accepted")))?;
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.clone()),
            Some(_) => return Err(invalid("`kid` is not a string")),
        };
        Ok((alg, kid))
    }

    async fn check(&self, token: &str, resource: &str) -> Result<Principal, TokenError> {
        if token.len() > self.max_token_bytes {
            return Err(TokenError::Invalid(format!(
                "the token is over {} bytes",
                self.max_token_bytes
            )));
        }
        let (alg, kid) = self.header(token)?;
        let keys = self.keys.key_for(kid.as_deref(), alg).await?;
        let key = find(&keys, kid.as_deref(), alg)
            .ok_or_else(|| TokenError::Invalid("no key for the token".into()))?;
        // Three parts, none empty: `header` checked it.
        let (signed, signature) = token.rsplit_once('.').unwrap_or_default();
        let malformed = || TokenError::Invalid("the token is malformed".into());
        let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| malformed())?;
        if !key.public.verifies(alg, signed.as_bytes(), &signature) {
            return Err(TokenError::Invalid(format!(
                "the {} signature does not verify",
                alg.name()
            )));
        }
        let payload = signed.split_once('.').unwrap_or_default().1;
        let claims: Map<String, Value> = URL_SAFE_NO_PAD
            .decode(payload)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or_else(malformed)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        self.check_claims(&claims, resource, now)?;
        if let Some(iat) = claims.get("iat") {
            match iat.as_u64() {
                Some(iat) if iat <= now + self.leeway.as_secs() => {}
                Some(_) => return Err(TokenError::Invalid("`iat` is in the future".into())),
                None => return Err(TokenError::Invalid("`iat` is not a number".into())),
            }
        }
        Ok(Principal::from_claims(claims))
    }
}

impl JwtValidator {
    /// The registered claims RFC 9068 requires, each with the leeway: `exp` (required, not
    /// past), `nbf` (if present, not ahead), `iss` (required, the issuer), `aud` (required, a
    /// string or an array naming the audience). A time claim is a number of seconds.
    fn check_claims(
        &self,
        claims: &Map<String, Value>,
        resource: &str,
        now: u64,
    ) -> Result<(), TokenError> {
        let invalid = |why: String| Err(TokenError::Invalid(why));
        let leeway = self.leeway.as_secs();
        let time = |name: &str| match claims.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|t| *t >= 0.0)
                .map(|t| Some(t as u64))
                .ok_or_else(|| TokenError::Invalid(format!("the `{name}` claim is malformed"))),
        };
        for required in ["exp", "iss", "aud"] {
            if !claims.contains_key(required) {
                return invalid(format!("the `{required}` claim is missing"));
            }
        }
        if time("exp")?.is_some_and(|exp| exp.saturating_add(leeway) < now) {
            return invalid("the token has expired".into());
        }
        if time("nbf")?.is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return invalid("the token is not valid yet (`nbf`)".into());
        }
        if claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return invalid("`iss` is not the issuer".into());
        }
        let audience = |aud: &str| match &self.audience {
            Some(audience) => audience.iter().any(|a| a == aud),
            None => aud == resource,
        };
        let named = match claims.get("aud") {
            Some(Value::String(aud)) => audience(aud),
            Some(Value::Array(auds)) => auds.iter().filter_map(Value::as_str).any(audience),
            _ => false,
        };
        if !named {
            return invalid("`aud` does not name this resource".into());
        }
        Ok(())
    }
}

validate_by_check!(JwtValidator);

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

impl JwtValidatorBuilder {
    /// Fetch the keys from this JWKS URL instead of discovering it (`https://`, or `http://` on
    /// a loopback host).
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(uri.into());
        self
    }

    /// The audience a token's `aud` must contain, instead of the canonical URI of the resource
    /// served (several: any of them).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience
            .get_or_insert_with(Vec::new)
            .push(audience.into());
        self
    }

    /// The algorithms accepted (default [`DEFAULT_ALGORITHMS`]); [`Algorithm`] has no HMAC
    /// one: an issuer's published keys are public.
    pub fn algorithms(mut self, algorithms: &[Algorithm]) -> Self {
        self.algorithms = algorithms.to_vec();
        self
    }

    setters! {
        /// The clock skew allowed on `exp`, `nbf` and `iat` (default 60 s).
        pub fn leeway(leeway: Duration) => leeway = leeway;

        /// How long a fetched JWKS is used before it is fetched again (default 5 minutes). Past
        /// it, a key the new set no longer holds is refused; while the fetch fails, the old set
        /// keeps working.
        pub fn jwks_ttl(ttl: Duration) => jwks_ttl = ttl;

        /// The least time between two fetches of the JWKS (default 30 s): an unknown `kid`
        /// refreshes the set at most this often, however many tokens carry one.
        pub fn refresh_interval(every: Duration) => min_refresh = every;

        /// How long one fetch (discovery or JWKS) may take (default 5 s).
        pub fn fetch_timeout(timeout: Duration) => fetch_timeout = timeout;

        /// The largest fetched document (default 256 KiB).
        pub fn max_fetch_bytes(n: usize) => max_fetch_bytes = n;

        /// The longest token read (default 16 KiB).
        pub fn max_token_bytes(n: usize) => max_token_bytes = n;
    }

    /// The validator; an error names a bad issuer or JWKS URL.
    pub fn build(self) -> Result<JwtValidator, String> {
        let jwks_uri = self.jwks_uri.as_deref().map(checked_url).transpose()?;
        let fetcher = Fetcher::new(self.fetch_timeout, self.max_fetch_bytes)?;
        let policy = KeyPolicy {
            ttl: self.jwks_ttl,
            min_refresh: self.min_refresh,
        };
        let algorithms = self.algorithms;
        if algorithms.is_empty() {
            return Err("no algorithm is accepted".into());
        }
        Ok(JwtValidator {
            keys: KeySource::new(fetcher, self.issuer.clone(), jwks_uri, policy)?,
            issuer: self.issuer,
            audience: self.audience,
            algorithms,
            leeway: self.leeway,
            max_token_bytes: self.max_token_bytes,
        })
    }
}
