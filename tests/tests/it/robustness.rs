//! What a server survives: lines that are not messages, end of input with calls in flight, slow
//! tools (a per-call timeout) and many calls at once (a cap). In memory and over stdio, in both
//! eras.

use integration_tests::kit::{KitOptions, structured};
use integration_tests::peer::*;
use mcp_runtime::error::codes;
use serde_json::{Value, json};

const KIT: &str = env!("CARGO_BIN_EXE_kit_server");

/// Sends `line` and expects an error response with `code` and id `null`; then checks that the
/// server still answers a request.
async fn rejected(peer: &mut RawPeer, line: &[u8], code: i64) -> Value {
    peer.send_line(line).await;
    let r = peer.recv().await;
    assert_eq!(r["error"]["code"], code, "{r}");
    assert_eq!(r["id"], Value::Null, "{r}");
    let ok = peer.call_tool("add", json!({"a": 1, "b": 1})).await;
    assert_eq!(
        ok["result"]["structuredContent"],
        json!({"result": 2}),
        "{ok}"
    );
    r
}

#[tokio::test]
async fn lines_that_are_not_messages_get_an_error_and_the_server_keeps_serving() {
    for (via, era) in SETUPS {
        let options = KitOptions {
            max_message_bytes: Some(4096),
            ..Default::default()
        };
        let mut peer = raw_kit(KIT, via, &options, era);
        peer.open().await;

        let r = rejected(&mut peer, &vec![b'x'; 10_000], codes::INVALID_REQUEST).await;
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("over the limit of 4096"),
            "{r}"
        );
        // A huge valid-looking message is cut off by the limit too, before it is parsed.
        let huge = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"pad":"{}"}}}}"#,
            "y".repeat(8000)
        );
        rejected(&mut peer, huge.as_bytes(), codes::INVALID_REQUEST).await;
        rejected(
            &mut peer,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}",
            codes::PARSE_ERROR,
        )
        .await;
        rejected(&mut peer, b"\xc3\x28 not utf-8", codes::PARSE_ERROR).await;
        rejected(&mut peer, "[".repeat(3000).as_bytes(), codes::PARSE_ERROR).await;
        let nested = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        rejected(&mut peer, nested.as_bytes(), codes::PARSE_ERROR).await;
        rejected(&mut peer, b"hello, server", codes::PARSE_ERROR).await;
        rejected(
            &mut peer,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,",
            codes::PARSE_ERROR,
        )
        .await;
        let r = rejected(
            &mut peer,
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            codes::INVALID_REQUEST,
        )
        .await;
        assert!(
            r["error"]["message"].as_str().unwrap().contains("batch"),
            "{r}"
        );
        rejected(&mut peer, b"42", codes::INVALID_REQUEST).await;
        rejected(&mut peer, br#"{"jsonrpc":"2.0"}"#, codes::INVALID_REQUEST).await;
        rejected(
            &mut peer,
            br#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
            codes::INVALID_REQUEST,
        )
        .await;
        rejected(
            &mut peer,
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            codes::INVALID_REQUEST,
        )
        .await;

        // An envelope error that names an id is answered with that id.
        peer.send_line(br#"{"jsonrpc":"1.0","id":77,"method":"ping"}"#)
            .await;
        let r = peer.recv().await;
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(77), json!(codes::INVALID_REQUEST)),
            "{r}"
        );
        peer.send_line(br#"{"jsonrpc":"2.0","id":78,"method":"ping","params":[1]}"#)
            .await;
        let r = peer.recv().await;
        assert_eq!(r["id"], 78, "{r}");
        assert_eq!(r["error"]["code"], codes::INVALID_REQUEST, "{r}");

        // Blank lines are skipped without an answer.
        peer.send_line(b"").await;
        peer.send_line(b"   ").await;
        let r = peer.call_tool("echo", json!({"text": "after"})).await;
        assert_eq!(r["result"]["content"][0]["text"], "after", "{r}");

        let (rest, code) = peer.finish().await;
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(code, 0, "{via:?} {era:?}");
    }
}

#[tokio::test]
async fn the_default_limit_is_four_mebibytes() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Handshake);
        peer.open().await;
        // Just under the limit: served.
        let text = "z".repeat(4 * 1024 * 1024 - 200);
        let r = peer.call_tool("echo", json!({"text": text})).await;
        assert_eq!(
            r["result"]["content"][0]["text"].as_str().map(str::len),
            Some(text.len())
        );
        // Over it: refused.
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
            "z".repeat(4 * 1024 * 1024)
        );
        rejected(&mut peer, line.as_bytes(), codes::INVALID_REQUEST).await;
        peer.finish_ok().await;
    }
}

#[tokio::test]
async fn end_of_input_lets_calls_in_flight_finish_then_exits_cleanly() {
    for (via, era) in SETUPS {
        let mut peer = raw_default(KIT, via, era);
        peer.open().await;
        let a = peer.request_tool("slow", json!({"ms": 300})).await;
        let b = peer.request_tool("add", json!({"a": 2, "b": 3})).await;
        let (rest, code) = peer.finish().await;
        assert_eq!(code, 0, "{via:?} {era:?}");
        let by_id = |id: &Value| rest.iter().find(|m| &m["id"] == id).cloned();
        assert_eq!(
            by_id(&a).unwrap()["result"]["structuredContent"],
            json!({"result": "slept 300ms"}),
            "{rest:?}"
        );
        assert_eq!(
            by_id(&b).unwrap()["result"]["structuredContent"],
            json!({"result": 5})
        );
    }
}

#[tokio::test]
async fn end_of_input_fails_a_pending_elicitation_instead_of_waiting_forever() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Handshake);
        peer.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        )
        .await;
        peer.recv().await;
        let id = peer.request_tool("pick_color", json!({})).await;
        let asked = peer.recv().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        // The client goes away without answering.
        let (rest, code) = peer.finish().await;
        assert_eq!(code, 0);
        let r = rest
            .iter()
            .find(|m| m["id"] == id)
            .expect("the call is answered");
        assert_eq!(r["result"]["isError"], true, "{r}");
    }
}

#[tokio::test]
async fn a_call_past_the_timeout_is_an_error_result_and_the_tool_is_dropped() {
    for (via, era) in SETUPS {
        let conn = Conn::kit_with(KIT, via, era, |o| o.timeout_ms = Some(200)).await;
        let r = conn.call("slow", json!({"ms": 600000})).await;
        assert!(r.is_error);
        assert_eq!(
            r.first_text(),
            Some("Error executing tool slow: timed out after 200ms")
        );
        let s = structured(&conn.call("stats", json!({})).await);
        assert_eq!(
            (s["dropped"].clone(), s["running"].clone()),
            (json!(1), json!(0)),
            "{s}"
        );
        // Quick calls are unaffected.
        let r = conn.call("slow", json!({"ms": 1})).await;
        assert_eq!(r.first_text(), Some("slept 1ms"));
        conn.finish().await;
    }
}

#[tokio::test]
async fn calls_over_the_cap_wait_and_none_is_lost() {
    for (via, era) in SETUPS {
        let conn = Conn::kit_with(KIT, via, era, |o| o.max_concurrent = Some(2)).await;
        let calls = (0..8).map(|i| conn.client.call_tool("slow", json!({"ms": 20 + i})));
        let results = futures_util::future::join_all(calls).await;
        for (i, r) in results.into_iter().enumerate() {
            let r = r.unwrap();
            assert_eq!(r.first_text(), Some(format!("slept {}ms", 20 + i).as_str()));
        }
        let s = structured(&conn.call("stats", json!({})).await);
        assert_eq!(s["started"], 8);
        assert_eq!(s["finished"], 8);
        let max = s["max_running"].as_u64().unwrap();
        assert!((1..=2).contains(&max), "{via:?} {era:?}: {s}");
        conn.finish().await;
    }
}

/// A call that runs no user code (arguments the schema refuses, a tool that does not exist) is
/// answered without a slot: with the only slot held by a slow call, both are answered at once.
#[tokio::test]
async fn a_rejected_call_does_not_wait_for_a_slot() {
    let options = KitOptions {
        max_concurrent: Some(1),
        ..KitOptions::default()
    };
    for via in VIAS {
        for era in [Era::Handshake, Era::Stateless] {
            let mut peer = raw_kit(KIT, via, &options, era);
            peer.open().await;
            let slow = peer.request_tool("slow", json!({"ms": 600000})).await;
            let invalid = peer.request_tool("slow", json!({"ms": "soon"})).await;
            let unknown = peer.request_tool("no_such_tool", json!({})).await;
            let within = std::time::Duration::from_secs(20);
            let (r, _) = tokio::time::timeout(within, peer.recv_response(&invalid))
                .await
                .expect("a rejected call is answered while the slot is held");
            assert_eq!(r["result"]["isError"], true, "{via:?} {era:?}: {r}");
            let text = r["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            assert!(
                text.starts_with("Invalid arguments for tool slow: /ms"),
                "{r}"
            );
            let (r, _) = tokio::time::timeout(within, peer.recv_response(&unknown))
                .await
                .expect("an unknown tool is answered while the slot is held");
            assert_eq!(
                r["result"]["content"][0]["text"], "Unknown tool: no_such_tool",
                "{via:?} {era:?}: {r}"
            );
            peer.send(
                &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": slow}}),
            )
            .await;
            // Once the slow call is gone, a call that needs the slot runs.
            let stats = peer.request_tool("stats", json!({})).await;
            let (r, _) = tokio::time::timeout(within, peer.recv_response(&stats))
                .await
                .expect("the slot is free again");
            assert_eq!(r["result"]["structuredContent"]["running"], 0, "{r}");
            peer.finish_ok().await;
        }
    }
}

#[tokio::test]
async fn requests_are_answered_as_they_complete_not_in_arrival_order() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Stateless);
        let slow = peer.request_tool("slow", json!({"ms": 600000})).await;
        let quick = peer.request_tool("add", json!({"a": 1, "b": 2})).await;
        let (r, before) = peer.recv_response(&quick).await;
        assert_eq!(r["result"]["structuredContent"], json!({"result": 3}));
        assert!(before.iter().all(|m| m["id"] != slow), "{before:?}");
        peer.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": slow}}),
        )
        .await;
        peer.finish_ok().await;
    }
}
