//! `subscriptions/listen`, the 2026-07-28 era's stream of change notifications: the request is
//! acknowledged, then stays open and carries the notifications it opted in to, each tagged with
//! its id, until the client cancels it (`notifications/cancelled` on stdio, closing the response
//! stream on HTTP), the connection closes, or the application ends every listen
//! ([`ResourceUpdates::end_listens`]).
//!
//! Quoted rules come from the 2026-07-28 specification, `basic/patterns/subscriptions` unless
//! another page is named.
//!
//! [`ResourceUpdates::end_listens`]: super::ResourceUpdates::end_listens

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::Server;
use crate::context::connection::{CancelToken, Connection, lock};
use crate::error::ProtocolError;
use crate::protocol::Request;
use crate::protocol::RequestId;
use crate::protocol::subscriptions::{Change, SubscriptionFilter, acknowledged, closed_result};

/// One open listen: where its notifications go and what the server agreed to send it.
pub(super) struct Listen {
    conn: Connection,
    id: RequestId,
    granted: SubscriptionFilter,
    /// The request's cancellation: cancelled as soon as `notifications/cancelled` for it is
    /// read, before its future has run to notice.
    cancelled: CancelToken,
    /// Cancelled when the server ends the listen on its own initiative.
    end: CancelToken,
}

impl Listen {
    /// True when `change` is to be sent on this listen: it asked for it, and the client has not
    /// cancelled it. On stdio, the server "MUST NOT send any further messages" for a cancelled
    /// request (basic/transports/stdio, Cancellation).
    fn hears(&self, change: &Change) -> bool {
        !self.cancelled.is_cancelled() && self.granted.wants(change)
    }
}

/// The open listens of a server.
#[derive(Default)]
pub(super) struct Listens {
    open: Mutex<Vec<Arc<Listen>>>,
}

impl Listens {
    /// Opens a listen within the limits and sends its acknowledgement. Both happen under the lock
    /// [`Listens::notify`] takes, so the acknowledgement is the stream's first message: "The
    /// server MUST send `notifications/subscriptions/acknowledged` as the first message carrying
    /// the subscription's ID [...] and MUST NOT send any notification on the subscription before
    /// it" (Acknowledgment).
    fn open(
        &self,
        conn: &Connection,
        id: &RequestId,
        cancelled: &CancelToken,
        granted: SubscriptionFilter,
        server: &Server,
    ) -> Result<Arc<Listen>, ProtocolError> {
        let options = &server.inner.options;
        let mut open = lock(&self.open);
        if open.len() >= options.max_listens {
            return Err(ProtocolError::invalid_request(format!(
                "Invalid Request: too many listens: the server already has {} open, its limit; \
                 retry later",
                open.len()
            )));
        }
        let here = open.iter().filter(|l| l.conn.same(conn)).count();
        if here >= options.max_listens_per_connection {
            return Err(ProtocolError::invalid_request(format!(
                "Invalid Request: too many listens on this connection: {here} are open, the \
                 server's limit; cancel one (`notifications/cancelled`) before opening another"
            )));
        }
        let listen = Arc::new(Listen {
            conn: conn.clone(),
            id: id.clone(),
            granted,
            cancelled: cancelled.clone(),
            end: CancelToken::new(),
        });
        conn.send_about(id, acknowledged(id, &listen.granted).into());
        open.push(listen.clone());
        Ok(listen)
    }

    fn close(&self, listen: &Arc<Listen>) {
        lock(&self.open).retain(|l| !Arc::ptr_eq(l, listen));
    }

    /// Sends `change` on every open listen that asked for it; returns how many. "The server
    /// MUST NOT send notification types the client has not explicitly requested" (Opening a
    /// Stream); each carries the listen's id (Receiving Notifications).
    pub(super) fn notify(&self, change: &Change) -> usize {
        let open = lock(&self.open);
        let mut told = 0;
        for listen in open.iter().filter(|l| l.hears(change)) {
            let message = change.notification(Some(&listen.id));
            listen.conn.send_about(&listen.id, message.into());
            told += 1;
        }
        told
    }

    /// How many open listens asked for `change`.
    pub(super) fn wanting(&self, change: &Change) -> usize {
        let open = lock(&self.open);
        open.iter().filter(|l| l.hears(change)).count()
    }

    /// How many listens are open.
    pub(super) fn len(&self) -> usize {
        lock(&self.open).len()
    }

    /// Ends every open listen with its closing result; returns how many.
    pub(super) fn end_all(&self) -> usize {
        let open = lock(&self.open);
        for listen in open.iter() {
            listen.end.cancel();
        }
        open.len()
    }
}

impl Server {
    /// Serves one `subscriptions/listen` until it ends. Cancelled by the client, its future is
    /// dropped and nothing more is sent (basic/patterns/cancellation: servers "SHOULD [...] Not
    /// send a response for the cancelled request"). When the connection closes or the
    /// application ends the listen, the answer is the closing result: "When the server ends a
    /// subscription on its own initiative (for example, during shutdown), it SHOULD respond to
    /// the original `subscriptions/listen` request with a completion result" (Graceful Closure).
    ///
    /// basic/patterns/cancellation also says a server "MUST send `notifications/cancelled`" when
    /// it tears a listen down, which contradicts Graceful Closure and the schema's
    /// `SubscriptionsListenResult`; the specification's own issue tracker has it as
    /// modelcontextprotocol/modelcontextprotocol#3348, and the official TypeScript SDK sends the
    /// result instead (typescript-sdk#2371). This server sends the result only.
    pub(super) async fn listen(
        &self,
        req: &Request,
        conn: &Connection,
        cancel: &CancelToken,
    ) -> Result<Value, ProtocolError> {
        let asked = SubscriptionFilter::from_params(req.params.as_deref())?;
        let max = self.inner.options.max_listen_uris;
        let uris = asked.resource_subscriptions.len();
        if uris > max {
            return Err(ProtocolError::invalid_params(format!(
                "Invalid params: `notifications.resourceSubscriptions` lists {uris} URIs, over \
                 this server's limit of {max} per listen; split them over several listens"
            )));
        }
        for uri in &asked.resource_subscriptions {
            self.check_uri_len(uri, "a URI of `notifications.resourceSubscriptions`")?;
        }
        // The id tags every message of the stream; one beyond 64 bits could not be written
        // exactly into them.
        if let RequestId::BigInteger(_) = req.id {
            return Err(ProtocolError::invalid_request(
                "Invalid Request: a `subscriptions/listen` id must be a string or an integer \
                 within 64 bits",
            ));
        }
        let listens = &self.inner.resource_updates.registry().listens;
        let listen = listens.open(conn, &req.id, cancel, self.granted(asked), self)?;
        /// Forgets the listen however this future ends (answered, cancelled or dropped).
        struct Opened<'a>(&'a Listens, Arc<Listen>);
        impl Drop for Opened<'_> {
            fn drop(&mut self) {
                self.0.close(&self.1);
            }
        }
        let opened = Opened(listens, listen);
        tracing::debug!(id = ?req.id, granted = %opened.1.granted.to_json(), "listen opened");
        tokio::select! {
            _ = conn.closed() => tracing::debug!(id = ?req.id, "listen ended: connection closed"),
            _ = opened.1.end.cancelled() => tracing::debug!(id = ?req.id, "listen ended by the server"),
        }
        Ok(closed_result(&req.id))
    }

    /// The part of `asked` this server honors: "The `notifications` field in the acknowledgment
    /// reflects the subset the server agreed to honor. Notification types the server does not
    /// support are omitted." (Acknowledgment). Tools and prompts are fixed once the server is
    /// built (`listChanged: false`); resource updates need resources (`subscribe: true`);
    /// resource list changes need the application's opt-in as well (`listChanged: true`).
    fn granted(&self, mut asked: SubscriptionFilter) -> SubscriptionFilter {
        let resources = !self.inner.resources.is_empty();
        asked.tools_list_changed = false;
        asked.prompts_list_changed = false;
        asked.resources_list_changed &= resources && self.inner.options.resources_list_changed;
        if !resources {
            asked.resource_subscriptions.clear();
        }
        asked
    }
}
