//! Client messages about calls on other replicas: a response to a request this replica did not
//! send (an elicitation answer for a call running elsewhere), or `notifications/cancelled` for a
//! request not served here, goes to every replica through the store's [`Relay`]; the replica
//! serving the call hands it to its connection as if the client had sent it there. The latency
//! this adds is one Redis `PUBLISH` and its delivery (BENCHMARKS.md).

use std::sync::Arc;

use super::store::{Relay, Relayed, StoreError, now_us};
use crate::context::connection::Connection;
use crate::protocol::{Incoming, RequestId};
use crate::server::Server;

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

/// Publishes the client's message `text`, received for `session`, to the other replicas.
pub(super) async fn hand_on(
    relay: &dyn Relay,
    replica: u64,
    session: &str,
    text: &[u8],
) -> Result<(), StoreError> {
    let relayed = Relayed {
        session: session.to_owned(),
        from: replica,
        sent_us: now_us(),
        message: String::from_utf8_lossy(text).into_owned(),
    };
    relay.publish(&relayed).await
}

/// Listens to the relay for as long as `find` answers: a message from another replica about a
/// session this one serves (`find` gives its connection) is handled there.
pub(super) fn listen<F>(relay: Arc<dyn Relay>, replica: u64, server: Server, find: F)
where
    F: Fn(&str) -> Option<Option<Connection>> + Send + 'static,
{
    let mut messages = relay.listen();
    tokio::spawn(async move {
        while let Some(relayed) = messages.recv().await {
            if relayed.from == replica {
                continue;
            }
            let Some(found) = find(&relayed.session) else {
                break;
            };
            let Some(conn) = found else { continue };
            let Ok(message) = Incoming::parse(relayed.message.as_bytes()) else {
                continue;
            };
            if elsewhere(&conn, &message) {
                // Not for the call here either: another replica's, or none's.
                continue;
            }
            let latency_us = now_us().saturating_sub(relayed.sent_us);
            tracing::debug!(session = %relayed.session, latency_us, "relayed message delivered");
            let _ = server.handle(message, &conn).await;
        }
    });
}
