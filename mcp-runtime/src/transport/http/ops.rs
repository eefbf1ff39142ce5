//! The operator's side of the endpoint: the liveness and readiness probes, and what a drain
//! ([`crate::server::drain`]) does to HTTP: new requests refused with `503` and `Retry-After`,
//! the streams a client resumes elsewhere ended with an SSE `retry` field, and the drain's
//! course once [`Server::serve_http_until`]'s shutdown future resolved.
//!
//! The probes answer on the same listener, before the endpoint's checks (`Origin`, `Host`, MCP
//! headers; an application's auth layer wraps [`super::router`], not the listener): a kubelet or
//! a load balancer reaches them with a bare `GET`.
//!
//! [`Server::serve_http_until`]: crate::Server::serve_http_until

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "metrics")]
use axum::http::HeaderValue;
use axum::http::StatusCode;
#[cfg(feature = "metrics")]
use axum::response::IntoResponse;
use axum::response::Response;
use futures_util::future;
use futures_util::stream::{self, BoxStream, Stream, StreamExt};
use serde_json::json;

use super::sse::{Event, retry_hint};
use super::store::StreamKey;
use super::{Endpoint, Refusal, json_response};
use crate::server::drain::{Drain, shutting_down};

/// What runs once a listener's shutdown future resolved: the drain, until the connections may
/// close.
pub(super) async fn drain(endpoint: &Endpoint, close_grace: Duration) {
    let drain = &endpoint.drain;
    drain.begin();
    let server = &endpoint.server;
    let finished = drain.settle(|| server.running_tasks() > 0).await;
    if !finished {
        server.fail_running_tasks().await;
        drain.after_deadline(close_grace).await;
    }
    tracing::info!(in_time = finished, "drained: closing connections");
    drain.close();
}

/// The refusal of new work while draining: `503` with `Retry-After` (nothing ran, so a proxy
/// may send it to another replica), and a JSON-RPC error.
pub(super) fn draining() -> Refusal {
    let error = shutting_down("this server is draining and takes no new requests");
    Refusal {
        status: StatusCode::SERVICE_UNAVAILABLE,
        id: None,
        error: Some(Box::new(error)),
    }
}

/// `events`, ended with an SSE `retry` field when the drain begins: for a stream the client
/// opens again (a session's `GET` stream, a listen) or resumes with `Last-Event-ID` on another
/// replica. `after_first`: the stream's first event passes whatever the drain, for a stream whose
/// first event is its priming one: its id is what the client resumes from, and a stream cut before
/// it reached the client could not be resumed (the client's call would be lost with it).
pub(super) fn until_drain(
    events: impl Stream<Item = Event> + Send + 'static,
    drain: &Arc<Drain>,
    retry: Duration,
    after_first: bool,
) -> BoxStream<'static, Event> {
    let draining = drain.draining();
    let drain = drain.clone();
    let hint = stream::once(async move { drain.is_draining().then(|| retry_hint(retry)) })
        .filter_map(future::ready);
    if !after_first {
        return events.take_until(draining).chain(hint).boxed();
    }
    let (passed, first) = tokio::sync::oneshot::channel::<()>();
    let mut passed = Some(passed);
    let events = events.inspect(move |_| {
        if let Some(passed) = passed.take() {
            let _ = passed.send(());
        }
    });
    // Ended (its sender dropped) or passed: either way the first event is not held back.
    let cut = async move {
        draining.await;
        let _ = first.await;
    };
    events.take_until(cut).chain(hint).boxed()
}

/// The probe at `path`, if it is one.
pub(super) async fn probe(endpoint: &Endpoint, path: &str) -> Option<Response> {
    let probes = &endpoint.options.probes;
    if !probes.health.is_empty() && path == probes.health {
        let draining = endpoint.drain.is_draining();
        return Some(json_response(
            StatusCode::OK,
            &json!({"status": "alive", "draining": draining}),
        ));
    }
    if !probes.ready.is_empty() && path == probes.ready {
        return Some(ready(endpoint).await);
    }
    #[cfg(feature = "metrics")]
    if let Some((at, prometheus)) = &endpoint.options.metrics
        && path == at
    {
        let text = HeaderValue::from_static(crate::metrics::CONTENT_TYPE);
        let body = prometheus.encode();
        return Some(([(axum::http::header::CONTENT_TYPE, text)], body).into_response());
    }
    None
}

/// `/readyz`: `200` when the server is built, not draining, and each store answers within
/// [`HttpOptions::ready_timeout`](super::HttpOptions::ready_timeout); else `503` saying why.
async fn ready(endpoint: &Endpoint) -> Response {
    let unready = |reason: String| {
        let body = json!({"status": "unready", "reason": reason});
        let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, &body);
        response.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("no-store"),
        );
        response
    };
    if endpoint.drain.is_draining() {
        return unready("draining".into());
    }
    let options = &endpoint.options;
    let within = options.probes.ready_timeout;
    let sessions = options.session_store.0.clone();
    let events = options.event_store.0.clone();
    let key = StreamKey::new("readyz", "readyz");
    let checks = async {
        sessions
            .touch("readyz", Duration::from_secs(1))
            .await
            .map_err(|e| format!("session store: {e}"))?;
        events
            .read(&key, 0, Duration::ZERO)
            .await
            .map_err(|e| format!("event store: {e}"))?;
        endpoint
            .server
            .task_store_answers()
            .await
            .map_err(|e| format!("task store: {e}"))
    };
    match tokio::time::timeout(within, checks).await {
        Ok(Ok(())) => json_response(StatusCode::OK, &json!({"status": "ready"})),
        Ok(Err(reason)) => unready(reason),
        Err(_) => unready(format!("a store did not answer within {within:?}")),
    }
}
