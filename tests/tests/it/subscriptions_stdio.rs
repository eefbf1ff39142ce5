//! A `subscriptions/listen` stream over a real process's stdin and stdout (the `watch_server`
//! binary): acknowledged, an update of a listed URI arrives tagged with the listen's id before the
//! answer of the call that caused it, an unlisted one does not, a cancelled listen hears nothing
//! more, and at the end of input the open listen gets its closing result and the process exits 0.

use serde_json::{Value, json};
use test_support::stdio::{Era, RawPeer};

const WATCH: &str = env!("CARGO_BIN_EXE_watch_server");
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Calls `touch` with `uri`: how many were told, and what was written before the answer.
async fn touch(peer: &mut RawPeer, uri: &str) -> (Value, Vec<Value>) {
    let id = peer.request_tool("touch", json!({ "uri": uri })).await;
    let (answer, before) = peer.recv_response(&id).await;
    (
        answer["result"]["structuredContent"]["result"].clone(),
        before,
    )
}

#[tokio::test]
async fn a_listen_over_a_processs_stdio() {
    let mut peer = RawPeer::child(WATCH, &[], Era::Stateless);
    let listen = json!({"notifications": {"resourceSubscriptions": ["notes://a"]}});
    let id = peer.request("subscriptions/listen", listen.clone()).await;
    let ack = peer.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], id);

    let (told, before) = touch(&mut peer, "notes://a").await;
    assert_eq!(told, 1);
    assert_eq!(
        before,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                "params": {"_meta": {SUBSCRIPTION_ID: id}, "uri": "notes://a"}})
        ]
    );
    assert_eq!(touch(&mut peer, "notes://b").await, (json!(0), Vec::new()));

    // A second listen, cancelled: only the first hears, from the line after the cancellation on,
    // before the listen's own task has run to notice (both lines arrive in one write).
    let second = peer.request("subscriptions/listen", listen).await;
    assert_eq!(
        peer.recv().await["params"]["_meta"][SUBSCRIPTION_ID],
        second
    );
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": second}});
    let arguments = json!({"name": "touch", "arguments": {"uri": "notes://a"}});
    let call = json!({"jsonrpc": "2.0", "id": "touch", "method": "tools/call",
                      "params": peer.params(arguments)});
    peer.send_line(format!("{cancel}\n{call}").as_bytes()).await;
    let (answer, before) = peer.recv_response(&json!("touch")).await;
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 1,
        "{answer}"
    );
    assert_eq!(before.len(), 1);
    assert_eq!(before[0]["params"]["_meta"][SUBSCRIPTION_ID], id);

    let (rest, code) = peer.finish().await;
    assert_eq!(code, 0, "{rest:?}");
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["id"], id);
    assert_eq!(rest[0]["result"]["_meta"][SUBSCRIPTION_ID], id);
    assert_eq!(rest[0]["result"]["resultType"], "complete");
}
