//! The answers that are not a handler's: [`Refusal`] (an HTTP-level refusal, with a JSON-RPC
//! error body when there is something to say), and the JSON bodies every answer is written into.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ProtocolError;
use crate::protocol::RequestId;
use crate::server::{Reply, WriteJson};

/// An HTTP-level refusal: a status, and a JSON-RPC error body when there is something to say.
pub(super) struct Refusal {
    pub(super) status: StatusCode,
    pub(super) id: Option<RequestId>,
    pub(super) error: Option<Box<ProtocolError>>,
}

impl Refusal {
    pub(super) fn new(status: StatusCode, code: i64, message: impl Into<String>) -> Self {
        Refusal {
            status,
            id: None,
            error: Some(Box::new(ProtocolError::new(code, message))),
        }
    }

    pub(super) fn bare(status: StatusCode) -> Self {
        Refusal {
            status,
            id: None,
            error: None,
        }
    }

    pub(super) fn with_id(mut self, id: &RequestId) -> Self {
        self.id = Some(id.clone());
        self
    }

    /// The refusal answering the request `reply` answers.
    pub(super) fn with_id_of(mut self, reply: &Reply) -> Self {
        self.id = reply.id().cloned();
        self
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut response = match self.error {
            Some(error) => {
                tracing::debug!(status = %self.status, %error, "refused an HTTP request");
                reply_response(self.status, &Reply::error(self.id, *error))
            }
            None => self.status.into_response(),
        };
        let headers = response.headers_mut();
        match self.status {
            // The rest of a late body may never come: the connection cannot be reused.
            StatusCode::REQUEST_TIMEOUT => {
                headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            // Load: the connection, session or request would go over a cap.
            StatusCode::SERVICE_UNAVAILABLE => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            _ => {}
        }
        response
    }
}

/// A JSON body with its content type. Written from the typed message, so that an id of any size
/// keeps every digit.
pub(super) fn json_response(status: StatusCode, body: &impl serde::Serialize) -> Response {
    json_body(
        status,
        |buf| serde_json::to_writer(buf, body),
        Reply::TYPICAL_LEN,
    )
}

/// A reply as a JSON body, in a buffer sized for it up front.
pub(super) fn reply_response(status: StatusCode, reply: &Reply) -> Response {
    json_body(status, |buf| reply.write_json(buf), reply.size_hint())
}

pub(super) fn json_body(
    status: StatusCode,
    write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    capacity: usize,
) -> Response {
    // Written into a `Vec`, whose buffer becomes the body's `Bytes` as it is, under a header
    // value that is not parsed per response. A `Vec` rather than a `BytesMut` through
    // `BufMut::writer`: serde_json writes a string in pieces (between its escapes), and each
    // piece through the `BytesMut` writer cost more; about 1,000 instructions per `tools/call`
    // answer with a pretty-printed text (callgrind, BENCHMARKS.md).
    let mut buf = Vec::with_capacity(capacity);
    match write(&mut buf) {
        Ok(()) => {
            let json = HeaderValue::from_static("application/json");
            (status, [(header::CONTENT_TYPE, json)], Body::from(buf)).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "encoding a response failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
