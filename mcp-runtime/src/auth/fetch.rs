//! The resource server's own HTTP fetches (discovery, the JWKS, introspection): `https://` only,
//! except to a loopback host; no redirects followed, no proxy taken from the environment; each
//! with a timeout and a cap on the answer's size.

use std::time::Duration;

use reqwest::Url;
use serde_json::Value;

use super::TokenError;

/// How the fetches of a validator are bounded.
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    max_bytes: usize,
}

/// The default timeout of one fetch (connect, send and read the whole answer).
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// The default cap on a fetched document (metadata, JWKS, introspection answer).
pub const DEFAULT_MAX_FETCH_BYTES: usize = 256 * 1024;

impl Fetcher {
    pub(crate) fn new(timeout: Duration, max_bytes: usize) -> Result<Fetcher, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|e| format!("the HTTP client could not be built: {e}"))?;
        Ok(Fetcher { client, max_bytes })
    }

    /// `GET url` as a JSON object.
    pub(crate) async fn get_json(&self, url: &Url) -> Result<Value, TokenError> {
        let request = self
            .client
            .get(url.clone())
            .header("accept", "application/json");
        self.send(request, url).await
    }

    /// `POST url` with a form body and HTTP Basic client authentication.
    pub(crate) async fn post_form(
        &self,
        url: &Url,
        form: &str,
        basic: Option<(&str, &str)>,
    ) -> Result<Value, TokenError> {
        let mut request = self
            .client
            .post(url.clone())
            .header("accept", "application/json")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form.to_owned());
        if let Some((id, secret)) = basic {
            // RFC 6749 §2.3.1: each part form-urlencoded before Basic encoding.
            request = request.basic_auth(form_encode(id), Some(form_encode(secret)));
        }
        self.send(request, url).await
    }

    async fn send(&self, request: reqwest::RequestBuilder, url: &Url) -> Result<Value, TokenError> {
        let unavailable = |why: String| TokenError::Unavailable(format!("{url}: {why}"));
        let mut response = request
            .send()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        if !response.status().is_success() {
            return Err(unavailable(format!("answered {}", response.status())));
        }
        if response
            .content_length()
            .is_some_and(|n| n > self.max_bytes as u64)
        {
            return Err(unavailable(format!("over {} bytes", self.max_bytes)));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| unavailable(e.to_string()))?
        {
            if body.len() + chunk.len() > self.max_bytes {
                return Err(unavailable(format!("over {} bytes", self.max_bytes)));
            }
            body.extend_from_slice(&chunk);
        }
        let value: Value =
            serde_json::from_slice(&body).map_err(|e| unavailable(format!("not JSON: {e}")))?;
        if value.is_object() {
            Ok(value)
        } else {
            Err(unavailable("not a JSON object".into()))
        }
    }
}

/// `url` parsed and checked as an endpoint the resource server may fetch: `https://`, or
/// `http://` to a loopback host (tests, a sidecar); no user info, no fragment.
pub(crate) fn checked_url(url: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!("`{url}` carries credentials"));
    }
    if parsed.fragment().is_some() {
        return Err(format!("`{url}` has a fragment"));
    }
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        "http" => Err(format!(
            "`{url}`: plain http is allowed only to a loopback host; use https"
        )),
        other => Err(format!("`{url}`: scheme `{other}` is not http(s)")),
    }
}

/// Whether `url`'s host is loopback (`localhost`, `127.0.0.0/8`, `[::1]`).
pub(crate) fn is_loopback(url: &Url) -> bool {
    url.host_str().is_some_and(|host| {
        host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    })
}

/// Whether two URLs share scheme, host and port.
pub(crate) fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin()
}

/// `application/x-www-form-urlencoded` encoding of one value.
pub(crate) fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http() {
        assert!(checked_url("https://idp.example.com").is_ok());
        assert!(checked_url("http://127.0.0.1:9000/x").is_ok());
        assert!(checked_url("http://localhost:9000").is_ok());
        assert!(checked_url("http://[::1]:9000").is_ok());
        assert!(checked_url("http://idp.example.com").is_err());
        assert!(checked_url("ftp://idp.example.com").is_err());
        assert!(checked_url("https://u:p@idp.example.com").is_err());
        assert!(checked_url("not a url").is_err());
    }

    #[test]
    fn form_encoding() {
        assert_eq!(form_encode("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
    }
}
