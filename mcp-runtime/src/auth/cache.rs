//! [`CachedValidator`]: verified tokens remembered by a keyed hash of the token, so that a
//! client's repeated calls do not each pay a signature check (or an introspection round trip).
//!
//! The key is SipHash-2-4 with a 128-bit output, under a 128-bit key drawn from the operating
//! system when the cache is made: a pseudorandom function of the resource and the token, so
//! the token is not kept, and without the key nobody can make another token that lands on a
//! cached one's entry (an entry found is a principal handed out). A SHA-256 of the token cost a
//! cached call about 37,000 instructions (callgrind, an RS256 token of about 600 bytes; software
//! SHA-256, as valgrind hides the CPU's SHA extensions); SipHash, the lookup with it, about 5,500.

use std::collections::HashMap;
use std::hash::Hasher as _;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::BoxFuture;
use siphasher::sip128::{Hasher128 as _, SipHasher24};

use super::{Principal, TokenError, TokenValidator};
use crate::context::connection::lock;

/// A [`TokenValidator`] in front of another that remembers the principals of tokens it
/// verified: keyed by a keyed hash of the resource and the token (SipHash-2-4, 128 bits, under
/// a random key; the token itself is not kept), at most `capacity` entries (default 10,000),
/// each dropped at the token's `exp` or after `max_age` (default 5 minutes), whichever comes
/// first. Refusals are not remembered.
pub struct CachedValidator<V> {
    inner: V,
    capacity: usize,
    max_age: Duration,
    /// The hash's key, drawn when the cache is made.
    key: (u64, u64),
    entries: Mutex<HashMap<u128, Entry>>,
}

/// A verified token's principal (a clone shares its claims), and until when it is kept.
type Entry = (Principal, Instant);

impl<V: TokenValidator> CachedValidator<V> {
    /// `inner` behind a cache of 10,000 entries kept at most 5 minutes.
    pub fn new(inner: V) -> Self {
        CachedValidator {
            inner,
            capacity: 10_000,
            max_age: Duration::from_secs(300),
            key: random_key(),
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

    /// The live entry of `token` for `resource`, if any.
    fn lookup(&self, token: &str, resource: &str) -> Option<Principal> {
        let key = self.key_of(token, resource);
        match lock(&self.entries).get(&key) {
            Some((principal, until)) if *until > Instant::now() => Some(principal.clone()),
            _ => None,
        }
    }

    async fn check(&self, token: &str, resource: &str) -> Result<Principal, TokenError> {
        if let Some(principal) = self.lookup(token, resource) {
            return Ok(principal);
        }
        let key = self.key_of(token, resource);
        let now = Instant::now();
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
            entries.insert(key, (principal.clone(), now + keep));
        }
        Ok(principal)
    }

    /// The entry's key: the resource's length first, so that no split of one string into a
    /// resource and a token reads as another's.
    fn key_of(&self, token: &str, resource: &str) -> u128 {
        let mut hash = SipHasher24::new_with_keys(self.key.0, self.key.1);
        hash.write_u64(resource.len() as u64);
        hash.write(resource.as_bytes());
        hash.write(token.as_bytes());
        hash.finish128().into()
    }
}

/// A key from the operating system's random source (as session ids are drawn).
fn random_key() -> (u64, u64) {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let (a, b) = bytes.split_at(8);
    let word = |half: &[u8]| u64::from_le_bytes(half.try_into().unwrap_or_default());
    (word(a), word(b))
}

impl<V: TokenValidator> TokenValidator for CachedValidator<V> {
    fn validate<'a>(
        &'a self,
        token: &'a str,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(self.check(token, resource))
    }

    fn remembered(&self, token: &str, resource: &str) -> Option<Principal> {
        self.lookup(token, resource)
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

    #[test]
    fn keys_differ_by_resource_token_split_and_cache() {
        let cache = CachedValidator::new(Counting(AtomicUsize::new(0), 100));
        let key = cache.key_of("token", "https://r/mcp");
        assert_eq!(key, cache.key_of("token", "https://r/mcp"));
        assert_ne!(key, cache.key_of("token2", "https://r/mcp"));
        assert_ne!(key, cache.key_of("token", "https://r/mc"));
        assert_ne!(cache.key_of("ab", "c"), cache.key_of("b", "ca"));
        // Another cache draws another key.
        let other = CachedValidator::new(Counting(AtomicUsize::new(0), 100));
        assert_ne!(key, other.key_of("token", "https://r/mcp"));
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
