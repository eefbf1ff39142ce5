//! Resources end to end, in memory (the client) and over stdio framing (raw lines through
//! `serve_io`), in both eras: listing with pages, templates, reads of every return type, the
//! not-found error of each era, subscriptions and their notifications, capabilities, completion
//! of template variables, and what `build` refuses.

use std::collections::BTreeMap;
use std::sync::Mutex;

use mcp_runtime::prelude::*;
use mcp_runtime::resource::ResourceBody;
use mcp_runtime::{BuildError, Client, Json};
use serde_json::{Value, json};
use test_support::stdio::{ERAS, Era, RawPeer};

/// The project's README.
#[resource(
    uri = "docs://readme",
    mime_type = "text/markdown",
    title = "README",
    size = 7,
    annotations(audience = ["user", "assistant"], priority = 0.5, last_modified = "2025-01-12T15:00:58Z")
)]
fn readme() -> String {
    "# Hello".into()
}

/// A one-pixel logo.
#[resource(uri = "img://logo", mime_type = "image/png")]
fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

#[derive(Serialize)]
struct Settings {
    theme: &'static str,
    width: u32,
}

/// The settings, as JSON.
#[resource(uri = "config://settings", name = "settings")]
async fn config() -> Settings {
    Settings {
        theme: "dark",
        width: 80,
    }
}

/// The notes, by title.
struct Notes(Mutex<BTreeMap<String, String>>);

fn titles(request: &CompleteRequest) -> Vec<String> {
    let all = ["groceries", "garden", "todo"].into_iter();
    let matching = all.filter(|t| t.starts_with(request.value()));
    matching.map(str::to_owned).collect()
}

/// One note, by its title.
#[resource(uri = "notes://{title}", mime_type = "text/plain", complete(title = titles))]
fn note(title: String, notes: &Notes) -> Result<String, ToolError> {
    let notes = notes.0.lock().unwrap();
    notes
        .get(&title)
        .cloned()
        .ok_or_else(|| ToolError::protocol(-32602, format!("no note {title:?}")))
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Book,
    Film,
}
impl UriVar for Kind {}

/// An item of a kind, with the request it was read for.
#[resource(uri = "items://{kind}/{+id}")]
async fn item(kind: Kind, id: String, ctx: &Context) -> Result<Json<Value>, ToolError> {
    let kind = match kind {
        Kind::Book => "book",
        Kind::Film => "film",
    };
    Ok(Json(
        json!({"kind": kind, "id": id, "uri": ctx.tool_name()}),
    ))
}

/// Two items in one read, text and bytes.
#[resource(uri = "pair://{n}")]
fn pair(n: String) -> Vec<ResourceContents> {
    vec![
        ResourceContents::text(format!("first {n}")).with_uri(format!("pair://{n}/a")),
        ResourceContents::blob(vec![1, 2, 3])
            .with_uri(format!("pair://{n}/b"))
            .with_mime_type("application/x-pair"),
    ]
}

/// Fails for the operator only.
#[resource(uri = "broken://hidden")]
fn broken() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("disk on fire"))
}

fn server() -> Server {
    let notes = Notes(Mutex::new(BTreeMap::from([(
        "groceries".to_owned(),
        "milk, eggs".to_owned(),
    )])));
    Server::builder("res", "1.0.0")
        .state(notes)
        .page_size(2)
        .resources(resources![readme, logo, config, note, item, pair, broken])
        .build()
        .expect("builds")
}

async fn client(server: &Server, era: Era) -> Client {
    let builder = Client::builder();
    let builder = match era {
        Era::Handshake => builder,
        Era::Stateless => builder.stateless(),
    };
    builder.in_process(server).await.expect("connects")
}

#[tokio::test]
async fn lists_page_by_page_in_both_eras() {
    let server = server();
    for era in ERAS {
        let client = client(&server, era).await;
        let listed = client.list_resources().await.unwrap();
        let uris: Vec<&str> = listed.iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "docs://readme",
                "img://logo",
                "config://settings",
                "broken://hidden"
            ],
            "{era:?}"
        );
        assert_eq!(
            listed[0],
            json!({
                "uri": "docs://readme", "name": "readme", "title": "README",
                "description": "The project's README.", "mimeType": "text/markdown", "size": 7,
                "annotations": {"audience": ["user", "assistant"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"}
            })
        );
        assert_eq!(listed[2]["name"], "settings");
        let first = client.request("resources/list", json!({})).await.unwrap();
        assert_eq!(first["resources"].as_array().unwrap().len(), 2);
        assert_eq!(first["nextCursor"], "resources-2");
        let bad = client
            .request("resources/list", json!({"cursor": "resources-9"}))
            .await;
        assert!(bad.is_err());
        let templates = client.list_resource_templates().await.unwrap();
        let uris: Vec<&str> = templates
            .iter()
            .map(|r| r["uriTemplate"].as_str().unwrap())
            .collect();
        assert_eq!(
            uris,
            ["notes://{title}", "items://{kind}/{+id}", "pair://{n}"]
        );
        assert_eq!(
            templates[0],
            json!({"uriTemplate": "notes://{title}", "name": "note", "description": "One note, by its title.", "mimeType": "text/plain"})
        );
        let bad = client
            .request("resources/list", json!({"cursor": "tools-1"}))
            .await;
        assert!(bad.unwrap_err().to_string().contains("invalid cursor"));
    }
}

#[tokio::test]
async fn reads_every_return_type_in_both_eras() {
    let server = server();
    for era in ERAS {
        let client = client(&server, era).await;
        for (uri, contents) in [
            (
                "docs://readme",
                json!({"mimeType": "text/markdown", "text": "# Hello"}),
            ),
            (
                "img://logo",
                json!({"mimeType": "image/png", "blob": "iVBORw=="}),
            ),
        ] {
            let raw = client.request("resources/read", json!({"uri": uri})).await;
            let mut expected = contents;
            expected["uri"] = uri.into();
            assert_eq!(raw.unwrap()["contents"], json!([expected]));
        }
        let settings = client.read_resource("config://settings").await.unwrap();
        assert_eq!(
            settings[0].as_text(),
            Some(r#"{"theme":"dark","width":80}"#)
        );
        assert_eq!(settings[0].mime_type.as_deref(), Some("application/json"));
        let note = client.read_resource("notes://groceries").await.unwrap();
        assert_eq!(note[0].as_text(), Some("milk, eggs"));
        assert_eq!(note[0].uri.as_deref(), Some("notes://groceries"));
        let item = client.read_resource("items://film/a/b%20c").await.unwrap();
        let item: Value = serde_json::from_str(item[0].as_text().unwrap()).unwrap();
        assert_eq!(
            item,
            json!({"kind": "film", "id": "a/b c", "uri": "items://film/a/b%20c"})
        );
        let pair = client.read_resource("pair://7").await.unwrap();
        assert_eq!(pair[0].uri.as_deref(), Some("pair://7/a"));
        assert_eq!(pair[1].body, ResourceBody::Blob(vec![1, 2, 3]));
        assert_eq!(pair[1].mime_type.as_deref(), Some("application/x-pair"));
    }
}

#[tokio::test]
async fn unknown_uris_and_failures_are_errors_of_each_era() {
    let server = server();
    for (era, code) in [(Era::Handshake, -32002), (Era::Stateless, -32602)] {
        let mut peer = RawPeer::in_process(&server, era);
        peer.open().await;
        let r = peer
            .call("resources/read", json!({"uri": "nope://x"}))
            .await;
        assert_eq!(r["error"]["code"], code, "{era:?}: {r}");
        assert_eq!(r["error"]["data"]["uri"], "nope://x");
        // A value the variable's type does not hold: invalid params naming the variable.
        let r = peer
            .call("resources/read", json!({"uri": "items://song/1"}))
            .await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("expected one of: book, film"),
            "{r}"
        );
        // The resource's own protocol error, as raised.
        let r = peer
            .call("resources/read", json!({"uri": "notes://zzz"}))
            .await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(r["error"]["message"], "no note \"zzz\"");
        // An unexpected failure is hidden behind an error id.
        let r = peer
            .call("resources/read", json!({"uri": "broken://hidden"}))
            .await;
        assert_eq!(r["error"]["message"], "Internal error", "{r}");
        assert!(r["error"]["data"]["errorId"].is_string(), "{r}");
        assert!(!r.to_string().contains("disk on fire"));
        let r = peer.call("resources/read", json!({})).await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
}

#[tokio::test]
async fn subscribers_hear_of_updates_until_they_unsubscribe() {
    let server = server();
    let updates = server.resource_updates().clone();
    let mut peer = RawPeer::in_process(&server, Era::Handshake);
    peer.open().await;
    let r = peer
        .call("resources/subscribe", json!({"uri": "notes://groceries"}))
        .await;
    assert_eq!(r["result"], json!({}), "{r}");
    assert_eq!(updates.subscribers("notes://groceries"), 1);
    assert_eq!(updates.updated("notes://other"), 0);
    assert_eq!(updates.updated("notes://groceries"), 1);
    let n = peer.recv().await;
    assert_eq!(
        n,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://groceries"}})
    );
    let r = peer
        .call("resources/unsubscribe", json!({"uri": "notes://groceries"}))
        .await;
    assert_eq!(r["result"], json!({}));
    assert_eq!(updates.updated("notes://groceries"), 0);
    // Nothing was sent after the unsubscription: the next message is the answer to a ping.
    let id = peer.request("ping", json!({})).await;
    assert_eq!(peer.recv().await["id"], id);

    // The in-process client, too.
    let client = Client::in_process(&server).await.unwrap();
    client.subscribe("docs://readme").await.unwrap();
    assert_eq!(updates.subscribers("docs://readme"), 1);
    client.unsubscribe("docs://readme").await.unwrap();
    assert_eq!(updates.subscribers("docs://readme"), 0);
}

#[tokio::test]
async fn the_2026_era_has_no_resources_subscribe() {
    // Removed in 2026-07-28 for `subscriptions/listen` (changelog, item 4).
    let server = server();
    let mut peer = RawPeer::in_process(&server, Era::Stateless);
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        let r = peer.call(method, json!({"uri": "docs://readme"})).await;
        assert_eq!(r["error"]["code"], -32601, "{r}");
    }
}

#[tokio::test]
async fn capabilities_declare_resources_only_when_there_are_some() {
    let mut peer = RawPeer::in_process(&server(), Era::Handshake);
    let r = peer
        .call("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}))
        .await;
    assert_eq!(
        r["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": false}),
        "{r}"
    );
    let discover = Client::builder()
        .stateless()
        .in_process(&server())
        .await
        .unwrap();
    let found = discover
        .request("server/discover", json!({}))
        .await
        .unwrap();
    // The 2026-07-28 era subscribes through `subscriptions/listen` (tests/it/subscriptions.rs).
    assert_eq!(
        found["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": false}),
        "{found}"
    );

    /// Says hi.
    #[tool]
    fn hi() -> String {
        "hi".into()
    }
    let tools_only = Server::builder("t", "1").tools(tools![hi]).build().unwrap();
    let c = Client::builder()
        .stateless()
        .in_process(&tools_only)
        .await
        .unwrap();
    let found = c.request("server/discover", json!({})).await.unwrap();
    assert!(found["capabilities"].get("resources").is_none(), "{found}");
    let r = c.request("resources/list", json!({})).await.unwrap_err();
    assert!(
        r.to_string().contains("-32601") || r.to_string().contains("Method not found"),
        "{r}"
    );
    let empty = Server::builder("t", "1")
        .tools(tools![hi])
        .empty_prompts_and_resources()
        .build()
        .unwrap();
    let c = Client::in_process(&empty).await.unwrap();
    assert_eq!(c.list_resources().await.unwrap(), Vec::<Value>::new());
}

#[tokio::test]
async fn template_variables_complete_from_their_function_or_their_type_in_both_eras() {
    let server = server();
    for era in ERAS {
        let c = client(&server, era).await;
        let titles = c.complete_resource("notes://{title}", "title", "g", []);
        assert_eq!(
            titles.await.unwrap().values,
            ["groceries", "garden"],
            "{era:?}"
        );
        let kinds = c.complete_resource("items://{kind}/{+id}", "kind", "f", []);
        assert_eq!(kinds.await.unwrap().values, ["film"], "{era:?}");
        // A free-text variable has no completion: an empty answer.
        let ids = c.complete_resource("items://{kind}/{+id}", "id", "", [("kind", "film")]);
        let ids = ids.await.unwrap();
        assert!(ids.values.is_empty() && ids.total == Some(0), "{era:?}");
        // An unknown template, or a variable the template does not have: invalid params.
        for (template, var) in [("notes://{nope}", "title"), ("notes://{title}", "x")] {
            let e = c
                .complete_resource(template, var, "", [])
                .await
                .unwrap_err();
            assert_eq!(
                e.protocol().map(|e| e.code),
                Some(-32602),
                "{template} {var}"
            );
        }
        let fixed = c.complete_resource("docs://readme", "x", "", []).await;
        assert_eq!(fixed.unwrap_err().protocol().map(|e| e.code), Some(-32602));
    }
}

#[tokio::test]
async fn the_completions_capability_follows_the_templates() {
    let with_templates = Client::in_process(&server()).await.unwrap();
    let caps = &with_templates.session().unwrap().capabilities;
    assert!(caps.get("completions").is_some(), "{caps}");
    let fixed_only = Server::builder("t", "1")
        .resources(resources![readme])
        .build()
        .unwrap();
    let c = Client::in_process(&fixed_only).await.unwrap();
    let caps = &c.session().unwrap().capabilities;
    assert!(caps.get("completions").is_none(), "{caps}");
    assert!(caps.get("resources").is_some(), "{caps}");
}

#[test]
fn build_refuses_a_uri_twice_across_tables_and_missing_state() {
    let e = Server::builder("t", "1")
        .resources(resources![readme])
        .resources(resources![readme, logo])
        .build()
        .unwrap_err();
    let BuildError::DuplicateResource(d) = &e else {
        panic!("{e}")
    };
    assert_eq!(d.uri, "docs://readme");
    assert!(e.to_string().contains("tests/it/resources.rs"), "{e}");
    let e = Server::builder("t", "1")
        .resources(resources![note])
        .build()
        .unwrap_err();
    assert!(
        matches!(&e, BuildError::MissingState { tool, .. } if tool == "note"),
        "{e}"
    );
}
