//! Server-sent events: each JSON-RPC message an event named `message` whose data is the JSON
//! text (with its id on a session's resumable streams), with a keep-alive comment while the
//! stream is idle, unbuffered by proxies.

use std::convert::Infallible;
use std::time::Duration;

use axum::http::HeaderValue;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{Stream, StreamExt};
use serde::Serialize;

/// `messages` (each written as its JSON text) as a `text/event-stream` response.
pub(super) fn sse<M: Serialize>(
    messages: impl Stream<Item = M> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    sse_events(messages.map(|m| json_message(&m)), keep_alive)
}

/// The event that carries one JSON-RPC message: its text made by serde_json's own writer, about
/// half the instructions of `Display` (`fmt::Write`, one call per piece); axum's
/// `Event::json_data` costs more still, as its writer looks for line ends in every piece
/// (callgrind, BENCHMARKS.md).
fn json_message(value: &impl Serialize) -> Event {
    match serde_json::to_string(value) {
        Ok(text) => message(&text),
        Err(e) => {
            // A `Value` or a reply always serializes; should one not, the stream says so.
            tracing::error!(error = %e, "a message could not be serialized for its event stream");
            Event::default().comment("a message could not be serialized")
        }
    }
}

/// The event that carries one JSON-RPC message's text.
pub(super) fn message(text: &str) -> Event {
    Event::default().event("message").data(text)
}

/// The first event of a resumable stream for a client of 2025-11-25: its id and no data, so that
/// the client can resume even before the first message, and how long to wait before it does.
/// axum writes no `data` line for empty data; an event with an `id` and no data still sets the
/// client's last event id (the SSE standard's dispatch sets it before it drops an event without
/// data), and MCP clients that read each event (the Python SDK's) see it as one with empty data.
pub(super) fn priming(id: &str, retry: Duration) -> Event {
    Event::default()
        .event("message")
        .id(id)
        .retry(retry)
        .data("")
}

/// `events` as a `text/event-stream` response.
pub(super) fn sse_events(
    events: impl Stream<Item = Event> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    let events = events.map(Ok::<_, Infallible>);
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

    #[tokio::test]
    async fn a_priming_event_has_an_id_a_retry_and_empty_data() {
        let events = futures_util::stream::iter([
            priming("r1/1", Duration::from_millis(250)),
            message("{}").id("r1/2"),
        ]);
        let response = sse_events(events, Duration::from_secs(15));
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(
            std::str::from_utf8(&body).unwrap(),
            "event: message\nid: r1/1\nretry: 250\n\nevent: message\ndata: {}\nid: r1/2\n\n"
        );
    }
}
