//! The issuer's signing keys: discovery of `jwks_uri` from the issuer alone (RFC 8414, then
//! OpenID Connect Discovery), the JWKS kept for a TTL, and refreshes that are single-flight and
//! rate-limited, so that a flood of unknown `kid`s costs the authorization server at most one
//! fetch per interval. While the JWKS cannot be fetched the keys already held keep working; with
//! none, every token is refused (fail closed).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Url;
use serde_json::Value;

use super::TokenError;
use super::fetch::{Fetcher, checked_url, same_origin};
use super::jws::{Algorithm, PublicKey};
use crate::context::connection::lock;

/// One verification key of the set.
pub(crate) struct Key {
    kid: Option<String>,
    /// The key's own `alg`, when it names one: then only that algorithm may use it.
    alg: Option<String>,
    pub(crate) public: PublicKey,
}

impl Key {
    /// A JWKS entry as a verification key; `None` for a key that is not for signatures (`use`
    /// other than `sig`, `key_ops` without `verify`), symmetric, or of a kind not served.
    fn of(value: &Value) -> Option<Key> {
        let text = |name: &str| match value.get(name) {
            None => Some(None),
            Some(Value::String(s)) => Some(Some(s.clone())),
            Some(_) => None,
        };
        if text("use")?.is_some_and(|u| u != "sig") {
            return None;
        }
        match value.get("key_ops") {
            None => {}
            Some(Value::Array(ops)) if ops.iter().any(|o| o == "verify") => {}
            Some(_) => return None,
        }
        Some(Key {
            kid: text("kid")?,
            alg: text("alg")?,
            public: PublicKey::of_jwk(value)?,
        })
    }

    /// Whether this key may verify a signature made with `alg`.
    fn fits(&self, alg: Algorithm) -> bool {
        alg.fits(self.public.kind()) && self.alg.as_deref().is_none_or(|a| a == alg.name())
    }
}

/// How the key set is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyPolicy {
    pub(crate) ttl: Duration,
    pub(crate) min_refresh: Duration,
}

#[derive(Default)]
struct KeyState {
    keys: Arc<Vec<Key>>,
    fetched_at: Option<Instant>,
    last_attempt: Option<Instant>,
    generation: u64,
    jwks_uri: Option<Url>,
}

/// The issuer's keys, fetched when needed.
pub(crate) struct KeySource {
    fetcher: Fetcher,
    issuer: String,
    issuer_url: Url,
    policy: KeyPolicy,
    state: Mutex<KeyState>,
    refresh: tokio::sync::Mutex<()>,
}

impl KeySource {
    /// Keys of `issuer`, from `jwks_uri` when given (else discovered).
    pub(crate) fn new(
        fetcher: Fetcher,
        issuer: String,
        jwks_uri: Option<Url>,
        policy: KeyPolicy,
    ) -> Result<KeySource, String> {
        let issuer_url = checked_url(&issuer)?;
        Ok(KeySource {
            fetcher,
            issuer,
            issuer_url,
            policy,
            state: Mutex::new(KeyState {
                jwks_uri,
                ..KeyState::default()
            }),
            refresh: tokio::sync::Mutex::new(()),
        })
    }

    /// The key for a token signed with `alg` under `kid`: from the keys held while they are
    /// fresh; else (stale, none, or no such `kid`) after one refresh, if the rate limit allows.
    pub(crate) async fn key_for(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Vec<Key>>, TokenError> {
        let (keys, fresh, generation) = {
            let state = lock(&self.state);
            let fresh = state
                .fetched_at
                .is_some_and(|t| t.elapsed() < self.policy.ttl);
            (state.keys.clone(), fresh, state.generation)
        };
        if fresh && find(&keys, kid, alg).is_some() {
            return Ok(keys);
        }
        self.refresh(generation).await;
        let keys = lock(&self.state).keys.clone();
        if keys.is_empty() {
            return Err(TokenError::Unavailable(
                "the authorization server's keys could not be fetched".into(),
            ));
        }
        if find(&keys, kid, alg).is_none() {
            return Err(TokenError::Invalid(match kid {
                Some(kid) => format!("no {} key with kid `{kid}`", alg.name()),
                None => format!("no single {} key for a token without kid", alg.name()),
            }));
        }
        Ok(keys)
    }

    /// Fetches the key set again, unless another caller did since `seen` or the last attempt
    /// is within the minimum interval. Failures are logged; the keys held stay.
    async fn refresh(&self, seen: u64) {
        let _single = self.refresh.lock().await;
        {
            let mut state = lock(&self.state);
            if state.generation != seen {
                return;
            }
            if state
                .last_attempt
                .is_some_and(|t| t.elapsed() < self.policy.min_refresh)
            {
                return;
            }
            state.last_attempt = Some(Instant::now());
        }
        match self.fetch_keys().await {
            Ok(keys) => {
                let mut state = lock(&self.state);
                tracing::debug!(keys = keys.len(), issuer = %self.issuer, "fetched the JWKS");
                state.keys = Arc::new(keys);
                state.fetched_at = Some(Instant::now());
                state.generation += 1;
            }
            Err(e) => tracing::warn!(error = %e, issuer = %self.issuer, "fetching the JWKS failed"),
        }
    }

    async fn fetch_keys(&self) -> Result<Vec<Key>, TokenError> {
        let known = lock(&self.state).jwks_uri.clone();
        let jwks_uri = match known {
            Some(uri) => uri,
            None => {
                let uri = self.discover().await?;
                lock(&self.state).jwks_uri = Some(uri.clone());
                uri
            }
        };
        let set = self.fetcher.get_json(&jwks_uri).await?;
        let keys = set
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| TokenError::Unavailable(format!("{jwks_uri}: no `keys` array")))?;
        Ok(keys.iter().filter_map(Key::of).collect())
    }

    /// `jwks_uri` from the issuer's metadata: RFC 8414 first, then OpenID Connect Discovery.
    /// The document must name this issuer exactly (RFC 8414 §3.3).
    async fn discover(&self) -> Result<Url, TokenError> {
        let mut last = TokenError::Unavailable("no discovery document".into());
        for url in discovery_urls(&self.issuer_url) {
            if !same_origin(&url, &self.issuer_url) {
                continue;
            }
            let doc = match self.fetcher.get_json(&url).await {
                Ok(doc) => doc,
                Err(e) => {
                    last = e;
                    continue;
                }
            };
            if doc.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
                last = TokenError::Unavailable(format!("{url} names another issuer"));
                continue;
            }
            let Some(jwks) = doc.get("jwks_uri").and_then(Value::as_str) else {
                last = TokenError::Unavailable(format!("{url} names no jwks_uri"));
                continue;
            };
            return checked_url(jwks).map_err(TokenError::Unavailable);
        }
        Err(last)
    }
}

/// The one key for `kid` and `alg` in `keys`. Without a `kid`, only when exactly one key fits.
pub(crate) fn find<'k>(keys: &'k [Key], kid: Option<&str>, alg: Algorithm) -> Option<&'k Key> {
    match kid {
        Some(kid) => keys
            .iter()
            .find(|k| k.kid.as_deref() == Some(kid) && k.fits(alg)),
        None => {
            let mut fitting = keys.iter().filter(|k| k.fits(alg));
            let first = fitting.next()?;
            fitting.next().is_none().then_some(first)
        }
    }
}

/// RFC 8414 §3.1 (the well-known suffix inserted before the issuer's path), then OpenID
/// Connect Discovery §4 (appended to it).
pub(crate) fn discovery_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let mut urls = Vec::with_capacity(2);
    for (inserted, suffix) in [
        (true, "oauth-authorization-server"),
        (false, "openid-configuration"),
    ] {
        let mut url = issuer.clone();
        url.set_query(None);
        if inserted {
            url.set_path(&format!("/.well-known/{suffix}{path}"));
        } else {
            url.set_path(&format!("{path}/.well-known/{suffix}"));
        }
        urls.push(url);
    }
    urls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_urls_insert_then_append() {
        let urls = discovery_urls(&Url::parse("https://idp.example.com/tenant/a/").unwrap());
        assert_eq!(
            urls[0].as_str(),
            "https://idp.example.com/.well-known/oauth-authorization-server/tenant/a"
        );
        assert_eq!(
            urls[1].as_str(),
            "https://idp.example.com/tenant/a/.well-known/openid-configuration"
        );
        let urls = discovery_urls(&Url::parse("https://idp.example.com").unwrap());
        assert_eq!(
            urls[0].as_str(),
            "https://idp.example.com/.well-known/oauth-authorization-server"
        );
    }

    #[test]
    fn keys_for_other_uses_or_symmetric_are_dropped() {
        let oct = serde_json::json!({"kty": "oct", "k": "c2VjcmV0", "kid": "h"});
        assert!(Key::of(&oct).is_none());
        let ed = serde_json::json!({"kty": "OKP", "crv": "Ed25519", "kid": "e",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
        let key = Key::of(&ed).unwrap();
        assert!(key.fits(Algorithm::EdDSA) && !key.fits(Algorithm::ES256));
        let mut enc = ed.clone();
        enc["use"] = "enc".into();
        assert!(Key::of(&enc).is_none());
        let mut ops = ed.clone();
        ops["key_ops"] = serde_json::json!(["sign"]);
        assert!(Key::of(&ops).is_none());
        let mut pinned = ed;
        pinned["alg"] = "EdDSA".into();
        let keys = vec![Key::of(&pinned).unwrap()];
        assert!(find(&keys, Some("e"), Algorithm::EdDSA).is_some());
        assert!(find(&keys, Some("x"), Algorithm::EdDSA).is_none());
        assert!(find(&keys, None, Algorithm::EdDSA).is_some());
    }
}
