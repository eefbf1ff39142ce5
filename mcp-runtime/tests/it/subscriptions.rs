//! Change notifications over stdio framing (raw lines through `serve_io`, as stdio runs it) and
//! through the in-process client: the 2026-07-28 `subscriptions/listen` stream (acknowledged
//! first, then only what it opted in to, each message tagged with its id; ended by
//! `notifications/cancelled`, by the end of input, or by the server), its limits, the
//! capabilities that gate it, and `notifications/resources/list_changed` in both eras.

use futures_util::FutureExt;
use mcp_runtime::client::{Change, SubscriptionFilter};
use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, Client, ServerBuilder};
use serde_json::{Value, json};
use test_support::stdio::{Era, RawPeer};
use test_support::wait::until;

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// One note, by its title.
#[resource(uri = "notes://{title}", mime_type = "text/plain")]
fn note(title: String) -> String {
    format!("the note {title}")
}

/// The titles of the notes.
#[resource(uri = "index://notes")]
fn index() -> String {
    "a, b".into()
}

fn builder() -> ServerBuilder {
    Server::builder("watch", "1.0.0").resources(resources![note, index])
}

/// A listen's request params: `notifications` as given.
fn listen(notifications: Value) -> Value {
    json!({ "notifications": notifications })
}

/// Opens a listen on `peer` and returns its id and the acknowledgement.
async fn open(peer: &mut RawPeer, notifications: Value) -> (Value, Value) {
    let id = peer
        .request("subscriptions/listen", listen(notifications))
        .await;
    let ack = peer.recv().await;
    (id, ack)
}

/// A request that is answered at once, and every message written before its answer: nothing
/// else was sent when this is empty.
async fn written_before_a_request(peer: &mut RawPeer) -> Vec<Value> {
    let id = peer.request("resources/list", json!({})).await;
    let (response, before) = peer.recv_response(&id).await;
    assert!(response["result"]["resources"].is_array(), "{response}");
    before
}

#[tokio::test]
async fn a_listen_is_acknowledged_then_hears_only_what_it_asked_for() {
    let server = builder().resources_list_changes().build().unwrap();
    let updates = server.resource_updates().clone();
    let mut peer = RawPeer::in_process(&server, Era::Stateless);
    let asked = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
        "resourceSubscriptions": ["notes://a", "notes://a", "index://notes"]
    });
    let (id, ack) = open(&mut peer, asked).await;
    // Tools and prompts never change: left out of what the server agreed to.
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "_meta": {SUBSCRIPTION_ID: id},
            "notifications": {
                "resourcesListChanged": true,
                "resourceSubscriptions": ["notes://a", "index://notes"]
            }
        }})
    );
    assert_eq!(updates.listens(), 1);
    assert_eq!(updates.subscribers("notes://a"), 1);

    assert_eq!(updates.updated("notes://b"), 0);
    assert_eq!(updates.updated("notes://a"), 1);
    assert_eq!(
        peer.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {
            "_meta": {SUBSCRIPTION_ID: id}, "uri": "notes://a"
        }})
    );
    assert_eq!(updates.list_changed(), 1);
    assert_eq!(
        peer.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {
            "_meta": {SUBSCRIPTION_ID: id}
        }})
    );
    // The update of `notes://b` was never written.
    assert_eq!(
        written_before_a_request(&mut peer).await,
        Vec::<Value>::new()
    );

    // Cancelled: forgotten, and nothing more is written for it, not even a response.
    peer.cancel(&id, Some("done")).await;
    until(
        "the listen is forgotten",
        async || updates.listens(),
        |n| *n == 0,
    )
    .await;
    assert_eq!(updates.updated("notes://a"), 0);
    assert_eq!(updates.list_changed(), 0);
    assert_eq!(
        written_before_a_request(&mut peer).await,
        Vec::<Value>::new()
    );
    assert_eq!(peer.finish_ok().await, Vec::<Value>::new());
}

#[tokio::test]
async fn listens_on_one_connection_are_told_apart_by_their_ids() {
    let server = builder().resources_list_changes().build().unwrap();
    let updates = server.resource_updates().clone();
    let mut peer = RawPeer::in_process(&server, Era::Stateless);
    let (a, _) = open(&mut peer, json!({"resourceSubscriptions": ["notes://a"]})).await;
    let (b, _) = open(
        &mut peer,
        json!({"resourceSubscriptions": ["notes://a", "notes://b"], "resourcesListChanged": true}),
    )
    .await;
    assert_ne!(a, b);
    assert_eq!(updates.updated("notes://a"), 2);
    let tags: Vec<Value> = [peer.recv().await, peer.recv().await]
        .iter()
        .map(|n| n["params"]["_meta"][SUBSCRIPTION_ID].clone())
        .collect();
    assert_eq!(tags, [a.clone(), b.clone()]);
    assert_eq!(updates.updated("notes://b"), 1);
    assert_eq!(peer.recv().await["params"]["_meta"][SUBSCRIPTION_ID], b);
    assert_eq!(updates.list_changed(), 1);
    assert_eq!(peer.recv().await["params"]["_meta"][SUBSCRIPTION_ID], b);
    // Cancelling one leaves the other.
    peer.cancel(&b, None).await;
    until(
        "one listen is left",
        async || updates.listens(),
        |n| *n == 1,
    )
    .await;
    assert_eq!(updates.updated("notes://a"), 1);
    assert_eq!(peer.recv().await["params"]["_meta"][SUBSCRIPTION_ID], a);
}

/// Driven through `Server::handle` by hand, so that the listen's future is not polled between its
/// cancellation and the update: the cancellation alone must silence it.
#[tokio::test]
async fn a_cancelled_listen_hears_nothing_from_the_moment_its_cancellation_is_read() {
    let server = builder().build().unwrap();
    let updates = server.resource_updates().clone();
    let (conn, mut written) = mcp_runtime::Connection::new();
    let envelope = test_support::stdio::envelope();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "_meta": envelope, "notifications": {"resourceSubscriptions": ["notes://a"]}}});
    let mut answer = server.handle_value(request, &conn);
    assert!(
        (&mut answer).now_or_never().is_none(),
        "a listen stays open"
    );
    let ack = written.try_recv().unwrap().into_value();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(updates.updated("notes://a"), 1);
    assert_eq!(
        written.try_recv().unwrap().into_value()["params"]["uri"],
        "notes://a"
    );

    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1}});
    assert!(matches!(
        server.handle_value(cancel, &conn).now_or_never(),
        Some(None)
    ));
    assert_eq!(updates.updated("notes://a"), 0);
    assert!(
        written.try_recv().is_none(),
        "nothing sent after the cancellation"
    );
    // Its future then ends without an answer, and the listen is forgotten.
    assert!(matches!(answer.now_or_never(), Some(None)));
    assert_eq!(updates.listens(), 0);
}

#[tokio::test]
async fn the_end_of_input_or_the_server_ends_a_listen_with_its_closing_result() {
    let server = builder().build().unwrap();
    let updates = server.resource_updates().clone();
    let closing = |id: &Value| {
        json!({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "complete",
            "_meta": {SUBSCRIPTION_ID: id, SERVER_INFO: {"name": "watch", "version": "1.0.0"}}
        }})
    };

    let mut peer = RawPeer::in_process(&server, Era::Stateless);
    let (first, _) = open(&mut peer, json!({"resourceSubscriptions": ["notes://a"]})).await;
    let (second, _) = open(&mut peer, json!({})).await;
    assert_eq!(updates.end_listens(), 2);
    let (answer, before) = peer.recv_response(&first).await;
    assert_eq!(answer, closing(&first));
    let (answer, _) = peer.recv_response(&second).await;
    assert_eq!((answer, before), (closing(&second), Vec::new()));
    until(
        "the listens are forgotten",
        async || updates.listens(),
        |n| *n == 0,
    )
    .await;
    assert_eq!(updates.updated("notes://a"), 0);

    // A listen still open when the input ends: answered, and the server returns.
    let (id, _) = open(&mut peer, json!({"resourceSubscriptions": ["notes://a"]})).await;
    assert_eq!(peer.finish_ok().await, [closing(&id)]);
    assert_eq!(updates.listens(), 0);
}

#[tokio::test]
async fn limits_are_refused_with_a_clear_error() {
    let server = builder()
        .max_listens_per_connection(2)
        .max_listens(3)
        .max_listen_uris(3)
        .build()
        .unwrap();
    let updates = server.resource_updates().clone();
    let mut peer = RawPeer::in_process(&server, Era::Stateless);

    let uris = json!({"resourceSubscriptions": ["a://1", "a://2", "a://3", "a://4"]});
    let r = peer.call("subscriptions/listen", listen(uris)).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("lists 4 URIs, over this server's limit of 3"),
        "{message}"
    );

    let (first, _) = open(&mut peer, json!({})).await;
    open(&mut peer, json!({})).await;
    let r = peer.call("subscriptions/listen", listen(json!({}))).await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("too many listens on this connection: 2 are open"),
        "{message}"
    );
    assert_eq!(updates.listens(), 2);

    // The server-wide bound: a second connection gets one more, then none.
    let mut other = RawPeer::in_process(&server, Era::Stateless);
    open(&mut other, json!({})).await;
    let r = other.call("subscriptions/listen", listen(json!({}))).await;
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("the server already has 3 open"), "{r}");

    // Cancelling one makes room again.
    peer.cancel(&first, None).await;
    until(
        "a listen is forgotten",
        async || updates.listens(),
        |n| *n == 2,
    )
    .await;
    let (_, ack) = open(&mut other, json!({})).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    let zero = builder().max_listen_uris(0).build().unwrap_err();
    assert_eq!(
        zero,
        BuildError::InvalidOption("max_listen_uris must be at least 1".into())
    );
}

#[tokio::test]
async fn malformed_filters_and_the_wrong_era_are_refused() {
    let server = builder().build().unwrap();
    let mut peer = RawPeer::in_process(&server, Era::Stateless);
    for params in [
        json!({}),
        listen(json!({"resourceSubscriptions": "notes://a"})),
        listen(json!({"resourcesListChanged": 1})),
    ] {
        let r = peer.call("subscriptions/listen", params.clone()).await;
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
    }
    // The handshake era has no such method.
    let mut session = RawPeer::in_process(&server, Era::Handshake);
    session.open().await;
    let r = session
        .call(
            "subscriptions/listen",
            listen(json!({"resourceSubscriptions": ["notes://a"]})),
        )
        .await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
}

#[tokio::test]
async fn list_changes_are_declared_and_sent_only_when_the_application_opts_in() {
    for opted_in in [false, true] {
        let server = match opted_in {
            true => builder().resources_list_changes(),
            false => builder(),
        };
        let server = server.build().unwrap();
        let updates = server.resource_updates().clone();
        let expected = json!({"subscribe": true, "listChanged": opted_in});

        let mut session = RawPeer::in_process(&server, Era::Handshake);
        let r = session
            .call(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                  "clientInfo": {"name": "t", "version": "0"}}),
            )
            .await;
        assert_eq!(r["result"]["capabilities"]["resources"], expected, "{r}");
        session
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        // Answered after the notification took effect: the session counts as initialized.
        assert_eq!(
            written_before_a_request(&mut session).await,
            Vec::<Value>::new()
        );
        let mut stateless = RawPeer::in_process(&server, Era::Stateless);
        let found = stateless.call("server/discover", json!({})).await;
        assert_eq!(
            found["result"]["capabilities"]["resources"], expected,
            "{found}"
        );
        let (id, ack) = open(&mut stateless, json!({"resourcesListChanged": true})).await;
        let granted = ack["params"]["notifications"].clone();
        let (_, deaf) = open(&mut stateless, json!({})).await;
        assert_eq!(deaf["params"]["notifications"], json!({}));

        if !opted_in {
            assert_eq!(granted, json!({}));
            assert_eq!(updates.list_changed(), 0);
            assert_eq!(
                written_before_a_request(&mut session).await,
                Vec::<Value>::new()
            );
            assert_eq!(
                written_before_a_request(&mut stateless).await,
                Vec::<Value>::new()
            );
            continue;
        }
        assert_eq!(granted, json!({"resourcesListChanged": true}));
        // The handshake session and the one listen that asked; not the listen that did not.
        assert_eq!(updates.list_changed(), 2);
        assert_eq!(
            session.recv().await,
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
        );
        let tagged = stateless.recv().await;
        assert_eq!(tagged["method"], "notifications/resources/list_changed");
        assert_eq!(tagged["params"]["_meta"][SUBSCRIPTION_ID], id);
        assert_eq!(
            written_before_a_request(&mut stateless).await,
            Vec::<Value>::new()
        );
    }

    let refused = Server::builder("t", "1").resources_list_changes().build();
    assert!(matches!(refused, Err(BuildError::InvalidOption(m)) if m.contains("needs resources")),);
}

#[tokio::test]
async fn the_client_listens_in_both_eras() {
    let server = builder().resources_list_changes().build().unwrap();
    let updates = server.resource_updates().clone();
    for stateless in [true, false] {
        let client = match stateless {
            true => Client::builder().stateless(),
            false => Client::builder(),
        };
        let client = client.in_process(&server).await.unwrap();
        let asked = SubscriptionFilter::resources(["notes://a"])
            .with_resources_list_changed()
            .with_tools_list_changed();
        let mut listener = client.listen(asked).await.unwrap();
        let expected = SubscriptionFilter::resources(["notes://a"]).with_resources_list_changed();
        assert_eq!(listener.acknowledged(), &expected, "stateless: {stateless}");
        assert_eq!(listener.subscription_id().is_some(), stateless);
        // A second listener on the same URI, closed at once: the first still hears.
        let other = client
            .listen(SubscriptionFilter::resources(["notes://a"]))
            .await
            .unwrap();
        other.close().await;
        until(
            "one subscriber",
            async || updates.subscribers("notes://a"),
            |n| *n == 1,
        )
        .await;

        assert_eq!(updates.updated("notes://b"), 0);
        assert_eq!(updates.updated("notes://a"), 1);
        assert_eq!(
            listener.next().await,
            Some(Change::ResourceUpdated("notes://a".into()))
        );
        assert_eq!(updates.list_changed(), 1);
        assert_eq!(listener.next().await, Some(Change::ResourcesListChanged));
        listener.close().await;
        until(
            "no subscriber",
            async || updates.subscribers("notes://a"),
            |n| *n == 0,
        )
        .await;
        assert_eq!(updates.listens(), 0);
    }

    // Ended by the server: the listener says so.
    let client = Client::builder()
        .stateless()
        .in_process(&server)
        .await
        .unwrap();
    let mut listener = client.listen(SubscriptionFilter::default()).await.unwrap();
    assert_eq!(updates.end_listens(), 1);
    assert_eq!(listener.next().await, None);
    assert!(listener.ended_gracefully());

    // Refused: the server's error.
    let small = builder().max_listen_uris(1).build().unwrap();
    let client = Client::builder()
        .stateless()
        .in_process(&small)
        .await
        .unwrap();
    let refused = client
        .listen(SubscriptionFilter::resources(["a://1", "a://2"]))
        .await
        .unwrap_err();
    assert_eq!(
        refused.protocol().map(|e| e.code),
        Some(-32602),
        "{refused}"
    );
}
