//! A small authorization server on 127.0.0.1:0 for the tests: RFC 8414 metadata, a JWKS that the
//! test changes (or takes down) while it runs, an introspection endpoint with a set answer and
//! delay, and a count of each fetch; and the test's own keys to sign tokens with.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime::auth::Algorithm;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// The test keys' public halves as JWKs, by name: `rsa`, `rsa2`, `ec`, `ed`.
pub fn public_jwks() -> Value {
    serde_json::from_str(include_str!("keys/public.json")).unwrap()
}

/// A JWKS holding the named keys.
pub fn jwks_of(names: &[&str]) -> Value {
    let all = public_jwks();
    json!({"keys": names.iter().map(|n| all[*n].clone()).collect::<Vec<_>>()})
}

/// The PKCS #8 DER of the private key named `name`.
fn private_key(name: &str) -> Vec<u8> {
    let pem = match name {
        "rsa" => include_str!("keys/rsa.pem"),
        "rsa2" => include_str!("keys/rsa2.pem"),
        "ec" => include_str!("keys/ec.pem"),
        "ed" => include_str!("keys/ed.pem"),
        other => panic!("no key {other}"),
    };
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap()
}

/// `alg`'s signature of `message` by the key named `key`, base64url.
pub fn sign(alg: Algorithm, key: &str, message: &[u8]) -> String {
    let der = private_key(key);
    let rng = SystemRandom::new();
    let signature = match alg {
        Algorithm::ES256 => {
            let p = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
            let pair = EcdsaKeyPair::from_pkcs8(p, &der, &rng).unwrap();
            pair.sign(&rng, message).unwrap().as_ref().to_vec()
        }
        Algorithm::ES384 => {
            let p = &signature::ECDSA_P384_SHA384_FIXED_SIGNING;
            let pair = EcdsaKeyPair::from_pkcs8(p, &der, &rng).unwrap();
            pair.sign(&rng, message).unwrap().as_ref().to_vec()
        }
        Algorithm::EdDSA => {
            let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der).unwrap();
            assert!(!pair.public_key().as_ref().is_empty());
            pair.sign(message).as_ref().to_vec()
        }
        rsa => {
            let padding: &'static dyn signature::RsaEncoding = match rsa {
                Algorithm::RS256 => &signature::RSA_PKCS1_SHA256,
                Algorithm::RS384 => &signature::RSA_PKCS1_SHA384,
                Algorithm::RS512 => &signature::RSA_PKCS1_SHA512,
                Algorithm::PS256 => &signature::RSA_PSS_SHA256,
                Algorithm::PS384 => &signature::RSA_PSS_SHA384,
                Algorithm::PS512 => &signature::RSA_PSS_SHA512,
                other => panic!("no signer for {other:?}"),
            };
            let pair = RsaKeyPair::from_pkcs8(&der).unwrap();
            let mut out = vec![0; pair.public().modulus_len()];
            pair.sign(padding, &rng, message, &mut out).unwrap();
            out
        }
    };
    URL_SAFE_NO_PAD.encode(signature)
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token signed with `alg` by the key `key`, its header naming `kid` and `typ`.
pub fn mint(
    alg: Algorithm,
    key: &str,
    kid: Option<&str>,
    typ: Option<&str>,
    claims: &Value,
) -> String {
    let mut header = json!({"typ": typ, "alg": alg.name()});
    if typ.is_none() {
        header.as_object_mut().unwrap().remove("typ");
    }
    if let Some(kid) = kid {
        header["kid"] = kid.into();
    }
    let signing = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = sign(alg, key, signing.as_bytes());
    format!("{signing}.{signature}")
}

/// A token assembled by hand: `header` and `claims` as JSON, then `signature` as given.
pub fn forge(header: &Value, claims: &Value, signature: &str) -> String {
    format!(
        "{}.{}.{signature}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    )
}

/// An HMAC-SHA256 signature of `header.claims` with `secret` (algorithm confusion).
pub fn hs256(header: &Value, claims: &Value, secret: &[u8]) -> String {
    let signing = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret);
    let signature = URL_SAFE_NO_PAD.encode(ring::hmac::sign(&key, signing.as_bytes()));
    format!("{signing}.{signature}")
}

/// What the test sets and reads while the authorization server runs.
#[derive(Default)]
pub struct Knobs {
    pub jwks: Mutex<Value>,
    pub jwks_down: AtomicBool,
    pub jwks_fetches: AtomicUsize,
    pub discovery_fetches: AtomicUsize,
    pub introspection: Mutex<Value>,
    pub introspection_delay: Mutex<Duration>,
    pub introspections: AtomicUsize,
    pub introspection_auth: Mutex<Option<String>>,
    pub issuer: Mutex<String>,
}

/// The authorization server, stopped when dropped.
pub struct Idp {
    pub issuer: String,
    pub knobs: Arc<Knobs>,
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for Idp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn json_response(value: &Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

async fn discovery(State(knobs): State<Arc<Knobs>>) -> Response {
    knobs.discovery_fetches.fetch_add(1, Ordering::SeqCst);
    let issuer = knobs.issuer.lock().unwrap().clone();
    json_response(&json!({
        "issuer": issuer,
        "jwks_uri": format!("{issuer}/jwks"),
        "introspection_endpoint": format!("{issuer}/introspect"),
        "token_endpoint": format!("{issuer}/token"),
    }))
}

async fn jwks(State(knobs): State<Arc<Knobs>>) -> Response {
    knobs.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    if knobs.jwks_down.load(Ordering::SeqCst) {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    let keys = knobs.jwks.lock().unwrap().clone();
    json_response(&keys)
}

async fn introspect(State(knobs): State<Arc<Knobs>>, headers: HeaderMap, body: String) -> Response {
    knobs.introspections.fetch_add(1, Ordering::SeqCst);
    *knobs.introspection_auth.lock().unwrap() = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let delay = *knobs.introspection_delay.lock().unwrap();
    tokio::time::sleep(delay).await;
    let mut answer = knobs.introspection.lock().unwrap().clone();
    // The answer names the token it was asked about, so the test can tell them apart.
    if let Some(token) = body
        .strip_prefix("token=")
        .and_then(|b| b.split('&').next())
    {
        answer["token_seen"] = token.into();
    }
    json_response(&answer)
}

/// Starts an authorization server whose JWKS holds `keys`.
pub async fn start(keys: &[&str]) -> Idp {
    let knobs = Arc::new(Knobs::default());
    *knobs.jwks.lock().unwrap() = jwks_of(keys);
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(discovery),
        )
        .route("/jwks", axum::routing::get(jwks))
        .route("/introspect", axum::routing::post(introspect))
        .with_state(knobs.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let issuer = format!("http://{addr}");
    *knobs.issuer.lock().unwrap() = issuer.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    Idp {
        issuer,
        knobs,
        addr,
        task,
    }
}

impl Idp {
    /// How many times the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.knobs.jwks_fetches.load(Ordering::SeqCst)
    }
}
