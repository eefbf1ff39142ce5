//! Server-sent events: each JSON-RPC message an event named `message` whose data is the JSON
//! text (with its id on a session's resumable streams), with a keep-alive comment while the
//! stream is idle, unbuffered by proxies.
//!
//! Events are framed here rather than by axum's `Sse`: its `Event` writes data through
//! `fmt::Write` and scans every piece for line ends, and its keep-alive arms a timer for every
//! stream and resets it for every event. A call's stream is usually ready at once (the progress,
//! then the answer): here it is framed in one pass per message, and the keep-alive timer is
//! made only when the stream first has to wait (callgrind, BENCHMARKS.md).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::server::WriteJson;
use axum::body::{Body, Bytes};
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{BoxStream, Stream, StreamExt};

/// The first line of every event this endpoint sends.
const NAMED: &[u8] = b"event: message\n";

/// One event of a stream, framed as it is written.
#[must_use]
pub(super) struct Event(Vec<u8>);

impl Event {
    /// `event: message` and then the fields each builder adds; the blank line comes at the end.
    fn named() -> Event {
        let mut buf = Vec::with_capacity(256);
        buf.extend_from_slice(NAMED);
        Event(buf)
    }

    /// Adds the event's id (`Last-Event-ID` names it when the client resumes).
    pub(super) fn id(mut self, id: impl AsRef<str>) -> Event {
        self.field(b"id: ", id.as_ref().as_bytes());
        self
    }

    fn field(&mut self, name: &[u8], value: &[u8]) {
        self.0.extend_from_slice(name);
        self.0.extend_from_slice(value);
        self.0.push(b'\n');
    }

    /// The event's bytes, with the blank line that ends it.
    fn finish(mut self) -> Bytes {
        self.0.push(b'\n');
        Bytes::from(self.0)
    }
}

/// `messages` (each written as its JSON text) as a `text/event-stream` response.
pub(super) fn sse<M: WriteJson>(
    messages: impl Stream<Item = M> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    sse_events(messages.map(|m| json_message(&m)), keep_alive)
}

/// `messages`, all known already (a call that sent them and answered before it was first
/// polled), as a `text/event-stream` response whose body is written at once: the same events as
/// [`sse`] writes, in one buffer with its length, with no stream to poll and no keep-alive.
pub(super) fn sse_complete<M: WriteJson>(messages: impl IntoIterator<Item = M>) -> Response {
    let mut buf = Vec::with_capacity(512);
    for m in messages {
        write_json_message(&mut buf, &m);
        buf.push(b'\n');
    }
    event_stream(Body::from(buf))
}

/// The event that carries one JSON-RPC message, serialized by serde_json's writer straight into
/// the event (compact JSON has no line ends: one `data` line).
pub(super) fn json_message(value: &impl WriteJson) -> Event {
    let mut event = Event(Vec::with_capacity(256));
    write_json_message(&mut event.0, value);
    event
}

/// Appends one message's event to `buf`, all but the blank line that ends it.
fn write_json_message(buf: &mut Vec<u8>, value: &impl WriteJson) {
    let start = buf.len();
    buf.extend_from_slice(NAMED);
    buf.extend_from_slice(b"data: ");
    match value.write_json(buf) {
        Ok(()) => buf.push(b'\n'),
        Err(e) => {
            // A `Value` or a reply always serializes; should one not, the stream says so.
            tracing::error!(error = %e, "a message could not be serialized for its event stream");
            buf.truncate(start);
            buf.extend_from_slice(b": a message could not be serialized\n");
        }
    }
}

/// The event that carries one JSON-RPC message's text; a line end in it (never in the compact
/// JSON this crate writes) starts another `data` line, as the SSE format requires.
pub(super) fn message(text: &str) -> Event {
    let mut event = Event::named();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        for part in line.split('\r') {
            event.field(b"data: ", part.as_bytes());
        }
    }
    event
}

/// The first event of a resumable stream for a client of 2025-11-25: its id and no data, so that
/// the client can resume even before the first message, and how long to wait before it does.
/// No `data` line is written for empty data; an event with an `id` and no data still sets the
/// client's last event id (the SSE standard's dispatch sets it before it drops an event without
/// data), and MCP clients that read each event (the Python SDK's) see it as one with empty data.
pub(super) fn priming(id: &str, retry: Duration) -> Event {
    let mut event = Event::named().id(id);
    event.field(b"retry: ", retry.as_millis().to_string().as_bytes());
    event
}

/// An event with only a `retry` field (no data: clients dispatch nothing), ending a stream the
/// client should open again, or resume, after `retry`.
pub(super) fn retry_hint(retry: Duration) -> Event {
    let mut event = Event(Vec::with_capacity(24));
    event.field(b"retry: ", retry.as_millis().to_string().as_bytes());
    event
}

/// `events` as a `text/event-stream` response.
pub(super) fn sse_events(
    events: impl Stream<Item = Event> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    let body = KeepAlive {
        events: events.boxed(),
        every: keep_alive,
        timer: None,
        #[cfg(feature = "metrics")]
        _open: crate::metrics::OpenStream::new(),
    };
    event_stream(Body::from_stream(body))
}

/// `body` as a `text/event-stream` response.
fn event_stream(body: Body) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // "When initiating an SSE stream, servers SHOULD include the `X-Accel-Buffering: no` header"
    // so that proxies such as nginx pass each event on at once (2026-07-28,
    // basic/transports/streamable-http, Receiving Messages).
    headers.insert(
        HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    response
}

/// A stream's events as body chunks, with a comment (`:`) after every `every` without one.
struct KeepAlive {
    events: BoxStream<'static, Event>,
    every: Duration,
    /// Made the first time the stream waits; a stream that is ready at once never has one.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Counted in the metrics' open streams while the body lives.
    #[cfg(feature = "metrics")]
    _open: crate::metrics::OpenStream,
}

impl Stream for KeepAlive {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        match this.events.poll_next_unpin(cx) {
            Poll::Ready(Some(event)) => {
                if let Some(timer) = this.timer.as_mut() {
                    timer
                        .as_mut()
                        .reset(tokio::time::Instant::now() + this.every);
                }
                Poll::Ready(Some(Ok(event.finish())))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                let every = this.every;
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(every)));
                if timer.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                timer.as_mut().reset(tokio::time::Instant::now() + every);
                Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n"))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The whole body `sse_events` writes for `events`.
    async fn written(
        events: impl Stream<Item = Event> + Send + 'static,
        every: Duration,
    ) -> String {
        let response = sse_events(events, every);
        let body = axum::body::to_bytes(response.into_body(), usize::MAX);
        String::from_utf8(body.await.unwrap().to_vec()).unwrap()
    }

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
    async fn a_stream_known_at_once_is_the_same_events_in_one_body_with_its_length() {
        let messages = || [json!({"jsonrpc": "2.0", "method": "m"}), json!({"id": 1})];
        let streamed = sse(
            futures_util::stream::iter(messages()),
            Duration::from_secs(15),
        );
        let whole = sse_complete(messages());
        for name in ["content-type", "cache-control", "x-accel-buffering"] {
            assert_eq!(whole.headers()[name], streamed.headers()[name], "{name}");
        }
        let (streamed, whole) = (streamed.into_body(), whole.into_body());
        assert_eq!(axum::body::HttpBody::size_hint(&streamed).exact(), None);
        let text = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n\
                    event: message\ndata: {\"id\":1}\n\n";
        assert_eq!(
            axum::body::HttpBody::size_hint(&whole).exact(),
            Some(text.len() as u64)
        );
        for body in [streamed, whole] {
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            assert_eq!(std::str::from_utf8(&bytes).unwrap(), text);
        }
    }

    #[tokio::test]
    async fn line_ends_in_a_text_start_new_data_lines() {
        let events = futures_util::stream::iter([message("a\nb\r\nc\rd").id("s/1")]);
        assert_eq!(
            written(events, Duration::from_secs(15)).await,
            "event: message\ndata: a\ndata: b\ndata: c\ndata: d\nid: s/1\n\n"
        );
    }

    #[tokio::test]
    async fn an_idle_stream_gets_keep_alive_comments_and_a_busy_one_none() {
        let events = futures_util::stream::iter([1, 2]).then(|n| async move {
            if n == 2 {
                tokio::time::sleep(Duration::from_millis(130)).await;
            }
            message(&n.to_string())
        });
        let text = written(events, Duration::from_millis(50)).await;
        let first = "event: message\ndata: 1\n\n";
        let last = "event: message\ndata: 2\n\n";
        assert!(text.starts_with(first) && text.ends_with(last), "{text:?}");
        let between = &text[first.len()..text.len() - last.len()];
        let comments = between.matches(":\n\n").count();
        assert!(comments >= 1 && between.len() == comments * 3, "{text:?}");

        let ready = futures_util::stream::iter([message("1"), message("2")]);
        let text = written(ready, Duration::from_millis(1)).await;
        assert!(!text.contains(":\n\n"), "{text:?}");
    }

    #[tokio::test]
    async fn a_priming_event_has_an_id_a_retry_and_empty_data() {
        let events = futures_util::stream::iter([
            priming("r1/1", Duration::from_millis(250)),
            message("{}").id("r1/2"),
        ]);
        assert_eq!(
            written(events, Duration::from_secs(15)).await,
            "event: message\nid: r1/1\nretry: 250\n\nevent: message\ndata: {}\nid: r1/2\n\n"
        );
    }
}
