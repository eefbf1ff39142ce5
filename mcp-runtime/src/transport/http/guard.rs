//! What a request must be before anything reads it: an allowed `Origin` and `Host` (DNS
//! rebinding), media types the endpoint speaks, and a body within the size limit.

use std::time::Duration;

use axum::body::{Bytes, HttpBody};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};

use super::Refusal;
use super::names;
use super::options::{HttpOptions, LOOPBACK_HOSTS};
use crate::error::codes;

/// The headers the endpoint reads on every request, found in one pass over the request's map.
///
/// A lookup by name hashes the name and probes the map: the eight a stateless `POST` made cost
/// about 2,600 instructions (callgrind; the pass costs a few hundred). Each field holds the
/// first value given, as [`HeaderMap::get`] would; the map stays at hand for the headers only
/// some requests read (`Mcp-Param-*`, `Last-Event-ID`).
pub(super) struct Headers<'h> {
    /// The whole map.
    pub(super) map: &'h HeaderMap,
    origin: Option<&'h HeaderValue>,
    host: Option<&'h HeaderValue>,
    content_type: Option<&'h HeaderValue>,
    /// What every `Accept` value admits, together.
    accepted: Accepted,
    protocol_version: Option<&'h HeaderValue>,
    session_id: Option<&'h HeaderValue>,
    /// `Mcp-Session-Id` was given more than once.
    session_ids: usize,
    method: Option<&'h HeaderValue>,
    name: Option<&'h HeaderValue>,
}

impl<'h> Headers<'h> {
    /// Reads `map` once.
    pub(super) fn read(map: &'h HeaderMap) -> Headers<'h> {
        let mut seen = Headers {
            map,
            origin: None,
            host: None,
            content_type: None,
            accepted: Accepted::default(),
            protocol_version: None,
            session_id: None,
            session_ids: 0,
            method: None,
            name: None,
        };
        for (name, value) in map {
            let slot = if name == header::HOST {
                &mut seen.host
            } else if name == header::ACCEPT {
                seen.accepted.add(value.as_bytes());
                continue;
            } else if name == header::CONTENT_TYPE {
                &mut seen.content_type
            } else if name == header::ORIGIN {
                &mut seen.origin
            } else if name == names::PROTOCOL_VERSION {
                &mut seen.protocol_version
            } else if name == names::METHOD {
                &mut seen.method
            } else if name == names::NAME {
                &mut seen.name
            } else if name == names::SESSION_ID {
                seen.session_ids += 1;
                &mut seen.session_id
            } else {
                continue;
            };
            slot.get_or_insert(value);
        }
        seen
    }

    /// `MCP-Protocol-Version` as trimmed text (as `header_str` reads a header).
    pub(super) fn protocol_version(&self) -> Option<&'h str> {
        text(self.protocol_version)
    }

    /// `Mcp-Session-Id` as trimmed text.
    pub(super) fn session_id(&self) -> Option<&'h str> {
        text(self.session_id)
    }

    /// What is wrong with the `Mcp-Session-Id` headers, if anything: given twice (which one the
    /// client means is anyone's guess, so neither is taken), or not visible ASCII (no id we
    /// issued is).
    pub(super) fn session_id_fault(&self) -> Option<&'static str> {
        match (self.session_id, self.session_ids) {
            (Some(_), 2..) => Some("more than one Mcp-Session-Id header"),
            (Some(id), _) if id.to_str().is_err() => Some("Mcp-Session-Id is not visible ASCII"),
            _ => None,
        }
    }

    /// `Mcp-Method` as trimmed text.
    pub(super) fn method(&self) -> Option<&'h str> {
        text(self.method)
    }

    /// `Mcp-Name` as trimmed text.
    pub(super) fn name(&self) -> Option<&'h str> {
        text(self.name)
    }
}

/// A header value as trimmed text; `None` when absent or not visible ASCII.
fn text(value: Option<&HeaderValue>) -> Option<&str> {
    value.and_then(|v| v.to_str().ok()).map(str::trim)
}

impl HttpOptions {
    fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.any_origin
            || self.origins.contains(&origin)
            || (self.localhost_origins && is_localhost_origin(&origin))
    }

    fn host_allowed(&self, host: &str) -> bool {
        // The allowed hosts are kept lower-case; compared without a lower-cased copy.
        let name = host_name(host);
        self.any_host || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
    }
}

/// `localhost`, `127.0.0.1` or `[::1]` over http or https, any port.
fn is_localhost_origin(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    LOOPBACK_HOSTS.contains(&host_name(rest))
}

/// The host of a `Host` value or an origin's authority: without the port, brackets kept.
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// `Origin` (403 when present and not allowed) and `Host` (403 when not an allowed host).
pub(super) fn check_security(options: &HttpOptions, headers: &Headers) -> Result<(), Refusal> {
    if let Some(origin) = headers.origin {
        let allowed = origin.to_str().is_ok_and(|o| options.origin_allowed(o));
        if !allowed {
            tracing::warn!(?origin, "refused a request from a disallowed origin");
            return Err(Refusal::new(
                StatusCode::FORBIDDEN,
                codes::INVALID_REQUEST,
                "Forbidden: this Origin is not allowed",
            ));
        }
    }
    let host = headers.host.and_then(|h| h.to_str().ok());
    match host {
        Some(host) if options.host_allowed(host) => Ok(()),
        None if options.any_host => Ok(()),
        _ => {
            tracing::warn!(?host, "refused a request for a disallowed host");
            Err(Refusal::new(
                StatusCode::FORBIDDEN,
                codes::INVALID_REQUEST,
                "Forbidden: this Host is not allowed",
            ))
        }
    }
}

/// The media types the endpoint answers in, as a client's `Accept` may name them.
#[derive(Clone, Copy, Default)]
struct Accepted {
    json: bool,
    event_stream: bool,
}

impl Accepted {
    /// Which of JSON and event streams the `Accept` headers admit, directly or through a
    /// wildcard.
    fn of(headers: &HeaderMap) -> Accepted {
        let mut found = Accepted::default();
        for value in headers.get_all(header::ACCEPT) {
            found.add(value.as_bytes());
        }
        found
    }

    /// Adds what one `Accept` value admits, read in one pass over its bytes (parameters such
    /// as `q` are ignored). Every request pays for this: written as plain loops, it costs a
    /// fifth of the `str` iterator chain it replaced (callgrind).
    fn add(&mut self, value: &[u8]) {
        for item in value.split(|b| *b == b',') {
            let media = item.split(|b| *b == b';').next().unwrap_or_default();
            let Some(slash) = media.iter().position(|b| *b == b'/') else {
                continue;
            };
            let (kind, subtype) = (media[..slash].trim_ascii(), media[slash + 1..].trim_ascii());
            let any = subtype == b"*";
            if kind == b"*" {
                if any {
                    self.json = true;
                    self.event_stream = true;
                }
            } else if kind.eq_ignore_ascii_case(b"application") {
                self.json |= any || subtype.eq_ignore_ascii_case(b"json");
            } else if kind.eq_ignore_ascii_case(b"text") {
                self.event_stream |= any || subtype.eq_ignore_ascii_case(b"event-stream");
            }
        }
    }
}

/// A `POST` must accept both answer shapes and send JSON: 406 or 415 otherwise.
pub(super) fn check_post_media(headers: &Headers) -> Result<(), Refusal> {
    let accepted = headers.accepted;
    if !accepted.json || !accepted.event_stream {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        ));
    }
    let json_body = text(headers.content_type).is_some_and(|c| {
        c.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json_body {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        ));
    }
    Ok(())
}

/// A `GET` opens an event stream: 406 unless the client accepts one.
pub(super) fn check_get_media(headers: &HeaderMap) -> Result<(), Refusal> {
    if !Accepted::of(headers).event_stream {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the client must accept text/event-stream",
        ));
    }
    Ok(())
}

/// The whole body, up to `limit` bytes and within `timeout`: 413 over the size, 408 (and the
/// connection closes) past the time, 400 when reading fails.
pub(super) async fn read_body<B>(body: B, limit: usize, timeout: Duration) -> Result<Bytes, Refusal>
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<axum::BoxError>,
{
    let limited = http_body_util::Limited::new(body, limit);
    let read = tokio::time::timeout(timeout, http_body_util::BodyExt::collect(limited))
        .await
        .map_err(|_| {
            tracing::warn!(?timeout, "a request body did not arrive in time");
            Refusal::new(
                StatusCode::REQUEST_TIMEOUT,
                codes::INVALID_REQUEST,
                format!("Request Timeout: the body did not arrive within {timeout:?}"),
            )
        })?;
    read.map(|collected| collected.to_bytes()).map_err(|e| {
        let too_large = e.is::<http_body_util::LengthLimitError>();
        if too_large {
            Refusal::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                codes::INVALID_REQUEST,
                format!("Payload Too Large: the body is over the limit of {limit} bytes"),
            )
        } else {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                codes::INVALID_REQUEST,
                format!("Bad Request: reading the body failed: {e}"),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_lists_match_exactly_or_through_a_wildcard() {
        let with = |accept: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT, accept.parse().unwrap());
            Accepted::of(&headers)
        };
        for (accept, json, event_stream) in [
            ("application/json", true, false),
            ("Application/JSON; q=0.9, TEXT/Event-Stream", true, true),
            ("text/html, application/*", true, false),
            ("APPLICATION/*;q=1", true, false),
            ("*/*", true, true),
            ("text/*", false, true),
            ("application/jsonx, text/event-streams", false, false),
            ("applications/*", false, false),
            ("/*, application, */json", false, false),
            ("", false, false),
            // A `/` among the parameters is not the media range's.
            ("text/plain;x=a/json, application;y=b/json", false, false),
            ("application/json;q=0.5,text/event-stream", true, true),
            (",, ,application/json,", true, false),
        ] {
            let found = with(accept);
            assert_eq!(
                (found.json, found.event_stream),
                (json, event_stream),
                "{accept}"
            );
        }
        let mut two = HeaderMap::new();
        two.append(header::ACCEPT, "application/json".parse().unwrap());
        two.append(header::ACCEPT, "text/event-stream".parse().unwrap());
        assert!(
            check_post_media(&Headers::read(&{
                two.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
                two
            }))
            .is_ok(),
            "both types in separate Accept headers"
        );
    }

    #[test]
    fn one_pass_over_the_headers_reads_what_lookups_by_name_read() {
        let mut map = HeaderMap::new();
        for (name, value) in [
            ("host", "localhost:1"),
            ("accept", "application/json"),
            ("mcp-session-id", " s-1 "),
            ("Mcp-Protocol-Version", "2026-07-28"),
            ("x-other", "ignored"),
            ("accept", "text/event-stream"),
            ("MCP-Method", "tools/call"),
            ("mcp-name", "add"),
            ("content-type", "application/json"),
            ("host", "second.example"),
        ] {
            map.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        let seen = Headers::read(&map);
        // The first of each, trimmed, as `HeaderMap::get` and `header_str` give it.
        assert_eq!(seen.host, map.get(header::HOST));
        assert_eq!(seen.session_id(), Some("s-1"));
        assert_eq!(seen.protocol_version(), Some("2026-07-28"));
        assert_eq!(seen.method(), Some("tools/call"));
        assert_eq!(seen.name(), Some("add"));
        assert!(seen.origin.is_none());
        assert_eq!(seen.session_id_fault(), None);
        // Every Accept value counts.
        assert!(check_post_media(&seen).is_ok());

        map.append("mcp-session-id", "s-2".parse().unwrap());
        let twice = Headers::read(&map);
        assert_eq!(
            twice.session_id_fault(),
            Some("more than one Mcp-Session-Id header")
        );
        let mut opaque = HeaderMap::new();
        opaque.insert("mcp-session-id", HeaderValue::from_bytes(b"s\xff").unwrap());
        assert_eq!(
            Headers::read(&opaque).session_id_fault(),
            Some("Mcp-Session-Id is not visible ASCII")
        );
    }

    #[test]
    fn host_names_drop_the_port() {
        for (input, expected) in [
            ("localhost:8080", "localhost"),
            ("localhost", "localhost"),
            ("127.0.0.1:1", "127.0.0.1"),
            ("[::1]:3000", "[::1]"),
            ("[::1]", "[::1]"),
            ("evil.example.com", "evil.example.com"),
        ] {
            assert_eq!(host_name(input), expected, "{input}");
        }
    }

    #[test]
    fn localhost_origins_are_recognised() {
        for (origin, ok) in [
            ("http://localhost:3000", true),
            ("https://127.0.0.1", true),
            ("http://[::1]:9", true),
            ("http://localhost.evil.com", false),
            ("http://evil.example.com", false),
            ("null", false),
            ("file://localhost", false),
        ] {
            assert_eq!(is_localhost_origin(origin), ok, "{origin}");
        }
    }

    #[test]
    fn origins_and_hosts_are_checked_against_the_options() {
        let options = HttpOptions::default()
            .allow_origin("https://App.example.com/")
            .allow_host("MCP.example.com");
        let check = |origin: Option<&str>, host: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(o) = origin {
                headers.insert(header::ORIGIN, o.parse().unwrap());
            }
            if let Some(h) = host {
                headers.insert(header::HOST, h.parse().unwrap());
            }
            check_security(&options, &Headers::read(&headers)).map_err(|r| r.status)
        };
        assert_eq!(check(None, Some("localhost:8080")), Ok(()));
        assert_eq!(
            check(None, Some("LocalHost:8080")),
            Ok(()),
            "host names ignore case"
        );
        assert_eq!(
            check(Some("https://app.example.com"), Some("mcp.example.com")),
            Ok(())
        );
        assert_eq!(
            check(Some("http://localhost:3000"), Some("[::1]:80")),
            Ok(())
        );
        let forbidden = Err(StatusCode::FORBIDDEN);
        assert_eq!(
            check(Some("https://app.example.com:8443"), Some("localhost")),
            forbidden
        );
        assert_eq!(
            check(Some("https://evil.example.com"), Some("localhost")),
            forbidden
        );
        assert_eq!(check(None, Some("evil.example.com")), forbidden);
        assert_eq!(check(None, None), forbidden);
        let open = HttpOptions::default()
            .allow_any_host()
            .deny_localhost_origins();
        assert!(check_security(&open, &Headers::read(&HeaderMap::new())).is_ok());
        let mut headers = HeaderMap::new();
        headers.insert(header::ORIGIN, "http://localhost:3000".parse().unwrap());
        assert!(check_security(&open, &Headers::read(&headers)).is_err());
    }
}
