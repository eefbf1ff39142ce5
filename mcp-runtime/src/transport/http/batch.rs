//! A JSON-RPC batch POSTed on a session that negotiated 2025-03-26, whose spec makes accepting
//! batches a MUST: the answers to its requests come back as one JSON array (`202` when it holds
//! only notifications and responses). Each request in it takes a place in the session's in-flight
//! count; one over the cap is answered with its own [`super::SERVER_BUSY`] error, inside the array.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::session::Session;
use super::{Endpoint, busy_reply, json_body};
use crate::protocol::Incoming;
use crate::server::{BatchItem, Reply, WriteJson};

/// Handles the batch `items` on `session` and answers it.
pub(super) async fn post(
    endpoint: &Endpoint,
    session: &Arc<Session>,
    items: Vec<BatchItem>,
) -> Response {
    let cap = endpoint.options.max_in_flight_per_session;
    let mut slots = Vec::new();
    let items = items
        .into_iter()
        .map(|item| match item {
            Ok(Incoming::Request(req)) => match session.begin_request(cap) {
                Some(slot) => {
                    slots.push(slot);
                    Ok(Incoming::Request(req))
                }
                None => Err(Box::new(busy_reply(&req.id, cap))),
            },
            other => other,
        })
        .collect();
    let answer = endpoint.server.batch(items, &session.conn);
    // As for one request of the handshake era, the calls run on if the client goes away; their
    // places in the in-flight count are held until they answer.
    let calls = tokio::spawn(async move {
        let answer = answer.await;
        drop(slots);
        answer
    });
    match calls.await {
        Ok(Some(answer)) => json_body(
            StatusCode::OK,
            |buf| answer.write_json(buf),
            Reply::TYPICAL_LEN,
        ),
        Ok(None) => StatusCode::ACCEPTED.into_response(),
        Err(e) => {
            tracing::error!(error = %e, "a batch's task ended without answering");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
