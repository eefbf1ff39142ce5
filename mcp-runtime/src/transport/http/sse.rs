//! Server-sent events: each JSON-RPC message an event named `message` whose data is the JSON
//! text, with a keep-alive comment while the stream is idle, unbuffered by proxies.

use std::convert::Infallible;
use std::fmt;
use std::time::Duration;

use axum::http::HeaderValue;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{Stream, StreamExt};

/// `messages` (each written as its JSON text) as a `text/event-stream` response.
pub(super) fn sse<M: fmt::Display>(
    messages: impl Stream<Item = M> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    let events = messages
        .map(|m| Ok::<_, Infallible>(Event::default().event("message").data(m.to_string())));
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(keep_alive))
        .into_response();
    // "When initiating an SSE stream, servers SHOULD include the `X-Accel-Buffering: no` header"
    // so that proxies such as nginx pass each event on at once (2026-07-28,
    // basic/transports/streamable-http, Receiving Messages).
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn each_message_is_one_event_named_message() {
        let messages =
            futures_util::stream::iter([json!({"jsonrpc": "2.0", "id": 1}), json!("x\ny")]);
        let response = sse(messages, Duration::from_secs(15));
        assert_eq!(
            response.headers()[axum::http::header::CONTENT_TYPE],
            "text/event-stream"
        );
        assert_eq!(response.headers()["x-accel-buffering"], "no");
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(
            std::str::from_utf8(&body).unwrap(),
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1}\n\n\
             event: message\ndata: \"x\\ny\"\n\n"
        );
    }
}
