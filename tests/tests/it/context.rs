//! What a tool reaches through `&Context`, in both eras, in memory and over stdio: progress,
//! logging, cancellation, elicitation, and who is calling.

use std::sync::{Arc, Mutex};

use integration_tests::kit::{KitOptions, structured};
use integration_tests::peer::*;
use mcp_runtime::client::{ElicitationAnswer, ElicitationRequest, LogMessage, Progress};
use mcp_runtime::{Client, LogLevel};
use serde_json::{Value, json};
use test_support::wait;

const KIT: &str = env!("CARGO_BIN_EXE_kit_server");

/// Calls `stats` until `done` holds for it (bounded by [`HANG`]).
async fn stats_until(client: &Client, done: impl Fn(&Value) -> bool) -> Value {
    let stats = async || structured(&client.call_tool("stats", json!({})).await.unwrap());
    wait::until("stats never got there", stats, done).await
}

#[tokio::test]
async fn progress_reaches_the_client_in_order_and_stops_at_the_response() {
    for (via, era) in SETUPS {
        let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
        let sink = seen.clone();
        let builder = client_builder(era).on_progress(move |p| sink.lock().unwrap().push(p));
        let conn = Conn::kit(KIT, via, &KitOptions::default(), builder).await;
        let pending = conn.client.send_request(
            "tools/call",
            json!({"name": "count", "arguments": {"steps": 3}}),
        );
        let id = pending.id().to_json();
        let r = pending.response().await.unwrap();
        assert_eq!(r["structuredContent"], json!({"result": "counted to 3"}));
        // The tool's late report (from a task that outlives the call) is not sent; a later call
        // gives it time to show up if it were.
        conn.call("slow", json!({"ms": 100})).await;
        let seen = seen.lock().unwrap().clone();
        let done: Vec<f64> = seen.iter().map(|p| p.progress).collect();
        assert_eq!(done, [1.0, 2.0, 3.0], "{via:?} {era:?}: {seen:?}");
        assert!(seen.iter().all(|p| p.token == id && p.total == Some(3.0)));
        assert_eq!(seen[0].message.as_deref(), Some("step 1"));
        conn.finish().await;
    }
}

#[tokio::test]
async fn no_progress_is_sent_without_a_progress_token() {
    for via in VIAS {
        for era in [Era::Handshake, Era::Stateless] {
            let mut peer = raw_default(KIT, via, era);
            peer.open().await;
            let id = peer.request_tool("count", json!({"steps": 3})).await;
            let (r, before) = peer.recv_response(&id).await;
            assert_eq!(
                r["result"]["structuredContent"],
                json!({"result": "counted to 3"})
            );
            assert!(before.is_empty(), "{before:?}");
            // With a token, the notifications precede the response on the wire.
            let id = peer
                .request(
                    "tools/call",
                    peer.params(json!({"name": "count", "arguments": {"steps": 2},
                        "_meta": {"progressToken": "tok"}})),
                )
                .await;
            let (r, before) = peer.recv_response(&id).await;
            assert!(r["result"].is_object(), "{r}");
            let tokens: Vec<&Value> = before
                .iter()
                .map(|m| &m["params"]["progressToken"])
                .collect();
            assert_eq!(tokens, [&json!("tok"), &json!("tok")], "{before:?}");
            peer.finish().await;
        }
    }
}

async fn logs_for(via: Via, era: Era, level: Option<LogLevel>) -> Vec<LogMessage> {
    let seen: Arc<Mutex<Vec<LogMessage>>> = Arc::default();
    let sink = seen.clone();
    let mut builder = client_builder(era).on_log(move |m| sink.lock().unwrap().push(m));
    if let Some(level) = level {
        builder = builder.log_level(level);
    }
    let conn = Conn::kit(KIT, via, &KitOptions::default(), builder).await;
    let r = conn.call("chatty", json!({})).await;
    assert_eq!(r.first_text(), Some("logged"));
    conn.finish().await;
    seen.lock().unwrap().clone()
}

#[tokio::test]
async fn log_messages_honour_the_level_the_client_chose() {
    for (via, era) in SETUPS {
        let levels = |logs: Vec<LogMessage>| logs.iter().map(|m| m.level).collect::<Vec<_>>();
        let warning = logs_for(via, era, Some(LogLevel::Warning)).await;
        assert_eq!(
            levels(warning.clone()),
            [LogLevel::Warning, LogLevel::Error],
            "{via:?} {era:?}"
        );
        assert_eq!(warning[0].data, json!("a warning message"));
        assert_eq!(warning[0].logger.as_deref(), Some("chatty"));
        let unset = levels(logs_for(via, era, None).await);
        match era {
            // Before `logging/setLevel`, every level is sent.
            Era::Handshake => assert_eq!(unset.len(), 4, "{unset:?}"),
            // A stateless request that asks for no level gets no log messages.
            Era::Stateless => assert!(unset.is_empty(), "{unset:?}"),
        }
    }
}

#[tokio::test]
async fn a_cancelled_call_is_dropped_and_gets_no_response() {
    on_each(KIT, SETUPS, async |conn, via, era| {
        let pending = conn.client.send_request(
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": 600000}}),
        );
        stats_until(&conn.client, |s| s["started"] == 1).await;
        pending.cancel("the user gave up");
        let s = stats_until(&conn.client, |s| s["dropped"] == 1).await;
        assert_eq!(s["finished"], 0);
        assert_eq!(s["running"], 0);

        let watching = conn.client.send_request(
            "tools/call",
            json!({"name": "watch_cancel", "arguments": {}}),
        );
        // Once the request is in flight (a later one has been answered), cancel it.
        conn.call("echo", json!({"text": "x"})).await;
        watching.cancel("stop watching");
        stats_until(&conn.client, |s| s["saw_cancel"] == 1).await;

        let r = conn.call("add", json!({"a": 1, "b": 2})).await;
        assert_eq!(structured(&r), json!({"result": 3}));
        assert_eq!(conn.client.unmatched_responses(), 0, "{via:?} {era:?}");
    })
    .await;
}

#[tokio::test]
async fn no_response_follows_a_cancellation_on_the_wire() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Stateless);
        let slow = peer.request_tool("slow", json!({"ms": 600000})).await;
        let stats = |r: &Value, key: &str| r["result"]["structuredContent"][key].clone();
        let mut seen = Vec::new();
        // One bound for both waits.
        let deadline = tokio::time::Instant::now() + HANG;
        let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
        let mut poll = async || {
            let r = peer.call_tool("stats", json!({})).await;
            seen.push(r.clone());
            r
        };
        // Cancel once the tool runs (a request cancelled before that never starts the tool).
        let started = |r: &Value| stats(r, "started") == 1;
        wait::until_within("never started", left(), wait::POLL, &mut poll, started).await;
        peer.cancel(&slow, Some("test")).await;
        let mut poll = async || {
            let r = peer.call_tool("stats", json!({})).await;
            seen.push(r.clone());
            r
        };
        let dropped = |r: &Value| stats(r, "dropped") == 1;
        wait::until_within("never dropped", left(), wait::POLL, &mut poll, dropped).await;
        let rest = peer.finish_ok().await;
        assert!(
            seen.iter().chain(&rest).all(|m| m["id"] != slow),
            "a response to the cancelled request: {rest:?}"
        );
    }
}

fn answering(
    answer: ElicitationAnswer,
    asked: Arc<Mutex<Vec<ElicitationRequest>>>,
) -> impl Fn(ElicitationRequest) -> futures_util::future::Ready<ElicitationAnswer> + Send + Sync + 'static
{
    move |req| {
        asked.lock().unwrap().push(req);
        futures_util::future::ready(answer.clone())
    }
}

#[tokio::test]
async fn elicitation_asks_the_user_through_the_client_in_both_eras() {
    for (via, era) in SETUPS {
        for (answer, expected) in [
            (
                ElicitationAnswer::Accept(json!({"color": "green", "sure": true})),
                "picked Green (sure: Some(true))",
            ),
            (
                ElicitationAnswer::Accept(json!({"color": "red"})),
                "picked Red (sure: None)",
            ),
            (ElicitationAnswer::Decline, "declined"),
            (ElicitationAnswer::Cancel, "cancelled"),
        ] {
            let asked: Arc<Mutex<Vec<ElicitationRequest>>> = Arc::default();
            let builder = client_builder(era).elicitation_handler(answering(answer, asked.clone()));
            let conn = Conn::kit(KIT, via, &KitOptions::default(), builder).await;
            let r = conn
                .call("pick_color", json!({"prompt": "Favourite color?"}))
                .await;
            assert!(!r.is_error, "{via:?} {era:?}: {r:?}");
            assert_eq!(r.first_text(), Some(expected), "{via:?} {era:?}");
            let asked = asked.lock().unwrap().clone();
            assert_eq!(asked.len(), 1);
            assert_eq!(asked[0].message, "Favourite color?");
            let schema = &asked[0].requested_schema;
            assert_eq!(schema["type"], "object");
            assert_eq!(
                schema["properties"]["color"]["enum"],
                json!(["red", "green"])
            );
            assert_eq!(schema["properties"]["sure"]["type"], "boolean");
            assert_eq!(schema["required"], json!(["color"]));
            conn.finish().await;
        }
    }
}

#[tokio::test]
async fn without_the_capability_elicitation_is_a_tool_error() {
    on_each(KIT, SETUPS, async |conn, _, _| {
    let r = conn.call("pick_color", json!({})).await;
    assert!(r.is_error);
    assert_eq!(
        r.first_text(),
        Some(
            "Error executing tool pick_color: This client cannot ask the user; call pick_color again after choosing a color."
        )
    );
    })
    .await;
}

#[tokio::test]
async fn a_stateless_elicitation_is_an_input_required_result() {
    for via in VIAS {
        let mut peer = raw_default(KIT, via, Era::Stateless);
        let mut meta = integration_tests::peer::envelope();
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"form": {}}});
        let call = json!({"name": "pick_color", "arguments": {}, "_meta": meta});
        let r = peer.call("tools/call", call.clone()).await;
        let result = &r["result"];
        assert_eq!(result["resultType"], "input_required", "{r}");
        let request = &result["inputRequests"]["elicit-0"];
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(request["params"]["mode"], "form");
        assert_eq!(request["params"]["message"], "Which color?");
        let mut retry = call;
        retry["inputResponses"] =
            json!({"elicit-0": {"action": "accept", "content": {"color": "red"}}});
        let r = peer.call("tools/call", retry).await;
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
        assert_eq!(
            r["result"]["structuredContent"],
            json!({"result": "picked Red (sure: None)"})
        );
        peer.finish_ok().await;
    }
}

#[tokio::test]
async fn the_context_knows_the_tool_the_request_and_the_client() {
    for (via, era) in SETUPS {
        for with_elicitation in [false, true] {
            let mut builder = client_builder(era);
            if with_elicitation {
                builder = builder.elicitation_handler(|_| async { ElicitationAnswer::Cancel });
            }
            let conn = Conn::kit(KIT, via, &KitOptions::default(), builder).await;
            let pending = conn
                .client
                .send_request("tools/call", json!({"name": "whoami", "arguments": {}}));
            let id = pending.id().to_json();
            let r = pending.response().await.unwrap();
            let expected_version = match era {
                Era::Handshake => "2025-11-25",
                Era::Stateless => "2026-07-28",
            };
            assert_eq!(
                r["structuredContent"],
                json!({
                    "tool": "whoami",
                    "request_id": id,
                    "client": "kit-test-client",
                    "protocol_version": expected_version,
                    "elicitation": with_elicitation,
                }),
                "{via:?} {era:?}"
            );
            conn.finish().await;
        }
    }
}
