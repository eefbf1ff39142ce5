//! Long resource URIs, over stdio framing (raw lines through `serve_io`) in both eras: a URI over
//! `max_uri_bytes` is invalid params, naming the limit, on every request that names one
//! (`resources/read`, `resources/subscribe` and `unsubscribe`, a listen's filter, a completion's
//! `ref/resource`); with the limit raised, a megabyte URI is matched against the templates and
//! read, or not found.

use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, ServerBuilder};
use serde_json::{Value, json};
use test_support::stdio::{ERAS, Era, RawPeer};

/// The default `max_uri_bytes`, as `ServerBuilder::max_uri_bytes` documents it: 64 KiB.
const DEFAULT_MAX_URI_BYTES: usize = 65_536;

/// A file, by its path: its contents are the path's length in bytes.
#[resource(uri = "files://{+path}")]
fn file(path: String) -> String {
    path.len().to_string()
}

/// One section of a note.
#[resource(uri = "notes://{title}/{section}")]
fn section(title: String, section: String) -> String {
    format!("{title}: {section}")
}

fn builder() -> ServerBuilder {
    Server::builder("uris", "1.0.0").resources(resources![file, section])
}

const MEGABYTE: usize = 1 << 20;

/// `scheme://` and `a`s, `len` bytes in all.
fn uri_of(scheme: &str, len: usize) -> String {
    let prefix = format!("{scheme}://");
    format!("{prefix}{}", "a".repeat(len - prefix.len()))
}

/// Asserts that `answer` is -32602 for a URI of `len` bytes over `limit`.
fn assert_too_long(answer: &Value, len: usize, limit: usize) {
    assert_eq!(answer["error"]["code"], -32602, "{answer:.300}");
    let message = answer["error"]["message"].as_str().unwrap();
    let expected = format!("is {len} bytes, over this server's limit of {limit} (max_uri_bytes)");
    assert!(message.contains(&expected), "{message}");
}

#[tokio::test]
async fn a_uri_over_the_limit_is_invalid_params_wherever_a_request_names_one() {
    let server = builder().build().unwrap();
    let long = uri_of("files", MEGABYTE);
    for era in ERAS {
        let mut peer = RawPeer::in_process(&server, era);
        peer.open().await;
        let r = peer.call("resources/read", json!({"uri": long})).await;
        assert_too_long(&r, MEGABYTE, DEFAULT_MAX_URI_BYTES);
        assert!(r["error"].get("data").is_none(), "the URI is not echoed");
        // At the limit, read; one byte over, refused.
        let at = uri_of("files", DEFAULT_MAX_URI_BYTES);
        let r = peer.call("resources/read", json!({"uri": at})).await;
        let size = (DEFAULT_MAX_URI_BYTES - "files://".len()).to_string();
        assert_eq!(r["result"]["contents"][0]["text"], size, "{era:?}");
        let over = uri_of("files", DEFAULT_MAX_URI_BYTES + 1);
        let r = peer.call("resources/read", json!({"uri": over})).await;
        assert_too_long(&r, DEFAULT_MAX_URI_BYTES + 1, DEFAULT_MAX_URI_BYTES);
        let complete = json!({
            "ref": {"type": "ref/resource", "uri": long},
            "argument": {"name": "path", "value": ""}
        });
        let r = peer.call("completion/complete", complete).await;
        assert_too_long(&r, MEGABYTE, DEFAULT_MAX_URI_BYTES);
        match era {
            Era::Handshake => {
                for method in ["resources/subscribe", "resources/unsubscribe"] {
                    let r = peer.call(method, json!({"uri": long})).await;
                    assert_too_long(&r, MEGABYTE, DEFAULT_MAX_URI_BYTES);
                }
                assert_eq!(server.resource_updates().subscribers(&long), 0);
            }
            Era::Stateless => {
                let filter = json!({"resourceSubscriptions": ["files://a", long]});
                let r = peer
                    .call("subscriptions/listen", json!({"notifications": filter}))
                    .await;
                assert_too_long(&r, MEGABYTE, DEFAULT_MAX_URI_BYTES);
                assert_eq!(server.resource_updates().listens(), 0);
            }
        }
    }
}

#[tokio::test]
async fn with_the_limit_raised_a_megabyte_uri_is_matched() {
    let server = builder().max_uri_bytes(2 * MEGABYTE).build().unwrap();
    for (era, not_found) in [(Era::Handshake, -32002), (Era::Stateless, -32602)] {
        let mut peer = RawPeer::in_process(&server, era);
        peer.open().await;
        // Read through `files://{+path}`.
        let uri = uri_of("files", MEGABYTE);
        let r = peer.call("resources/read", json!({"uri": uri})).await;
        let size = (MEGABYTE - "files://".len()).to_string();
        assert_eq!(r["result"]["contents"][0]["text"], size, "{era:?}");
        // `notes://{title}/{section}` needs a `/` that is not there: not found, as is an unknown
        // scheme.
        for uri in [uri_of("notes", MEGABYTE), uri_of("nope", MEGABYTE)] {
            let r = peer.call("resources/read", json!({"uri": uri})).await;
            assert_eq!(r["error"]["code"], not_found, "{era:?}: {r:.300}");
            assert_eq!(r["error"]["message"], "Resource not found");
            assert_eq!(r["error"]["data"]["uri"], uri);
        }
        // Two simple variables, each a half megabyte.
        let half = "b".repeat(MEGABYTE / 2);
        let uri = format!("notes://{half}/{half}");
        let r = peer.call("resources/read", json!({"uri": uri})).await;
        let text = r["result"]["contents"][0]["text"].as_str().unwrap();
        assert_eq!(text, format!("{half}: {half}"));
        // Past the raised limit, refused.
        let over = uri_of("files", 2 * MEGABYTE + 1);
        let r = peer.call("resources/read", json!({"uri": over})).await;
        assert_too_long(&r, 2 * MEGABYTE + 1, 2 * MEGABYTE);
    }
}

#[test]
fn build_refuses_a_zero_limit() {
    assert_eq!(
        builder().max_uri_bytes(0).build().unwrap_err(),
        BuildError::InvalidOption("max_uri_bytes must be at least 1".into())
    );
}
