//! The sessions' side of the fleet's relay (`relay.rs`): the listener that acts, on this
//! replica, on what other replicas relay about the sessions it serves, the resource changes told
//! to the streams it holds, and the forwarding of a connection's messages to the stream another
//! replica holds.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::live::Session;
use super::table::Table;
use crate::context::connection::{Connection, lock};
use crate::error::error_chain;
use crate::protocol::Incoming;
use crate::protocol::subscriptions::Change;
use crate::server::Server;
use crate::transport::http::relay::{from_client, publish};
use crate::transport::http::store::{Relay, RelayKind, Relayed, SessionStore, now_us};

/// The sessions a replica serves, as its relay listener sees them: gone with the router.
pub(in crate::transport::http) struct LocalSessions(pub(super) std::sync::Weak<Mutex<Table>>);

impl LocalSessions {
    /// The session `id` if this replica serves it; `None` once the router is gone.
    fn find(&self, id: &str) -> Option<Option<Arc<Session>>> {
        let table = self.0.upgrade()?;
        let session = lock(&table).get(id);
        Some(session)
    }

    /// The sessions whose `GET` stream this replica holds; `None` once the router is gone.
    fn streaming(&self) -> Option<Vec<(String, Arc<Session>)>> {
        let table = self.0.upgrade()?;
        let streaming = lock(&table).streaming();
        Some(streaming)
    }
}

/// Listens to the relay for as long as the router lives: a message from another replica about a
/// session this one serves is acted on here, and every resource change (this replica's too) is
/// told to the sessions whose stream this replica holds and, when it came from another replica,
/// to this replica's listens.
pub(in crate::transport::http) fn listen(
    relay: Arc<dyn Relay>,
    replica: u64,
    server: Server,
    local: LocalSessions,
    (store, idle): (Arc<dyn SessionStore>, Duration),
) {
    let mut messages = relay.listen();
    tokio::spawn(async move {
        while let Some(relayed) = messages.recv().await {
            if relayed.kind == RelayKind::Change {
                let Some(streaming) = local.streaming() else {
                    break;
                };
                let from_elsewhere = relayed.from != replica;
                change(
                    &server,
                    (&*store, idle),
                    streaming,
                    &relayed,
                    from_elsewhere,
                )
                .await;
                continue;
            }
            if relayed.from == replica {
                continue;
            }
            let Some(found) = local.find(&relayed.session) else {
                break;
            };
            let Some(session) = found else { continue };
            let latency_us = now_us().saturating_sub(relayed.sent_us);
            tracing::debug!(session = %relayed.session, ?relayed.kind, latency_us, "relayed");
            match relayed.kind {
                RelayKind::FromClient => from_client(&server, &session.conn, &relayed).await,
                RelayKind::ToStream => {
                    if session.streaming.load(std::sync::atomic::Ordering::SeqCst)
                        && let Ok(message) = serde_json::from_str::<Value>(&relayed.message)
                    {
                        session.conn.send(message);
                    }
                }
                RelayKind::StreamOpened => {
                    // One stream per session in the fleet: one held here ends, and what this
                    // replica has for the client goes to the new one.
                    let relay = relay.clone();
                    tokio::spawn(async move {
                        if session.streaming.load(std::sync::atomic::Ordering::SeqCst) {
                            session.take_over_stream().await;
                        }
                        forward(session, relay, replica, relayed.session);
                    });
                }
                RelayKind::StreamClosed => {
                    if let Some(stop) = lock(&session.forwarder).take() {
                        stop.cancel();
                    }
                }
                RelayKind::Change => {}
            }
        }
    });
}

/// A resource change published in the fleet: the sessions whose stream this replica holds learn
/// their subscriptions from the store (another replica may have taken them), then those
/// subscribed hear of it on their stream.
async fn change(
    server: &Server,
    (store, idle): (&dyn SessionStore, Duration),
    streaming: Vec<(String, Arc<Session>)>,
    relayed: &Relayed,
    listens: bool,
) {
    let Ok(Incoming::Notification(n)) = Incoming::parse(relayed.message.as_bytes()) else {
        return;
    };
    let uri = n.params.as_ref().and_then(|p| p.get("uri"));
    let Some(change) = Change::from_notification(&n.method, uri) else {
        return;
    };
    let updates = server.resource_updates();
    for (id, session) in &streaming {
        // A use of the session: its stream is open here.
        match store.touch(id, idle).await {
            Ok(Some(record)) => {
                if let Some(subscribed) = session.refresh(record) {
                    updates.resync(&session.conn, &subscribed);
                }
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(session = %id, error = %error_chain(&e), "subscriptions not read")
            }
        }
    }
    let holds = |conn: &Connection| streaming.iter().any(|(_, s)| s.conn.same(conn));
    let told = updates.deliver(&change, holds, listens);
    tracing::debug!(
        told,
        method = change.method(),
        "a resource change in the fleet"
    );
}

/// Another replica holds the stream of `session`: what this replica's connection has for the
/// client goes there, until the stream closes (the receiver then comes back to the session).
fn forward(session: Arc<Session>, relay: Arc<dyn Relay>, replica: u64, id: String) {
    if session.streaming.load(std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let Some(mut outgoing) = lock(&session.outgoing).take() else {
        return;
    };
    let stop = CancellationToken::new();
    if let Some(previous) = lock(&session.forwarder).replace(stop.clone()) {
        previous.cancel();
    }
    tokio::spawn(async move {
        loop {
            let message = tokio::select! {
                biased;
                () = stop.cancelled() => break,
                message = outgoing.recv() => match message {
                    Some(message) => message,
                    None => break,
                },
            };
            let sent = publish(
                &*relay,
                replica,
                RelayKind::ToStream,
                &id,
                message.to_string(),
            );
            if let Err(e) = sent.await {
                tracing::warn!(session = %id, error = %error_chain(&e), "a message for the stream was lost");
            }
        }
        if !session.conn.is_closed() {
            *lock(&session.outgoing) = Some(outgoing);
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use futures_util::StreamExt;
    use serde_json::json;
    use tokio::sync::{broadcast, mpsc};

    use super::*;
    use crate::transport::http::store::{MemorySessionStore, SessionRecord, StoreFuture};
    use crate::transport::http::{Endpoint, HttpOptions, serve_endpoint};

    /// A fleet's shared store without Redis: records in one map, messages on one broadcast.
    struct Fleet {
        records: MemorySessionStore,
        bus: broadcast::Sender<Relayed>,
    }

    impl Relay for Fleet {
        fn publish<'a>(&'a self, message: &'a Relayed) -> StoreFuture<'a, ()> {
            let _ = self.bus.send(message.clone());
            Box::pin(std::future::ready(Ok(())))
        }

        fn listen(&self) -> mpsc::UnboundedReceiver<Relayed> {
            let (tx, rx) = mpsc::unbounded_channel();
            let mut bus = self.bus.subscribe();
            tokio::spawn(async move {
                while let Ok(message) = bus.recv().await {
                    if tx.send(message).is_err() {
                        break;
                    }
                }
            });
            rx
        }
    }

    /// Shares `Arc<Fleet>` as a store and as its relay.
    struct Shared(Arc<Fleet>);

    /// A record, shared.
    type Rec = Arc<SessionRecord>;

    impl SessionStore for Shared {
        fn create<'a>(&'a self, id: &'a str, r: Rec, t: Duration) -> StoreFuture<'a, ()> {
            self.0.records.create(id, r, t)
        }
        fn touch<'a>(&'a self, id: &'a str, t: Duration) -> StoreFuture<'a, Option<Rec>> {
            self.0.records.touch(id, t)
        }
        fn save<'a>(&'a self, id: &'a str, r: Rec, t: Duration) -> StoreFuture<'a, bool> {
            self.0.records.save(id, r, t)
        }
        fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
            self.0.records.remove(id)
        }
        fn released(&self, _id: &str) {}
        fn relay(&self) -> Option<Arc<dyn Relay>> {
            Some(self.0.clone())
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_message_for_the_client_reaches_the_stream_another_replica_holds() {
        let fleet = Arc::new(Fleet {
            records: MemorySessionStore::default(),
            bus: broadcast::channel(64).0,
        });
        let server = Server::builder("fleet", "1.0.0").build().unwrap();
        let replica = || {
            let options = HttpOptions::default().session_store(Arc::new(Shared(fleet.clone())));
            Arc::new(Endpoint::new(&server, options))
        };
        let (a, b) = (replica(), replica());
        let served_a = test_support::http::serve_app(serve_endpoint(a.clone())).await;
        let served_b = test_support::http::serve_app(serve_endpoint(b.clone())).await;
        let http = reqwest::Client::new();
        let post = |url: &str, session: Option<&str>, body: Value| {
            let mut request = http
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(body.to_string());
            if let Some(id) = session {
                request = request.header("mcp-session-id", id);
            }
            request.send()
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}});
        let opened = post(&served_a.url, None, init).await.unwrap();
        let id = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        // A serves the session; B serves it too (a ping), and holds its stream.
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        assert_eq!(
            post(&served_b.url, Some(&id), ping).await.unwrap().status(),
            200
        );
        let stream = http
            .get(&served_b.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &id)
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), 200);
        let on_a = a.sessions.live(&id).unwrap();
        let forwarding = async || lock(&on_a.forwarder).is_some();
        test_support::wait::until("A to forward", forwarding, |f| *f).await;

        let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        on_a.conn.send(changed.clone());
        let mut body = stream.bytes_stream();
        let mut text = String::new();
        while !text.contains("\n\n") {
            let chunk = tokio::time::timeout(test_support::HANG, body.next()).await;
            text.push_str(&String::from_utf8_lossy(&chunk.unwrap().unwrap().unwrap()));
        }
        let data = text.lines().find_map(|l| l.strip_prefix("data:")).unwrap();
        assert_eq!(serde_json::from_str::<Value>(data.trim()).unwrap(), changed);
        assert!(
            b.sessions
                .live(&id)
                .unwrap()
                .streaming
                .load(Ordering::SeqCst)
        );

        // The stream closes: A stops forwarding and keeps its messages for a later stream.
        drop(body);
        let kept = async || lock(&on_a.outgoing).is_some();
        test_support::wait::until("A to keep its messages", kept, |k| *k).await;
        assert!(lock(&on_a.forwarder).is_none());
    }
}
