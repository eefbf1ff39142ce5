//! The token of an `Authorization: Bearer` header, read from its bytes: for the endpoint's check
//! (`layer.rs`) and for `BearerAuth`, the HTTP transport's fixed-token layer, which is there
//! without the `auth` feature.

use axum::http::HeaderValue;

/// The token's bytes of `Authorization: Bearer <token>` (the scheme in any case, the spaces
/// around the token dropped; a bare `Bearer`, an empty token); `None` for another scheme. Inlined
/// into its callers as when it was the endpoint check's own (the figures in `layer.rs`).
#[inline]
pub(crate) fn bearer_bytes(value: &HeaderValue) -> Option<&[u8]> {
    let bytes = value.as_bytes();
    let (scheme, token) = match bytes.iter().position(|&b| b == b' ') {
        Some(space) => (&bytes[..space], &bytes[space + 1..]),
        None => (bytes, &[][..]),
    };
    if !scheme.eq_ignore_ascii_case(b"bearer") {
        return None;
    }
    let start = token.iter().position(|&b| b != b' ').unwrap_or(token.len());
    let end = token
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(start, |last| last + 1);
    Some(&token[start..end])
}
