//! Messages between the replicas of a fleet, through the store's [`Relay`]:
//!
//! - a client message about a call on another replica (a response to a request this replica did
//!   not send, such as an elicitation answer, or `notifications/cancelled` for a request not served
//!   here) goes to every replica; the one serving the call hands it to its connection as if the
//!   client had sent it there;
//! - a session's `GET` stream is held by one replica, which announces it: every other replica
//!   serving the session then publishes what its connection has for the client (messages outside
//!   any request's own stream) until the stream closes, and the holder writes them on the stream.
//!
//! The latency this adds is one Redis `PUBLISH` and its delivery (BENCHMARKS.md).

use std::sync::Arc;

use super::store::{Relay, RelayKind, Relayed, StoreError, now_us};
use crate::context::connection::Connection;
use crate::error::error_chain;
use crate::protocol::subscriptions::Change;
use crate::protocol::{Incoming, RequestId};
use crate::server::{ChangeFleet, Server};

/// Whether `message`, received for a session this replica serves through `conn`, is about a
/// request another replica holds.
pub(super) fn elsewhere(conn: &Connection, message: &Incoming) -> bool {
    match message {
        Incoming::Response(response) => !conn.awaits(&response.id),
        Incoming::Notification(n) if n.method == "notifications/cancelled" => n
            .params
            .as_ref()
            .and_then(|p| p.get("requestId"))
            .and_then(RequestId::from_json)
            .is_some_and(|id| !conn.serves(&id)),
        _ => false,
    }
}

/// Publishes `message` of `kind` about `session` to the other replicas.
pub(super) async fn publish(
    relay: &dyn Relay,
    replica: u64,
    kind: RelayKind,
    session: &str,
    message: String,
) -> Result<(), StoreError> {
    let relayed = Relayed {
        kind,
        session: session.to_owned(),
        from: replica,
        sent_us: now_us(),
        message,
    };
    relay.publish(&relayed).await
}

/// The fleet as the server's resource registry sees it: a change goes to the relay.
pub(super) struct Changes {
    pub(super) relay: Arc<dyn Relay>,
    pub(super) replica: u64,
}

impl ChangeFleet for Changes {
    fn publish(&self, change: &Change) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("a resource change outside a tokio runtime was not relayed");
            return;
        };
        let (relay, replica) = (self.relay.clone(), self.replica);
        let message = change.notification(None).to_string();
        runtime.spawn(async move {
            let sent = publish(&*relay, replica, RelayKind::Change, "", message).await;
            if let Err(e) = sent {
                tracing::warn!(error = %error_chain(&e), "a resource change was not relayed");
            }
        });
    }
}

/// A client's message that another replica received, for a call running here.
pub(super) async fn from_client(server: &Server, conn: &Connection, relayed: &Relayed) {
    let Ok(message) = Incoming::parse(relayed.message.as_bytes()) else {
        return;
    };
    // Not for a call here either: another replica's, or none's.
    if !elsewhere(conn, &message) {
        let _ = server.handle(message, conn).await;
    }
}
