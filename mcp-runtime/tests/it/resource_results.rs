//! A resource's `Result`, as a tool's: any `Serialize` value in `Ok` is JSON text (no `Json`
//! wrapper), and each error reaches the client with the code its kind says, in both eras, over
//! stdio framing and through the in-process client: `resource_not_found` is the era's not-found error, `invalid_params` is -32602
//! with its message, a visible `ToolError::new` is -32603 with its message (a read has no
//! `isError`), and any other error type is hidden behind an error id.

use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::stdio::{ERAS, Era, RawPeer};

#[derive(Serialize)]
struct Incident {
    id: u32,
    title: &'static str,
}

/// One incident, by id.
#[resource(uri = "incidents://{id}", mime_type = "application/json")]
fn incident(id: String) -> Result<Incident, ToolError> {
    match id.as_str() {
        "7" => Ok(Incident {
            id: 7,
            title: "Disk full on db-2",
        }),
        "gone" => Err(ToolError::resource_not_found()),
        "new" => Err(ToolError::new("incident ids are numbers")),
        _ => Err(ToolError::invalid_params(format!(
            "`{id}` is not an incident id"
        ))),
    }
}

/// The open incidents, from a store that may fail.
#[resource(uri = "incidents://open")]
async fn open_incidents() -> Result<Vec<Incident>, std::io::Error> {
    Ok(vec![Incident {
        id: 7,
        title: "Disk full on db-2",
    }])
}

/// A store that fails.
#[resource(uri = "incidents://archive")]
fn archive() -> Result<Vec<Incident>, std::io::Error> {
    Err(std::io::Error::other(
        "archive volume at 10.0.0.5 unmounted",
    ))
}

/// Plain text still reads as text inside a `Result`.
#[resource(uri = "incidents://motd", mime_type = "text/plain")]
fn motd() -> Result<&'static str, ToolError> {
    Ok("all quiet")
}

fn server() -> Server {
    Server::builder("desk", "1.0.0")
        .resources(resources![open_incidents, archive, motd, incident])
        .build()
        .unwrap_or_else(|e| panic!("the server builds: {e}"))
}

async fn read(peer: &mut RawPeer, uri: &str) -> Value {
    peer.call("resources/read", json!({ "uri": uri })).await
}

#[tokio::test]
async fn a_results_ok_value_is_json_and_its_errors_carry_their_codes_in_both_eras() {
    let server = server();
    for (era, not_found) in [(Era::Handshake, -32002), (Era::Stateless, -32602)] {
        let mut peer = RawPeer::in_process(&server, era);
        peer.open().await;
        let r = read(&mut peer, "incidents://7").await;
        let item = &r["result"]["contents"][0];
        assert_eq!(item["mimeType"], "application/json", "{era:?}: {r}");
        assert_eq!(
            item["text"], r#"{"id":7,"title":"Disk full on db-2"}"#,
            "{r}"
        );
        let r = read(&mut peer, "incidents://open").await;
        let item = &r["result"]["contents"][0];
        assert_eq!(
            item["text"], r#"[{"id":7,"title":"Disk full on db-2"}]"#,
            "{r}"
        );
        let r = read(&mut peer, "incidents://motd").await;
        assert_eq!(r["result"]["contents"][0]["text"], "all quiet", "{r}");

        let r = read(&mut peer, "incidents://gone").await;
        assert_eq!(r["error"]["code"], not_found, "{era:?}: {r}");
        assert_eq!(r["error"]["data"]["uri"], "incidents://gone", "{r}");
        let r = read(&mut peer, "incidents://x1").await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(r["error"]["message"], "`x1` is not an incident id", "{r}");
        let r = read(&mut peer, "incidents://new").await;
        assert_eq!(r["error"]["code"], -32603, "{r}");
        assert_eq!(r["error"]["message"], "incident ids are numbers", "{r}");
        let r = read(&mut peer, "incidents://archive").await;
        assert_eq!(r["error"]["code"], -32603, "{r}");
        assert_eq!(r["error"]["message"], "Internal error", "{r}");
        assert!(r["error"]["data"]["errorId"].is_string(), "{r}");
        assert!(!r.to_string().contains("10.0.0.5"), "{r}");
    }
}

#[tokio::test]
async fn the_in_process_client_reads_them_in_both_eras() {
    let server = server();
    for era in ERAS {
        let client = era.client(&server).await;
        let read = client.read_resource("incidents://7").await.expect("reads");
        assert_eq!(
            read[0].as_text(),
            Some(r#"{"id":7,"title":"Disk full on db-2"}"#)
        );
        let refused = client.read_resource("incidents://x1").await.unwrap_err();
        let error = refused.protocol().expect("a protocol error");
        assert_eq!(
            (error.code, error.message.as_str()),
            (-32602, "`x1` is not an incident id")
        );
    }
}
