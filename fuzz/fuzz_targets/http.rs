//! Streamable HTTP: up to three requests through `http::router` as a tower Service
//! (in process, no sockets), each response body read to its end or for a bounded time (event
//! streams may stay open). Never a panic, contained or not.
//!
//! The input is text, so that seeds can be written by hand and the dictionary helps:
//!
//! ```text
//! POST /mcp
//! Content-Type: application/json
//! Mcp-Session-Id: $session
//!
//! {"jsonrpc":"2.0",...}
//! ```
//!
//! Requests are separated by a line `--next--`. The first line is the method and the path: a
//! method outside the set is mapped into it by its first byte. A header whose name is not in the
//! list is mapped onto one by its first byte; values are raw bytes (a value `HeaderValue`
//! refuses drops the header), and the value `$session` is the `Mcp-Session-Id` of the latest
//! response, so that session-bound requests are reached.

#![no_main]

use std::cell::RefCell;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Method, Request};
use fuzz_support::{abort_on_any_panic, runtime, server};
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use mcp_runtime::http::{HttpOptions, router};
use tower::ServiceExt;

const METHODS: &[Method] = &[
    Method::GET,
    Method::POST,
    Method::DELETE,
    Method::PUT,
    Method::OPTIONS,
    Method::HEAD,
];

const HEADERS: &[&str] = &[
    "origin",
    "host",
    "content-type",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
    "authorization",
];

/// The bound on reading one response body.
const READ: Duration = Duration::from_millis(100);
/// Inputs served by one router before a fresh one: sessions live for an idle hour, so a router
/// kept forever would grow with every `initialize`.
const ROUTER_INPUTS: u32 = 1000;

thread_local! {
    static ROUTER: RefCell<(Router, u32)> = RefCell::new((fresh(), 0));
}

fn fresh() -> Router {
    router(server(), HttpOptions::default())
}

fn router_for_input() -> Router {
    ROUTER.with(|r| {
        let mut r = r.borrow_mut();
        r.1 += 1;
        if r.1 > ROUTER_INPUTS {
            *r = (fresh(), 1);
        }
        r.0.clone()
    })
}

fn split<'a>(data: &'a [u8], sep: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while let Some(i) = rest.windows(sep.len()).position(|w| w == sep) {
        parts.push(&rest[..i]);
        rest = &rest[i + sep.len()..];
    }
    parts.push(rest);
    parts
}

fn build(raw: &[u8], session: Option<&HeaderValue>) -> Option<Request<Body>> {
    let (head, body) = match raw.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&raw[..i], &raw[i + 2..]),
        None => (raw, &b""[..]),
    };
    let mut lines = head.split(|b| *b == b'\n');
    let first = lines.next().unwrap_or_default();
    let mut words = first.splitn(2, |b| *b == b' ');
    let method = words.next().unwrap_or_default();
    let method = METHODS
        .iter()
        .find(|m| m.as_str().as_bytes() == method)
        .cloned()
        .unwrap_or_else(|| {
            METHODS[method.first().copied().unwrap_or(0) as usize % METHODS.len()].clone()
        });
    let path = String::from_utf8_lossy(words.next().unwrap_or(b"/mcp"));
    let mut req = Request::builder().method(method);
    req = match path.parse::<axum::http::Uri>() {
        Ok(uri) if path.starts_with('/') => req.uri(uri),
        _ => req.uri("/mcp"),
    };
    for line in lines {
        let (name, value) = match line.iter().position(|b| *b == b':') {
            Some(i) => (
                &line[..i],
                line[i + 1..].strip_prefix(b" ").unwrap_or(&line[i + 1..]),
            ),
            None => (line, &b""[..]),
        };
        let name = HEADERS
            .iter()
            .find(|h| h.as_bytes().eq_ignore_ascii_case(name))
            .copied()
            .unwrap_or_else(|| {
                HEADERS[name.first().copied().unwrap_or(0) as usize % HEADERS.len()]
            });
        let value = match (value, session) {
            (b"$session", Some(s)) => s.clone(),
            _ => match HeaderValue::from_bytes(value) {
                Ok(v) => v,
                Err(_) => continue,
            },
        };
        req = req.header(HeaderName::from_static(name), value);
    }
    req.body(Body::from(body.to_vec())).ok()
}

async fn run(data: &[u8]) {
    let router = router_for_input();
    let mut session: Option<HeaderValue> = None;
    for raw in split(data, b"\n--next--\n").into_iter().take(3) {
        let Some(req) = build(raw, session.as_ref()) else {
            continue;
        };
        let Ok(response) = router.clone().oneshot(req).await;
        if let Some(id) = response.headers().get("mcp-session-id") {
            session = Some(id.clone());
        }
        let mut body = response.into_body();
        let _ = tokio::time::timeout(READ, async {
            while let Some(frame) = body.frame().await {
                if frame.is_err() {
                    break;
                }
            }
        })
        .await;
    }
}

fuzz_target!(|data: &[u8]| {
    let rt = runtime();
    abort_on_any_panic();
    rt.block_on(run(data));
});
