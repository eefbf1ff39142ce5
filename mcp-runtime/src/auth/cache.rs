//! [`CachedValidator`]: verified tokens remembered by a hash of the token, so that a client's
//! repeated calls do not each pay a signature check (or an introspection round trip).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::BoxFuture;
use sha2::{Digest, Sha256};

use super::{Principal, TokenError, TokenValidator};
use crate::context::connection::lock;

/// A [`TokenValidator`] in front of another that remembers the principals of tokens it
/// verified: keyed by SHA-256 of the resource and the token (the token itself is not kept),
/// at most `capacity` entries (default 10,000), each dropped at the token's `exp` or after
/// `max_age` (default 5 minutes), whichever comes first. Refusals are not remembered.
pub struct CachedValidator<V> {
    inner: V,
    capacity: usize,
    max_age: Duration,
    entries: Mutex<HashMap<[u8; 32], Entry>>,
}

/// A verified token's principal, and until when it is kept.
type Entry = (Arc<Principal>, Instant);

impl<V: TokenValidator> CachedValidator<V> {
    /// `inner` behind a cache of 10,000 entries kept at most 5 minutes.
    pub fn new(inner: V) -> Self {
        CachedValidator {
            inner,
            capacity: 10_000,
            max_age: Duration::from_secs(300),
            entries: Mutex::new(HashMap::new()),
        }
    }

    setters! {
        /// The most tokens remembered (default 10,000; at least 1).
        pub fn capacity(n: usize) => capacity = n.max(1);

        /// The longest a token is remembered, whatever its `exp` (default 5 minutes).
        pub fn max_age(age: Duration) => max_age = age;
    }

    /// How many tokens are remembered now.
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }

    /// Whether no token is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    async fn check(&self, token: &str, resource: &str) -> Result<Principal, TokenError> {
        let mut hash = Sha256::new();
        hash.update(resource.as_bytes());
        hash.update([0]);
        hash.update(token.as_bytes());
        let key: [u8; 32] = hash.finalize().into();
        let now = Instant::now();
        if let Some((principal, until)) = lock(&self.entries).get(&key)
            && *until > now
        {
            return Ok(Principal::clone(principal));
        }
        let principal = self.inner.validate(token, resource).await?;
        let until_exp = principal
            .expires_at()
            .and_then(|exp| exp.duration_since(SystemTime::now()).ok())
            .unwrap_or(Duration::ZERO);
        let keep = until_exp.min(self.max_age);
        if !keep.is_zero() {
            let mut entries = lock(&self.entries);
            if entries.len() >= self.capacity {
                entries.retain(|_, (_, until)| *until > now);
            }
            if entries.len() >= self.capacity {
                // Still full of live entries: drop an arbitrary one.
                if let Some(victim) = entries.keys().next().copied() {
                    entries.remove(&victim);
                }
            }
            entries.insert(key, (Arc::new(principal.clone()), now + keep));
        }
        Ok(principal)
    }
}

impl<V: TokenValidator> TokenValidator for CachedValidator<V> {
    fn validate<'a>(
        &'a self,
        token: &'a str,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(self.check(token, resource))
    }
}

impl<V: std::fmt::Debug> std::fmt::Debug for CachedValidator<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedValidator")
            .field("inner", &self.inner)
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting(AtomicUsize, u64);

    impl TokenValidator for Counting {
        fn validate<'a>(
            &'a self,
            token: &'a str,
            _resource: &'a str,
        ) -> BoxFuture<'a, Result<Principal, TokenError>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            let exp = SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                + self.1;
            let claims = serde_json::json!({"sub": token, "exp": exp});
            let result = if token == "bad" {
                Err(TokenError::Invalid("bad".into()))
            } else {
                Ok(Principal::from_claims(claims.as_object().unwrap().clone()))
            };
            Box::pin(async move { result })
        }
    }

    #[tokio::test]
    async fn a_verified_token_is_remembered_until_bounded() {
        let cache = CachedValidator::new(Counting(AtomicUsize::new(0), 100)).capacity(2);
        for _ in 0..3 {
            assert_eq!(cache.validate("a", "r").await.unwrap().subject(), Some("a"));
        }
        assert_eq!(cache.inner.0.load(Ordering::SeqCst), 1);
        // Another resource is another entry.
        cache.validate("a", "other").await.unwrap();
        assert_eq!(cache.inner.0.load(Ordering::SeqCst), 2);
        cache.validate("b", "r").await.unwrap();
        assert_eq!(cache.len(), 2);
        assert!(cache.validate("bad", "r").await.is_err());
        assert!(cache.validate("bad", "r").await.is_err());
        assert_eq!(cache.inner.0.load(Ordering::SeqCst), 5);
    }

    #[tokio::test]
    async fn an_expired_token_is_not_kept() {
        let cache = CachedValidator::new(Counting(AtomicUsize::new(0), 0));
        cache.validate("a", "r").await.unwrap();
        cache.validate("a", "r").await.unwrap();
        assert_eq!(cache.inner.0.load(Ordering::SeqCst), 2);
        assert!(cache.is_empty());
    }
}
