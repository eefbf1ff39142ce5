//! [`Principal`]: who a verified access token speaks for, and what it may do.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The verified identity behind a request: the subject, the client it was issued to, its scopes,
/// when it expires, and every claim of the token (or of the introspection answer).
///
/// A tool reads it through `Context::principal` (feature `auth`); the raw token is never part
/// of it. A clone shares the claims (one reference count): the verified-token cache hands one
/// out on every call.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    fields: std::sync::Arc<Fields>,
}

#[derive(Debug, PartialEq)]
struct Fields {
    subject: Option<String>,
    client_id: Option<String>,
    scopes: Vec<String>,
    expires_at: Option<SystemTime>,
    claims: Map<String, Value>,
}

impl Principal {
    /// The principal of a set of verified claims: `sub`; the client from `client_id` (RFC 9068),
    /// else `azp`, else `cid`; the scopes from `scope` (a space-separated string) or `scp` (an
    /// array of strings, or a string); the expiry from `exp` (seconds since the epoch).
    pub fn from_claims(claims: Map<String, Value>) -> Principal {
        let text = |key: &str| claims.get(key).and_then(Value::as_str).map(str::to_owned);
        let subject = text("sub");
        let client_id = text("client_id")
            .or_else(|| text("azp"))
            .or_else(|| text("cid"));
        let scopes = scopes_of(&claims);
        let expires_at = claims
            .get("exp")
            .and_then(Value::as_u64)
            .map(|s| UNIX_EPOCH + Duration::from_secs(s));
        Principal {
            fields: std::sync::Arc::new(Fields {
                subject,
                client_id,
                scopes,
                expires_at,
                claims,
            }),
        }
    }

    /// The subject (`sub`): the end user, or for a client-credentials token the client itself.
    pub fn subject(&self) -> Option<&str> {
        self.fields.subject.as_deref()
    }

    /// The OAuth client the token was issued to.
    pub fn client_id(&self) -> Option<&str> {
        self.fields.client_id.as_deref()
    }

    /// The scopes the token grants, as the authorization server wrote them (no hierarchy applied).
    pub fn scopes(&self) -> &[String] {
        &self.fields.scopes
    }

    /// Whether the token lists `scope` itself (no hierarchy applied; the endpoint's checks apply
    /// the server's hierarchy).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.fields.scopes.iter().any(|s| s == scope)
    }

    /// When the token expires.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.fields.expires_at
    }

    /// The issuer (`iss`), when the token names one.
    pub fn issuer(&self) -> Option<&str> {
        self.fields.claims.get("iss").and_then(Value::as_str)
    }

    /// Every claim, as verified.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.fields.claims
    }

    /// A custom claim read as `T` (a tenant id, a role list): `None` when absent, `Some(Err)` when
    /// present but not a `T`.
    pub fn claim<T: DeserializeOwned>(&self, name: &str) -> Option<Result<T, serde_json::Error>> {
        self.fields.claims.get(name).map(T::deserialize)
    }

    /// A key that names this principal across requests: the issuer and the subject (`sub`), or
    /// for a token without a subject the client it was issued to, marked apart so that a
    /// client id never names a user of the same name. Sessions and tasks are bound to it.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn owner_key(&self) -> String {
        let (issuer, kind, who) = self.owner_parts();
        format!("{issuer}\u{1f}{kind}\u{1f}{who}")
    }

    /// Whether `key` is this principal's [owner key](Self::owner_key), compared without
    /// building it (once per request of a session).
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn is_owner(&self, key: &str) -> bool {
        let (issuer, kind, who) = self.owner_parts();
        key.strip_prefix(issuer)
            .and_then(|rest| rest.strip_prefix('\u{1f}'))
            .and_then(|rest| rest.strip_prefix(kind))
            .and_then(|rest| rest.strip_prefix('\u{1f}'))
            == Some(who)
    }

    fn owner_parts(&self) -> (&str, &str, &str) {
        let issuer = self.issuer().unwrap_or("");
        match (self.subject(), self.client_id()) {
            (Some(subject), _) => (issuer, "sub", subject),
            (None, Some(client)) => (issuer, "client", client),
            (None, None) => (issuer, "none", ""),
        }
    }
}

#[cfg(feature = "auth")]
tokio::task_local! {
    /// The principal of the request being served, while the HTTP endpoint handles it: a
    /// connection made for the request (a stateless request's, a new session's) takes it.
    static CURRENT: Principal;
}

/// Runs `fut` (the endpoint handling one request) with `principal` as the request's.
#[cfg(feature = "auth")]
pub(crate) async fn serve_as<F: Future>(principal: Principal, fut: F) -> F::Output {
    CURRENT.scope(principal, fut).await
}

/// The principal of the request being served on this task, if the endpoint checked one.
#[cfg(feature = "auth")]
pub(crate) fn current() -> Option<Principal> {
    CURRENT.try_with(Principal::clone).ok()
}

/// `scope` as a space-separated string, else `scp` as an array of strings or a string.
fn scopes_of(claims: &Map<String, Value>) -> Vec<String> {
    let split = |s: &str| {
        s.split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    };
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) => split(s),
        (_, Some(Value::Array(items))) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::String(s))) => split(s),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn principal(claims: Value) -> Principal {
        Principal::from_claims(claims.as_object().unwrap().clone())
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let p = principal(json!({"scope": "a  b:c", "sub": "u", "exp": 10}));
        assert_eq!(p.scopes(), ["a", "b:c"]);
        assert_eq!(p.subject(), Some("u"));
        assert_eq!(p.expires_at(), Some(UNIX_EPOCH + Duration::from_secs(10)));
        let p = principal(json!({"scp": ["x", 3, "y"], "azp": "cli"}));
        assert_eq!(p.scopes(), ["x", "y"]);
        assert_eq!(p.client_id(), Some("cli"));
        assert!(p.has_scope("x") && !p.has_scope("z"));
        assert!(principal(json!({})).scopes().is_empty());
    }

    #[test]
    fn the_owner_key_is_issuer_and_subject_and_is_owner_agrees() {
        let alice = principal(json!({"iss": "https://idp", "sub": "alice", "client_id": "c"}));
        let key = alice.owner_key();
        assert!(alice.is_owner(&key));
        let bob = principal(json!({"iss": "https://idp", "sub": "bob", "client_id": "c"}));
        assert!(!bob.is_owner(&key));
        let elsewhere = principal(json!({"iss": "https://other", "sub": "alice"}));
        assert!(!elsewhere.is_owner(&key));
        // A token without `sub` is owned by its client, which never passes for a user of the
        // same name.
        let client = principal(json!({"iss": "https://idp", "client_id": "alice"}));
        assert!(!client.is_owner(&key));
        assert!(client.is_owner(&client.owner_key()));
        assert!(!alice.is_owner("https://idp\u{1f}sub\u{1f}alicex"));
        assert!(!alice.is_owner("https://idp\u{1f}sub\u{1f}"));
        assert!(!alice.is_owner("https://idpsubalice"));
    }

    #[test]
    fn a_custom_claim_is_read_typed() {
        let p = principal(json!({"tenant": {"id": 7}, "client_id": "c", "azp": "d"}));
        #[derive(serde::Deserialize, PartialEq, Debug)]
        struct Tenant {
            id: u32,
        }
        assert_eq!(
            p.claim::<Tenant>("tenant").unwrap().unwrap(),
            Tenant { id: 7 }
        );
        assert!(p.claim::<String>("tenant").unwrap().is_err());
        assert!(p.claim::<String>("absent").is_none());
        assert_eq!(p.client_id(), Some("c"));
    }
}
