//! Both eras' opening and housekeeping: initialize, discover, ping, versions, the `_meta`
//! envelope, unknown and removed methods, and building a server.

use integration_tests::kit::{self, KitOptions, NAMES};
use integration_tests::peer::*;
use mcp_runtime::error::codes;
use mcp_runtime::{BuildError, Client, Server, ToolTable};
use serde_json::{Value, json};

const KIT: &str = env!("CARGO_BIN_EXE_kit_server");

#[tokio::test]
async fn the_opening_exchange_names_the_server_in_both_eras() {
    for (via, era) in SETUPS {
        let conn = Conn::plain(KIT, via, era).await;
        let info = conn.client.server_info().expect("serverInfo").clone();
        assert_eq!(info.name, "kit", "{via:?} {era:?}");
        assert_eq!(info.version, "0.3.1");
        assert_eq!(info.title.as_deref(), Some("Test kit"));
        assert_eq!(
            conn.client.instructions(),
            Some("Tools that exercise the runtime.")
        );
        let session = conn.client.session().unwrap();
        assert_eq!(session.capabilities["tools"], json!({"listChanged": false}));
        match era {
            Era::Handshake => {
                assert_eq!(conn.client.protocol_version(), Some("2025-11-25"));
                conn.client.ping().await.expect("ping");
            }
            Era::Stateless => {
                assert_eq!(conn.client.protocol_version(), Some("2026-07-28"));
                let raw = &session.raw;
                assert_eq!(
                    raw["supportedVersions"],
                    json!(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
                );
                assert_eq!(raw["resultType"], "complete");
                assert_eq!(raw["ttlMs"], 0);
                assert_eq!(raw["cacheScope"], "public");
            }
        }
        assert_eq!(
            conn.finish().await.map(|s| s.code()),
            match via {
                Via::InProcess => None,
                Via::Stdio => Some(Some(0)),
            }
        );
    }
}

#[tokio::test]
async fn initialize_answers_a_supported_version_and_counters_others_with_the_latest() {
    for via in VIAS {
        for (asked, answered) in [
            ("2025-03-26", "2025-03-26"),
            ("2025-06-18", "2025-06-18"),
            ("2025-11-25", "2025-11-25"),
            ("2024-11-05", "2025-11-25"),
            ("1999-01-01", "2025-11-25"),
        ] {
            let client = match via {
                Via::InProcess => Some(
                    Client::builder()
                        .handshake(asked)
                        .in_process(&kit::builder().build().unwrap())
                        .await
                        .unwrap(),
                ),
                Via::Stdio => None,
            };
            let conn = match client {
                Some(c) => {
                    assert_eq!(c.protocol_version(), Some(answered), "asked {asked}");
                    continue;
                }
                None => {
                    Conn::kit(
                        KIT,
                        via,
                        &KitOptions::default(),
                        Client::builder().handshake(asked),
                    )
                    .await
                }
            };
            assert_eq!(
                conn.client.protocol_version(),
                Some(answered),
                "asked {asked}"
            );
            conn.finish().await;
        }
    }
}

#[tokio::test]
async fn a_second_initialize_is_refused() {
    on_each(KIT, vias_in(Era::Handshake), async |conn, _, _| {
        let again = json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "x", "version": "1"}});
        let what = "a second initialize";
        conn.refused("initialize", again, codes::INVALID_REQUEST, what)
            .await;
        conn.client.ping().await.expect("still serving");
    })
    .await;
}

#[tokio::test]
async fn unknown_methods_are_method_not_found_in_both_eras() {
    on_each(KIT, SETUPS, async |conn, _, _| {
        for method in ["resources/list", "no/such/method", "prompts/get"] {
            conn.refused(method, json!({}), codes::METHOD_NOT_FOUND, method)
                .await;
        }
    })
    .await;
}

#[tokio::test]
async fn methods_removed_in_the_stateless_era_are_method_not_found() {
    on_each(KIT, vias_in(Era::Stateless), async |conn, _, _| {
        for method in ["ping", "logging/setLevel"] {
            conn.refused(
                method,
                json!({"level": "info"}),
                codes::METHOD_NOT_FOUND,
                method,
            )
            .await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_stateless_request_without_the_envelope_is_invalid_params() {
    for via in VIAS {
        // A handshake-era raw peer that never sends `initialize`: requests go out as written.
        let mut peer = raw_default(KIT, via, Era::Handshake);
        let cases = [
            ("tools/list", json!({})),
            ("server/discover", json!({})),
            (
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "x"}}),
            ),
            (
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            ),
            (
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            ),
        ];
        for (method, params) in cases {
            peer.send(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
                .await;
            let r = peer.recv_response(&json!(1)).await.0;
            assert_eq!(r["error"]["code"], codes::INVALID_PARAMS, "{method}: {r}");
        }
        // The server keeps serving: the same request with the envelope works.
        let r = peer.call("tools/list", json!({"_meta": envelope()})).await;
        assert_eq!(r["result"]["tools"].as_array().unwrap().len(), NAMES.len());
        peer.finish_ok().await;
    }
}

#[tokio::test]
async fn an_unsupported_stateless_version_is_32022_with_the_supported_list() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Stateless);
        for requested in ["2030-01-01", "2025-11-25"] {
            let mut meta = envelope();
            meta["io.modelcontextprotocol/protocolVersion"] = requested.into();
            let r = peer.call("server/discover", json!({"_meta": meta})).await;
            assert_eq!(r["error"]["code"], codes::UNSUPPORTED_VERSION, "{r}");
            assert_eq!(r["error"]["data"]["requested"], requested);
            let supported = r["error"]["data"]["supported"].as_array().unwrap();
            assert!(supported.contains(&json!("2026-07-28")), "{r}");
        }
        peer.finish_ok().await;
    }
}

/// The raw results of a `tools/list` page and an `echo` call on `conn`.
async fn list_and_echo(conn: &Conn) -> (Value, Value) {
    let list = conn.client.list_tools_page(None).await.unwrap();
    let call = conn
        .client
        .call_tool_raw("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    (list, call)
}

#[tokio::test]
async fn every_stateless_result_says_complete_and_names_the_server() {
    on_each(KIT, vias_in(Era::Stateless), async |conn, _, _| {
        let (list, call) = list_and_echo(conn).await;
        for result in [&list, &call] {
            assert_eq!(result["resultType"], "complete", "{result}");
            assert_eq!(
                result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
                "kit"
            );
        }
        assert_eq!(list["ttlMs"], 0);
        assert_eq!(list["cacheScope"], "public");
        assert!(
            call.get("ttlMs").is_none(),
            "tools/call is not cacheable: {call}"
        );
    })
    .await;
}

#[tokio::test]
async fn handshake_results_carry_no_stateless_fields() {
    on_each(KIT, vias_in(Era::Handshake), async |conn, _, _| {
        let (list, call) = list_and_echo(conn).await;
        for result in [&list, &call] {
            for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
                assert!(result.get(key).is_none(), "{key} in {result}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn one_connection_serves_stateless_requests_after_a_handshake() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Handshake);
        peer.open().await;
        let plain = peer.call("tools/list", json!({})).await;
        assert!(plain["result"].get("resultType").is_none(), "{plain}");
        let stamped = peer.call("tools/list", json!({"_meta": envelope()})).await;
        assert_eq!(stamped["result"]["resultType"], "complete", "{stamped}");
        peer.finish_ok().await;
    }
}

#[tokio::test]
async fn ping_answers_an_empty_object() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Handshake);
        // Before the handshake too.
        let r = peer.call("ping", json!({})).await;
        assert_eq!(r["result"], json!({}));
        peer.open().await;
        let r = peer.call("ping", Value::Null).await;
        assert_eq!(r["result"], json!({}), "{r}");
        peer.finish().await;
    }
}

mod build {
    use super::*;

    #[test]
    fn a_tool_borrowing_state_that_was_not_given_fails_the_build() {
        let err = Server::builder("kit", "1")
            .tools(kit::table())
            .build()
            .unwrap_err();
        // Every tool that borrows it is named, in order, in one error.
        let missing = |tool: &str| BuildError::MissingState {
            tool: tool.into(),
            type_name: std::any::type_name::<kit::Probe>().into(),
        };
        assert_eq!(
            err,
            BuildError::Several(vec![
                missing("slow"),
                missing("stats"),
                missing("count"),
                missing("watch_cancel")
            ])
        );
        let text = err.to_string();
        assert!(text.contains("`slow`") && text.contains("Probe"), "{text}");
        assert!(text.starts_with("4 problems:"), "{text}");
    }

    #[test]
    fn nonsense_options_fail_the_build() {
        for b in [
            Server::builder("s", "1").page_size(0),
            Server::builder("s", "1").max_concurrent_calls(0),
            Server::builder("s", "1").max_message_bytes(0),
        ] {
            assert!(matches!(b.build(), Err(BuildError::InvalidOption(_))));
        }
        Server::builder("s", "1")
            .tools(ToolTable::default())
            .build()
            .expect("an empty server builds");
    }
}
