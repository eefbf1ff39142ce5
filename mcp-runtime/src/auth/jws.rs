//! JWS signatures (RFC 7515) of the asymmetric algorithms of RFC 7518 and RFC 8037, checked
//! with `ring`: an [`Algorithm`], a public key read from its JWK, and the verification of a
//! token's signature over its first two parts.
//!
//! `ring` is the crate rustls already builds for the fetches (`auth/fetch.rs`); the `jsonwebtoken`
//! crate this replaced brought a second major version of `syn` into the tree (through
//! `zeroize`'s derive and `curve25519-dalek`'s), which the project does not take.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey, VerificationAlgorithm};
use serde_json::Value;

/// A signature algorithm a [`JwtValidator`](super::JwtValidator) may accept: the asymmetric
/// ones an issuer signs access tokens with (never `none`, never HMAC: an issuer's published
/// keys are public).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// RSASSA-PSS with SHA-256.
    PS256,
    /// RSASSA-PSS with SHA-384.
    PS384,
    /// RSASSA-PSS with SHA-512.
    PS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
    /// Ed25519 (RFC 8037).
    EdDSA,
}

impl Algorithm {
    /// Every algorithm, in the order above.
    const ALL: [Algorithm; 9] = [
        Algorithm::RS256,
        Algorithm::RS384,
        Algorithm::RS512,
        Algorithm::PS256,
        Algorithm::PS384,
        Algorithm::PS512,
        Algorithm::ES256,
        Algorithm::ES384,
        Algorithm::EdDSA,
    ];

    /// Its JOSE name (`alg`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::RS256 => "RS256",
            Algorithm::RS384 => "RS384",
            Algorithm::RS512 => "RS512",
            Algorithm::PS256 => "PS256",
            Algorithm::PS384 => "PS384",
            Algorithm::PS512 => "PS512",
            Algorithm::ES256 => "ES256",
            Algorithm::ES384 => "ES384",
            Algorithm::EdDSA => "EdDSA",
        }
    }

    /// The algorithm a JOSE header's `alg` names, if it is one of these.
    pub(crate) fn named(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The kind of key it verifies with.
    fn kind(self) -> KeyKind {
        match self {
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => KeyKind::Rsa,
            Algorithm::ES256 => KeyKind::P256,
            Algorithm::ES384 => KeyKind::P384,
            Algorithm::EdDSA => KeyKind::Ed25519,
        }
    }
}

/// The kinds of public key a JWKS entry may hold that this side verifies with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum KeyKind {
    Rsa,
    P256,
    P384,
    Ed25519,
}

/// A public key read from a JWK, as `ring` takes it.
pub(crate) enum PublicKey {
    /// The modulus and the exponent, big-endian.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// An uncompressed point (`0x04 ‖ x ‖ y`) of `P-256` or `P-384`, or an Ed25519 key.
    Point(KeyKind, Vec<u8>),
}

impl PublicKey {
    /// The key a JWK's members give (`kty`, and `n`/`e`, `crv`/`x`/`y`); `None` for a
    /// symmetric key, a curve not served, or a member that is not base64url of the right size.
    pub(crate) fn of_jwk(jwk: &Value) -> Option<PublicKey> {
        let bytes = |name: &str| {
            let text = jwk.get(name)?.as_str()?;
            URL_SAFE_NO_PAD.decode(text).ok()
        };
        match jwk.get("kty")?.as_str()? {
            "RSA" => Some(PublicKey::Rsa {
                n: bytes("n")?,
                e: bytes("e")?,
            }),
            "EC" => {
                let (kind, len) = match jwk.get("crv")?.as_str()? {
                    "P-256" => (KeyKind::P256, 32),
                    "P-384" => (KeyKind::P384, 48),
                    _ => return None,
                };
                let (x, y) = (bytes("x")?, bytes("y")?);
                if x.len() != len || y.len() != len {
                    return None;
                }
                let mut point = Vec::with_capacity(1 + 2 * len);
                point.push(0x04);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                Some(PublicKey::Point(kind, point))
            }
            "OKP" if jwk.get("crv")?.as_str()? == "Ed25519" => {
                let x = bytes("x")?;
                (x.len() == 32).then_some(PublicKey::Point(KeyKind::Ed25519, x))
            }
            // `oct` (an HMAC secret) is never a key of an asymmetric issuer.
            _ => None,
        }
    }

    /// The kind of the key.
    pub(crate) fn kind(&self) -> KeyKind {
        match self {
            PublicKey::Rsa { .. } => KeyKind::Rsa,
            PublicKey::Point(kind, _) => *kind,
        }
    }

    /// Whether `signature` is `alg`'s signature of `message` by this key; false for a key of
    /// another kind.
    pub(crate) fn verifies(&self, alg: Algorithm, message: &[u8], signature: &[u8]) -> bool {
        if alg.kind() != self.kind() {
            return false;
        }
        match self {
            PublicKey::Rsa { n, e } => {
                let params: &signature::RsaParameters = match alg {
                    Algorithm::RS256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Algorithm::RS384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Algorithm::RS512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Algorithm::PS256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Algorithm::PS384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Algorithm::PS512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return false,
                };
                RsaPublicKeyComponents { n, e }
                    .verify(params, message, signature)
                    .is_ok()
            }
            PublicKey::Point(_, key) => {
                let algorithm: &'static dyn VerificationAlgorithm = match alg {
                    Algorithm::ES256 => &signature::ECDSA_P256_SHA256_FIXED,
                    Algorithm::ES384 => &signature::ECDSA_P384_SHA384_FIXED,
                    Algorithm::EdDSA => &signature::ED25519,
                    _ => return false,
                };
                UnparsedPublicKey::new(algorithm, key)
                    .verify(message, signature)
                    .is_ok()
            }
        }
    }
}

impl Algorithm {
    /// Whether a key of `kind` verifies this algorithm's signatures.
    pub(crate) fn fits(self, kind: KeyKind) -> bool {
        self.kind() == kind
    }
}

#[cfg(test)]
mod tests {
    use super::{Algorithm, KeyKind, PublicKey};
    use serde_json::json;

    #[test]
    fn every_algorithm_is_named_back_by_its_name() {
        for alg in Algorithm::ALL {
            assert_eq!(Algorithm::named(alg.name()), Some(alg));
        }
        for other in ["none", "HS256", "rs256", "ES512", "EdDSA "] {
            assert_eq!(Algorithm::named(other), None, "{other}");
        }
    }

    #[test]
    fn keys_of_the_wrong_size_or_kind_are_not_read() {
        let ed = json!({"kty": "OKP", "crv": "Ed25519",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
        let key = PublicKey::of_jwk(&ed).unwrap();
        assert_eq!(key.kind(), KeyKind::Ed25519);
        assert!(!key.verifies(Algorithm::ES256, b"m", &[0; 64]));
        assert!(!key.verifies(Algorithm::EdDSA, b"m", &[0; 64]));
        let short = json!({"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKx"});
        assert!(PublicKey::of_jwk(&short).is_none());
        let x448 = json!({"kty": "OKP", "crv": "X448", "x": "11qYAYKx"});
        assert!(PublicKey::of_jwk(&x448).is_none());
        assert!(PublicKey::of_jwk(&json!({"kty": "oct", "k": "c2VjcmV0"})).is_none());
        let ec = json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"});
        assert!(PublicKey::of_jwk(&ec).is_none());
    }
}
