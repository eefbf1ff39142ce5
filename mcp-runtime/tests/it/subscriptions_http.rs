//! `subscriptions/listen` over Streamable HTTP on 127.0.0.1:0: the POST is answered with an event
//! stream that stays open, its acknowledgement first, then the notifications it opted in to;
//! closing the stream ends the listen; a refused listen is a plain JSON error; the server ends
//! open streams with their closing result.

use std::time::Duration;

use futures_util::StreamExt;
use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::{STATELESS, meta, serve};
use test_support::wait::until;

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// One note, by its title.
#[resource(uri = "notes://{title}", mime_type = "text/plain")]
fn note(title: String) -> String {
    format!("the note {title}")
}

fn server() -> Server {
    Server::builder("watch", "1.0.0")
        .resources(resources![note])
        .resources_list_changes()
        .max_listen_uris(2)
        .build()
        .unwrap()
}

/// POSTs a stateless `subscriptions/listen` with `id` and `notifications`.
async fn post_listen(url: &str, id: u64, notifications: Value) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "notifications": notifications, "_meta": meta()
    }});
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", STATELESS)
        .header("mcp-method", "subscriptions/listen")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// The events of an open event stream, one JSON message at a time.
struct Events {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl Events {
    fn of(response: reqwest::Response) -> Events {
        assert_eq!(response.status(), 200);
        let headers = response.headers();
        assert_eq!(headers["content-type"], "text/event-stream");
        assert_eq!(headers["x-accel-buffering"], "no");
        Events {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next message; `None` when the stream ended.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                // A keep-alive comment has no data.
                if data.is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&data).unwrap());
            }
            let chunk = tokio::time::timeout(HANG, self.body.next())
                .await
                .expect("the server writes or ends the stream")?;
            self.buffer
                .push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        }
    }
}

#[tokio::test]
async fn a_listen_is_an_open_event_stream_until_the_client_closes_it() {
    let server = server();
    let updates = server.resource_updates().clone();
    let served = serve(
        &server,
        HttpOptions::default().keep_alive(Duration::from_millis(50)),
    )
    .await;
    let asked = json!({"resourceSubscriptions": ["notes://a"], "toolsListChanged": true});
    let mut events = Events::of(post_listen(&served.url, 7, asked).await);
    assert_eq!(
        events.next().await,
        Some(
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": {SUBSCRIPTION_ID: 7},
                       "notifications": {"resourceSubscriptions": ["notes://a"]}}})
        )
    );
    // Quiet for a while (keep-alive comments only): the stream stays open.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(updates.listens(), 1);
    assert_eq!(updates.updated("notes://b"), 0);
    assert_eq!(updates.list_changed(), 0);
    assert_eq!(updates.updated("notes://a"), 1);
    assert_eq!(
        events.next().await,
        Some(
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"_meta": {SUBSCRIPTION_ID: 7}, "uri": "notes://a"}})
        )
    );

    // Closing the stream is the cancellation.
    drop(events);
    until(
        "the listen is forgotten",
        async || updates.listens(),
        |n| *n == 0,
    )
    .await;
    assert_eq!(updates.updated("notes://a"), 0);
}

#[tokio::test]
async fn a_refused_listen_is_a_json_error_and_the_server_ends_open_ones() {
    let server = server();
    let updates = server.resource_updates().clone();
    let served = serve(&server, HttpOptions::default()).await;

    let asked = json!({"resourceSubscriptions": ["a://1", "a://2", "a://3"]});
    let refused = post_listen(&served.url, 1, asked).await;
    assert_eq!(refused.status(), 400);
    let error: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert_eq!(error["id"], 1);
    assert_eq!(error["error"]["code"], -32602, "{error}");

    let mut events =
        Events::of(post_listen(&served.url, 2, json!({"resourcesListChanged": true})).await);
    let ack = events.next().await.unwrap();
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true})
    );
    assert_eq!(updates.list_changed(), 1);
    let changed = events.next().await.unwrap();
    assert_eq!(changed["method"], "notifications/resources/list_changed");
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_ID], 2);

    // The server ends it: the closing result, then the end of the stream.
    assert_eq!(updates.end_listens(), 1);
    let closing = events.next().await.unwrap();
    assert_eq!(closing["id"], 2);
    assert_eq!(closing["result"]["resultType"], "complete");
    assert_eq!(closing["result"]["_meta"][SUBSCRIPTION_ID], 2);
    assert_eq!(events.next().await, None);
    assert_eq!(updates.listens(), 0);
}

#[tokio::test]
async fn a_listen_sent_on_a_2025_session_also_ends_with_its_stream() {
    let server = server();
    let updates = server.resource_updates().clone();
    let served = serve(&server, HttpOptions::default()).await;
    let http = reqwest::Client::new();
    let post = |body: Value| {
        http.post(&served.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}});
    let opened = post(initialize).send().await.unwrap();
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let listen = json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["notes://a"]}, "_meta": meta()}});
    let response = post(listen)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    let mut events = Events::of(response);
    let ack = events.next().await.unwrap();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(updates.updated("notes://a"), 1);
    assert_eq!(events.next().await.unwrap()["params"]["uri"], "notes://a");
    // Other calls of a session run on when their stream closes; a listen does not.
    drop(events);
    until(
        "the listen is forgotten",
        async || updates.listens(),
        |n| *n == 0,
    )
    .await;
}
