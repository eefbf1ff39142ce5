//! [`JwtValidator`]: JWT access tokens (RFC 9068) verified against the issuer's JWKS.

use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::fetch::{DEFAULT_FETCH_TIMEOUT, DEFAULT_MAX_FETCH_BYTES, Fetcher, checked_url};
use super::jwks::{KeyPolicy, KeySource, alg_name, find};
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
        let alg = Algorithm::from_str(alg)
            .ok()
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
        let mut validation = Validation::new(alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&[&self.issuer]);
        match &self.audience {
            Some(audience) => validation.set_audience(audience),
            None => validation.set_audience(&[resource]),
        }
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation)
            .map_err(|e| TokenError::Invalid(describe(e.kind(), alg)))?;
        let claims = data.claims;
        if let Some(iat) = claims.get("iat") {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs();
            match iat.as_u64() {
                Some(iat) if iat <= now + self.leeway.as_secs() => {}
                Some(_) => return Err(TokenError::Invalid("`iat` is in the future".into())),
                None => return Err(TokenError::Invalid("`iat` is not a number".into())),
            }
        }
        Ok(Principal::from_claims(claims))
    }
}

/// A verification failure in words (never the token).
fn describe(kind: &ErrorKind, alg: Algorithm) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".into(),
        ErrorKind::InvalidIssuer => "`iss` is not the issuer".into(),
        ErrorKind::InvalidAudience => "`aud` does not name this resource".into(),
        ErrorKind::InvalidSignature => format!("the {} signature does not verify", alg_name(alg)),
        ErrorKind::MissingRequiredClaim(c) => format!("the `{c}` claim is missing"),
        ErrorKind::InvalidClaimFormat(c) => format!("the `{c}` claim is malformed"),
        ErrorKind::InvalidAlgorithm => "the algorithm does not fit the key".into(),
        _ => "the token is malformed".into(),
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

    /// The algorithms accepted (default [`DEFAULT_ALGORITHMS`]). HMAC algorithms are ignored:
    /// an issuer's published keys are public.
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
        let algorithms: Vec<Algorithm> = self
            .algorithms
            .into_iter()
            .filter(|a| !matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
            .collect();
        if algorithms.is_empty() {
            return Err("no asymmetric algorithm is accepted".into());
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
