//! The hostile-input catalogue: one table of inputs a broken or hostile client sends, over stdio
//! (a server on `serve_io`, as stdio runs it) and over HTTP (`serve_http_on`, its timeouts and
//! caps set short). Each case names the exact class of its answer (a JSON-RPC error code, an HTTP
//! status, a tool's `isError` with the pointer and rule, an exact id, or a closed connection);
//! after each one the server still answers a ping and a valid call, and its state (the orders
//! placed) has not changed. Closing the server's stdout is the last case: it ends cleanly.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::http::{RawResponse, exchange, json_headers, post_bytes, serve_guarded};
use test_support::stdio::{Era, RawPeer};

/// The orders placed: the state no hostile input may change.
#[derive(Default)]
struct Ledger(Mutex<Vec<i64>>);

/// Place an order.
#[tool]
fn place(order_id: i64, qty: u8, #[arg(max_length = 16)] note: String, ledger: &Ledger) -> usize {
    let _ = (qty, note);
    let mut orders = ledger.0.lock().unwrap();
    orders.push(order_id);
    orders.len()
}

/// How many orders were placed.
#[tool(read_only)]
fn count(ledger: &Ledger) -> usize {
    ledger.0.lock().unwrap().len()
}

/// Check an order id without placing it.
#[tool(read_only)]
fn check(order_id: i64, qty: Option<u8>, big: Option<u64>) -> String {
    format!("{order_id}/{qty:?}/{big:?}")
}

/// Return the text unchanged.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// Count the nesting levels of any JSON value.
#[tool(read_only)]
fn depth(value: Value) -> usize {
    fn d(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(d).max().unwrap_or(0),
            Value::Object(o) => 1 + o.values().map(d).max().unwrap_or(0),
            _ => 0,
        }
    }
    d(&value)
}

const MAX_BYTES: usize = 4096;

fn server() -> Server {
    Server::builder("hostile", "1")
        .tools(tools![place, count, check, echo, depth])
        .state(Ledger::default())
        .max_message_bytes(MAX_BYTES)
        .build()
        .unwrap()
}

/// What a case must get back.
#[derive(Debug, Clone)]
enum Expect {
    /// A JSON-RPC error with this code and id `null`.
    Rpc(i64),
    /// A JSON-RPC error with this code, answering the id written as this text.
    RpcId(i64, &'static str),
    /// A tool result with `isError` whose text holds this (the pointer and the rule).
    Refused(&'static str),
    /// A success whose raw text holds this (an exact id, a result).
    Answered(&'static str),
    /// No answer (a notification, a response to nothing).
    Silent,
    /// HTTP: this status, and a JSON-RPC error with this code when given.
    Status(u16, Option<i64>),
    /// HTTP: the server closed the connection without a response.
    Closed,
}

/// A tools/call line with `arguments` given as raw JSON text.
fn call(id: &str, tool: &str, arguments: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    )
    .into_bytes()
}

fn ping(id: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).into_bytes()
}

/// A `check` call padded with an `echo`-free extra member in `params` to exactly `len` bytes.
fn padded_ping(len: usize) -> Vec<u8> {
    let head = r#"{"jsonrpc":"2.0","id":77,"method":"ping","params":{"pad":""#;
    let tail = r#""}}"#;
    let pad = len - head.len() - tail.len();
    format!("{head}{}{tail}", "p".repeat(pad)).into_bytes()
}

fn nested(levels: usize) -> String {
    format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
}

/// The cases every transport shares: what the bytes of one message may be.
fn message_cases() -> Vec<(&'static str, Vec<u8>, Expect)> {
    use Expect::*;
    vec![
        ("line at the size limit", padded_ping(MAX_BYTES), Answered(r#""id":77"#)),
        ("invalid UTF-8 in a string", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}".to_vec(), Rpc(-32700)),
        ("invalid UTF-8 alone", b"\xc3\x28".to_vec(), Rpc(-32700)),
        ("not JSON", b"{not json".to_vec(), Rpc(-32700)),
        ("deep nesting beyond the parser's limit", nested(1500).into_bytes(), Rpc(-32700)),
        ("deep nesting in arguments", call("2", "depth", &format!("{{\"value\":{}}}", nested(200))), Rpc(-32700)),
        ("nesting within the limits", call("3", "depth", &format!("{{\"value\":{}}}", nested(100))), Answered(r#""text":"100""#)),
        ("a string, not a message", b"\"ping\"".to_vec(), Rpc(-32600)),
        ("a number, not a message", b"42".to_vec(), Rpc(-32600)),
        ("null, not a message", b"null".to_vec(), Rpc(-32600)),
        ("a request in array form", br#"["2.0", 5, "tools/call", {"name": "place", "arguments": {"order_id": 1, "qty": 1, "note": "x"}}]"#.to_vec(), Rpc(-32600)),
        ("id: a float", ping("1.5"), Rpc(-32600)),
        ("id: an integral float", ping("1.0"), Rpc(-32600)),
        ("id: an object", ping(r#"{"a":1}"#), Rpc(-32600)),
        ("id: an array", ping("[1]"), Rpc(-32600)),
        ("id: null", ping("null"), Rpc(-32600)),
        ("id: a boolean", ping("true"), Rpc(-32600)),
        ("id: 1e400", ping("1e400"), Rpc(-32600)),
        ("id: beyond 64 bits", ping("18446744073709551617"), Answered(r#""id":18446744073709551617,"#)),
        ("id: 2^64", ping("18446744073709551616"), Answered(r#""id":18446744073709551616,"#)),
        ("id: beyond 64 bits, negative", ping("-9223372036854775809"), Answered(r#""id":-9223372036854775809,"#)),
        ("id: i64::MIN", ping("-9223372036854775808"), Answered(r#""id":-9223372036854775808,"#)),
        ("id: u64::MAX", ping("18446744073709551615"), Answered(r#""id":18446744073709551615,"#)),
        ("id: negative", ping("-1"), Answered(r#""id":-1,"#)),
        ("id: control characters", ping(r#""a\u0000\u001b\n""#), Answered(r#""id":"a\u0000\u001b\n""#)),
        ("id: bidi override", ping("\"\u{202e}dI\""), Answered("\"id\":\"\u{202e}dI\"")),
        ("id: beyond 64 bits, with a malformed envelope", br#"{"jsonrpc":"1.0","id":18446744073709551617,"method":"ping"}"#.to_vec(), RpcId(-32600, "18446744073709551617")),
        ("id: beyond 64 bits, unknown method", br#"{"jsonrpc":"2.0","id":36893488147419103232,"method":"no/such"}"#.to_vec(), RpcId(-32601, "36893488147419103232")),
        ("jsonrpc: 1.0", br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#.to_vec(), RpcId(-32600, "1")),
        ("jsonrpc: missing", br#"{"id":1,"method":"ping"}"#.to_vec(), RpcId(-32600, "1")),
        ("method: a number", br#"{"jsonrpc":"2.0","id":1,"method":7}"#.to_vec(), RpcId(-32600, "1")),
        ("params: an array", br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["place"]}"#.to_vec(), RpcId(-32600, "1")),
        ("params: a string", br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"place"}"#.to_vec(), RpcId(-32600, "1")),
        ("neither method nor id", br#"{"jsonrpc":"2.0"}"#.to_vec(), Rpc(-32600)),
        ("a response to nothing", br#"{"jsonrpc":"2.0","id":"nobody-asked","result":{}}"#.to_vec(), Silent),
        ("an unknown notification", br#"{"jsonrpc":"2.0","method":"notifications/bogus","params":{"x":[1]}}"#.to_vec(), Silent),
        ("tool name: a number", br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#.to_vec(), RpcId(-32602, "1")),
        ("tool name: unknown, with bidi and control characters", call("1", "pla\u{202e}ce\\u0007", "{}"), Refused("Unknown tool: pla\u{202e}ce\u{7}")),
        ("arguments: an array", call("1", "place", "[1, 1, \"x\"]"), RpcId(-32602, "1")),
        ("arguments: a string", call("1", "place", "\"order\""), RpcId(-32602, "1")),
        ("argument: wrong type", call("1", "place", r#"{"order_id":"1","qty":1,"note":"x"}"#), Refused("/order_id: must be an integer")),
        ("argument: wrong type, nested optional", call("1", "check", r#"{"order_id":1,"qty":"many"}"#), Refused("/qty: must be")),
        ("argument: missing", call("1", "place", r#"{"qty":1,"note":"x"}"#), Refused("order_id")),
        ("argument: unknown", call("1", "place", r#"{"order_id":1,"qty":1,"note":"x","admin":true}"#), Refused("/: unknown argument \"admin\" (allowed: order_id, qty, note)")),
        ("argument: string one over maxLength", call("1", "place", r#"{"order_id":1,"qty":1,"note":"12345678901234567"}"#), Refused("/note: must be at most 16 characters (got 17)")),
        ("argument: 1e400", call("1", "check", r#"{"order_id":1e400}"#), Rpc(-32700)),
        ("argument: -0", call("1", "check", r#"{"order_id":-0}"#), Answered(r#""text":"0/None/None""#)),
        ("argument: i64::MAX", call("1", "check", r#"{"order_id":9223372036854775807}"#), Answered("9223372036854775807/None")),
        ("argument: i64::MAX + 1", call("1", "place", r#"{"order_id":9223372036854775808,"qty":1,"note":"x"}"#), Refused("/order_id: must be <= 9223372036854775807 (got 9223372036854775808)")),
        ("argument: i64::MIN", call("1", "check", r#"{"order_id":-9223372036854775808}"#), Answered("-9223372036854775808/None")),
        ("argument: i64::MIN - 1", call("1", "place", r#"{"order_id":-9223372036854775809,"qty":1,"note":"x"}"#), Refused("/order_id: must be >= -9223372036854775808")),
        ("argument: 2^64", call("1", "place", r#"{"order_id":18446744073709551616,"qty":1,"note":"x"}"#), Refused("/order_id: must be <= 9223372036854775807")),
        ("argument: u64 at 2^64", call("1", "check", r#"{"order_id":1,"big":18446744073709551616}"#), Refused("/big: must be <= 18446744073709551615")),
        ("argument: u64 at -1", call("1", "check", r#"{"order_id":1,"big":-1}"#), Refused("/big: must be >= 0 (got -1)")),
        ("argument: u8 at 256", call("1", "place", r#"{"order_id":1,"qty":256,"note":"x"}"#), Refused("/qty: must be <= 255 (got 256)")),
        ("argument: u8 at -1", call("1", "place", r#"{"order_id":1,"qty":-1,"note":"x"}"#), Refused("/qty: must be >= 0 (got -1)")),
        ("argument: a fraction for an integer", call("1", "place", r#"{"order_id":1.5,"qty":1,"note":"x"}"#), Refused("/order_id: must be an integer")),
        ("argument: 2^53 + 1 as a float", call("1", "place", r#"{"order_id":9007199254740993.0,"qty":1,"note":"x"}"#), Refused("/order_id: must be an integer literal: a float this large is not exact")),
        ("argument: control and bidi characters", call("1", "echo", r#"{"text":"a\u0000\u202eb\u2066"}"#), Answered("\"text\":\"a\\u0000\u{202e}b\u{2066}\"")),
        ("argument: a lone surrogate escape", call("1", "echo", r#"{"text":"\ud800"}"#), Rpc(-32700)),
    ]
}

// ---- stdio ----

/// Reads the answer to the ping `id`, skipping nothing: it must be the next line.
async fn still_serving(peer: &mut RawPeer, case: &str) {
    peer.send_line(&ping(r#""alive""#)).await;
    let text = peer.try_recv_text().await.expect("an answer");
    assert!(
        text.contains(r#""id":"alive","result":{}"#),
        "{case}: after it, ping got {text}"
    );
    let r = peer.call_tool("check", json!({"order_id": 5})).await;
    assert_eq!(
        r["result"]["content"][0]["text"], "5/None/None",
        "{case}: {r}"
    );
    let r = peer.call_tool("count", json!({})).await;
    assert_eq!(
        r["result"]["structuredContent"]["result"], 1,
        "{case}: state changed: {r}"
    );
}

fn check_answer(case: &str, text: &str, expect: &Expect) {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{case}: {e}: {text}"));
    match expect {
        Expect::Rpc(code) => {
            assert_eq!(v["error"]["code"], *code, "{case}: {text}");
            assert_eq!(v["id"], Value::Null, "{case}: {text}");
        }
        Expect::RpcId(code, id) => {
            assert_eq!(v["error"]["code"], *code, "{case}: {text}");
            assert!(text.contains(&format!(r#""id":{id},"#)), "{case}: {text}");
        }
        Expect::Refused(what) => {
            assert_eq!(v["result"]["isError"], true, "{case}: {text}");
            let message = v["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            assert!(message.contains(what), "{case}: {message}");
        }
        Expect::Answered(what) => {
            assert!(
                v.get("result").is_some() && v["result"]["isError"] != true,
                "{case}: {text}"
            );
            assert!(text.contains(what), "{case}: wanted {what} in {text}");
        }
        other => panic!("{case}: {other:?} is not an answer"),
    }
}

async fn stdio_peer(version: &str) -> RawPeer {
    let mut peer = RawPeer::in_process(&server(), Era::Handshake);
    peer.open_at(version).await;
    let r = peer
        .call_tool("place", json!({"order_id": 1, "qty": 1, "note": "first"}))
        .await;
    assert_eq!(r["result"]["structuredContent"]["result"], 1, "{r}");
    peer
}

/// Runs `cases` on `peer`; returns how many ran.
async fn run_stdio(peer: &mut RawPeer, cases: Vec<(&'static str, Vec<u8>, Expect)>) -> usize {
    let n = cases.len();
    for (name, line, expect) in cases {
        let case = format!("stdio: {name}");
        peer.send_line(&line).await;
        if !matches!(expect, Expect::Silent) {
            let text = peer.try_recv_text().await.expect("an answer");
            check_answer(&case, &text, &expect);
        }
        still_serving(peer, &case).await;
    }
    n
}

/// Batches on stdio: refused before 2025-06-18 removed them only for sessions of later versions.
fn batch_cases(accepting: bool) -> Vec<(&'static str, Vec<u8>, Expect)> {
    use Expect::*;
    let mixed = br#"[{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},7,[],{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"place","arguments":{"order_id":"x"}}}]"#.to_vec();
    if !accepting {
        return vec![
            ("batch: empty, 2025-11-25", b"[]".to_vec(), Rpc(-32600)),
            (
                "batch: one ping, 2025-11-25",
                format!("[{}]", String::from_utf8(ping("1")).unwrap()).into_bytes(),
                Rpc(-32600),
            ),
            ("batch: mixed, 2025-11-25", mixed, Rpc(-32600)),
        ];
    }
    vec![
        ("batch: empty, 2025-03-26", b"[]".to_vec(), Rpc(-32600)),
        ("batch: mixed, 2025-03-26", mixed, Answered("")),
        ("batch: notifications only, 2025-03-26", br#"[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]"#.to_vec(), Silent),
    ]
}

/// The answer to the mixed batch, element by element, ids exact.
fn check_mixed_batch(case: &str, text: &str) {
    let answers: Vec<Value> =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{case}: {e}: {text}"));
    assert_eq!(answers.len(), 5, "{case}: {text}");
    assert!(
        text.starts_with(r#"[{"jsonrpc":"2.0","id":18446744073709551617,"result":{}}"#),
        "{case}: {text}"
    );
    let codes: Vec<&Value> = answers[1..].iter().map(|a| &a["error"]["code"]).collect();
    assert_eq!(
        codes,
        [&json!(-32600), &json!(-32600), &json!(-32600), &Value::Null],
        "{case}: {text}"
    );
    assert_eq!(answers[3]["id"], 2, "{case}: {text}");
    assert_eq!(answers[4]["result"]["isError"], true, "{case}: {text}");
}

#[tokio::test]
async fn hostile_inputs_over_stdio() {
    let mut peer = stdio_peer("2025-11-25").await;
    let mut ran = run_stdio(&mut peer, message_cases()).await;
    ran += run_stdio(&mut peer, batch_cases(false)).await;
    // One over the line limit, and far over it.
    ran += run_stdio(
        &mut peer,
        vec![
            (
                "line one byte over the limit",
                padded_ping(MAX_BYTES + 1),
                Expect::Rpc(-32600),
            ),
            (
                "line far over the limit",
                vec![b'x'; 100_000],
                Expect::Rpc(-32600),
            ),
        ],
    )
    .await;
    peer.finish_ok().await;

    let mut old = stdio_peer("2025-03-26").await;
    for (name, line, expect) in batch_cases(true) {
        let case = format!("stdio: {name}");
        old.send_line(&line).await;
        match expect {
            Expect::Silent => {}
            Expect::Answered(_) => check_mixed_batch(&case, &old.try_recv_text().await.unwrap()),
            expect => check_answer(&case, &old.try_recv_text().await.unwrap(), &expect),
        }
        still_serving(&mut old, &case).await;
        ran += 1;
    }
    old.finish_ok().await;
    eprintln!("stdio: {ran} hostile inputs");
    assert!(ran >= 60, "{ran}");
}

/// The server's stdout closed under it: it reads on, fails no request by panicking, and exits
/// cleanly at the end of its input.
#[tokio::test]
async fn a_closed_stdout_ends_the_server_cleanly() {
    let mut child =
        test_support::stdio::spawn(env!("CARGO_BIN_EXE_kit_server"), &[], Stdio::piped());
    let stderr = test_support::stdio::collect_stderr(&mut child);
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    use tokio::io::AsyncWriteExt;
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    for line in [&init[..], &ping("1"), &call("2", "add", r#"{"a":1,"b":2}"#)] {
        stdin.write_all(line).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
    }
    drop(stdin);
    let status = tokio::time::timeout(test_support::HANG, child.wait())
        .await
        .expect("the server exits")
        .unwrap();
    let log = stderr.await.unwrap();
    assert!(status.success(), "{status}: {log}");
    assert!(!log.contains("panicked"), "{log}");
}

// ---- HTTP ----

struct Http {
    addr: SocketAddr,
    session: String,
}

impl Http {
    async fn post(&self, headers: &[String], body: &[u8]) -> RawResponse {
        exchange(self.addr, &post_bytes(self.addr, headers, body)).await
    }

    async fn post_json(&self, session: Option<&str>, body: &[u8]) -> RawResponse {
        self.post(&json_headers(session), body).await
    }

    /// A session at `version`: its id.
    async fn open(&self, version: &str) -> String {
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        );
        let r = self.post_json(None, init.as_bytes()).await;
        assert_eq!(r.status, 200, "{r:?}");
        let id = r.header("mcp-session-id").expect("a session").to_owned();
        let r = self
            .post_json(
                Some(&id),
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            )
            .await;
        assert_eq!(r.status, 202, "{r:?}");
        id
    }

    async fn still_serving(&self, case: &str) {
        let s = Some(self.session.as_str());
        let r = self.post_json(s, &ping("9")).await;
        assert_eq!(
            (r.status, r.json()["result"].clone()),
            (200, json!({})),
            "{case}: after it, ping got {r:?}"
        );
        let r = self
            .post_json(s, &call("10", "check", r#"{"order_id":5}"#))
            .await;
        assert_eq!(
            r.json()["result"]["content"][0]["text"],
            "5/None/None",
            "{case}: {r:?}"
        );
        let r = self.post_json(s, &call("11", "count", "{}")).await;
        assert_eq!(
            r.json()["result"]["structuredContent"]["result"],
            1,
            "{case}: state changed: {r:?}"
        );
    }
}

/// What the HTTP status of a message case is: JSON-RPC errors of a message that cannot be read
/// are `400`, everything the server answered is `200`.
fn over_http(expect: &Expect) -> Expect {
    match expect {
        Expect::Rpc(code) if *code == -32700 || *code == -32600 => Expect::Status(400, Some(*code)),
        Expect::RpcId(-32600, _) => Expect::Status(400, Some(-32600)),
        Expect::Silent => Expect::Status(202, None),
        other => other.clone(),
    }
}

fn check_http(case: &str, r: &RawResponse, expect: &Expect) {
    match expect {
        Expect::Status(status, code) => {
            assert_eq!(r.status, *status, "{case}: {r:?}");
            if let Some(code) = code {
                assert_eq!(r.json()["error"]["code"], *code, "{case}: {r:?}");
            }
        }
        Expect::Closed => assert_eq!(r.status, 0, "{case}: {r:?}"),
        other => {
            assert_eq!(r.status, 200, "{case}: {r:?}");
            check_answer(case, &r.body, other);
        }
    }
}

fn http_options() -> HttpOptions {
    HttpOptions::default()
        .max_body_bytes(MAX_BYTES)
        .header_read_timeout(Duration::from_millis(300))
        .body_read_timeout(Duration::from_millis(300))
        .max_in_flight_per_session(3)
        .max_sessions(SESSIONS)
        .max_header_bytes(HEAD_BYTES)
}

/// The head limit of the HTTP server under test.
const HEAD_BYTES: usize = 16 * 1024;

/// The session cap of the HTTP server under test.
const SESSIONS: usize = 50;

#[tokio::test]
async fn hostile_inputs_over_http() {
    let served = serve_guarded(&server(), http_options()).await;
    let mut http = Http {
        addr: served.addr,
        session: String::new(),
    };
    http.session = http.open("2025-11-25").await;
    let r = http
        .post_json(
            Some(&http.session),
            &call("1", "place", r#"{"order_id":1,"qty":1,"note":"first"}"#),
        )
        .await;
    assert_eq!(
        r.json()["result"]["structuredContent"]["result"],
        1,
        "{r:?}"
    );
    let session = http.session.clone();
    let s = Some(session.as_str());
    let mut ran = 0;

    // Every message case, in the session.
    for (name, body, expect) in message_cases() {
        let case = format!("http: {name}");
        let r = http.post_json(s, &body).await;
        check_http(&case, &r, &over_http(&expect));
        http.still_serving(&case).await;
        ran += 1;
    }

    // Headers, sizes, sessions, batches.
    use Expect::*;
    let old = http.open("2025-03-26").await;
    let gone = http.open("2025-11-25").await;
    let r = exchange(http.addr, format!("DELETE /mcp HTTP/1.1\r\nHost: {}\r\nMcp-Session-Id: {gone}\r\nConnection: close\r\n\r\n", http.addr).as_bytes()).await;
    assert_eq!(r.status, 204, "{r:?}");
    let h = |extra: &[&str]| -> Vec<String> {
        let mut v = json_headers(s);
        v.extend(extra.iter().map(|e| e.to_string()));
        v
    };
    let only = |list: &[&str]| -> Vec<String> { list.iter().map(|e| e.to_string()).collect() };
    let session_header = format!("Mcp-Session-Id: {session}");
    let json_ct = "Content-Type: application/json";
    let accept = "Accept: application/json, text/event-stream";
    let batch_ping = format!("[{}]", String::from_utf8(ping("1")).unwrap()).into_bytes();
    let four = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]"#.to_vec();
    let pad = |n: usize| format!("X-Pad: {}", "p".repeat(n));
    let posts: Vec<(&str, Vec<String>, Vec<u8>, Expect)> = vec![
        ("headers just within the head limit", h(&[&pad(HEAD_BYTES - 1024)]), ping("1"), Answered(r#""id":1,"#)),
        ("headers just over the head limit", h(&[&pad(HEAD_BYTES + 1)]), ping("1"), Status(431, None)),
        ("body at the size limit", h(&[]), padded_ping(MAX_BYTES), Answered(r#""id":77,"#)),
        ("body one byte over the limit", h(&[]), padded_ping(MAX_BYTES + 1), Status(413, None)),
        ("body far over the limit", h(&[]), vec![b' '; 1 << 20], Status(413, None)),
        ("Content-Type: text/plain", only(&[accept, "Content-Type: text/plain", &session_header]), ping("1"), Status(415, Some(-32600))),
        ("no Content-Type", only(&[accept, &session_header]), ping("1"), Status(415, Some(-32600))),
        ("no Accept", only(&[json_ct, &session_header]), ping("1"), Status(406, Some(-32600))),
        ("Accept without event streams", only(&[json_ct, "Accept: application/json", &session_header]), ping("1"), Status(406, Some(-32600))),
        ("a foreign Origin", h(&["Origin: https://evil.example"]), ping("1"), Status(403, Some(-32600))),
        ("a bad MCP-Protocol-Version", h(&["MCP-Protocol-Version: 1999-01-01"]), ping("1"), Status(400, Some(-32600))),
        ("MCP-Protocol-Version with control bytes", h(&["MCP-Protocol-Version: 2025-\u{7f}11"]), ping("1"), Status(400, None)),
        ("duplicate Mcp-Session-Id", h(&["Mcp-Session-Id: 00000000000000000000000000000000"]), ping("1"), Status(400, Some(-32600))),
        ("an unknown session", json_headers(Some("00000000000000000000000000000000")), ping("1"), Status(404, Some(-32600))),
        ("a session id that is not visible ASCII", json_headers(Some("../../etc/passwd\u{202e}")), ping("1"), Status(400, Some(-32600))),
        ("a forged session id", json_headers(Some("../../etc/passwd")), ping("1"), Status(404, Some(-32600))),
        ("a session reused after DELETE", json_headers(Some(&gone)), ping("1"), Status(404, Some(-32600))),
        ("no session, not initialize", json_headers(None), ping("1"), Status(400, Some(-32600))),
        ("a batch, 2025-11-25 session", h(&[]), batch_ping.clone(), Status(400, Some(-32600))),
        ("a batch, no session", json_headers(None), batch_ping.clone(), Status(400, Some(-32600))),
        ("a batch, 2025-03-26 session: empty", json_headers(Some(&old)), b"[]".to_vec(), Status(200, Some(-32600))),
        ("a batch, 2025-03-26 session: notifications only", json_headers(Some(&old)), br#"[{"jsonrpc":"2.0","method":"notifications/a"}]"#.to_vec(), Status(202, None)),
        ("a batch, 2025-03-26 session: over the in-flight cap", json_headers(Some(&old)), four, Answered("")),
        ("stateless: Mcp-Method not the body's", only(&[json_ct, accept, "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"]), br#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_vec(), Status(400, Some(-32020))),
        ("stateless: an id beyond 64 bits", only(&[json_ct, accept, "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"]), br#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_vec(), Answered(r#""id":18446744073709551617,"#)),
    ];
    for (name, headers, body, expect) in posts {
        let case = format!("http: {name}");
        let r = http.post(&headers, &body).await;
        if name.ends_with("over the in-flight cap") {
            // Three places in flight: the fourth request is refused inside the array.
            assert_eq!(r.status, 200, "{case}: {r:?}");
            let answers = r.json();
            for (i, answer) in answers.as_array().unwrap().iter().enumerate() {
                let refused = answer["error"]["code"] == -32000;
                assert_eq!(
                    (answer["id"].clone(), refused),
                    (json!(i + 1), i == 3),
                    "{case}: {r:?}"
                );
            }
        } else {
            check_http(&case, &r, &expect);
            if name.contains("beyond 64 bits") {
                assert!(
                    r.body.contains(r#""id":18446744073709551617,"#),
                    "{case}: {r:?}"
                );
            }
        }
        http.still_serving(&case).await;
        ran += 1;
    }

    // The mixed batch on the 2025-03-26 session, and the same ids over HTTP.
    let (_, mixed, _) = batch_cases(true).remove(1);
    let r = http.post_json(Some(&old), &mixed).await;
    assert_eq!(r.status, 200, "{r:?}");
    check_mixed_batch("http: a mixed batch, 2025-03-26", &r.body);
    http.still_serving("http: a mixed batch").await;
    ran += 1;

    // Raw bytes on the socket: a bad Host, a giant header, methods, slow clients.
    let addr = http.addr;
    let raw: Vec<(&str, Vec<u8>, Expect)> = vec![
        ("a foreign Host", b"POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".to_vec(), Status(403, Some(-32600))),
        ("a giant header", format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Pad: {}\r\nConnection: close\r\n\r\n", "a".repeat(1 << 20)).into_bytes(), Status(431, None)),
        ("PUT", format!("PUT /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes(), Status(405, None)),
        ("GET without a session", format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n").into_bytes(), Status(400, Some(-32600))),
        ("DELETE of an unknown session", format!("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {gone}\r\nConnection: close\r\n\r\n").into_bytes(), Status(404, Some(-32600))),
        ("slowloris: headers never finish", format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").into_bytes(), Closed),
        ("slowloris: the body never comes", format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{json_ct}\r\n{accept}\r\n{session_header}\r\nContent-Length: 500\r\nConnection: close\r\n\r\n{{\"jsonrpc\":").into_bytes(), Status(408, None)),
        ("not HTTP at all", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n".to_vec(), Status(400, None)),
    ];
    for (name, bytes, expect) in raw {
        let case = format!("http: {name}");
        let r = exchange(addr, &bytes).await;
        check_http(&case, &r, &expect);
        http.still_serving(&case).await;
        ran += 1;
    }

    // Many sessions: past the cap, the one idle longest ends; the others and ours go on.
    let mut many = Vec::new();
    for _ in 0..SESSIONS + 5 {
        many.push(http.open("2025-11-25").await);
        // Ours stays in use.
        http.still_serving("http: many sessions").await;
    }
    let r = http.post_json(Some(&many[0]), &ping("1")).await;
    assert_eq!(r.status, 404, "the session idle longest ended: {r:?}");
    let r = http.post_json(Some(many.last().unwrap()), &ping("1")).await;
    assert_eq!(r.status, 200, "{r:?}");
    ran += 1;

    eprintln!("http: {ran} hostile inputs");
    assert!(ran >= 60, "{ran}");
}

/// `Server::handle` answers an id of any size exactly: its `Reply` is written digit for digit,
/// whatever the path (an answer, a refusal of the envelope, a tool's result).
#[tokio::test]
async fn server_handle_answers_big_ids_exactly() {
    use mcp_runtime::Connection;
    use mcp_runtime::protocol::Incoming;
    let server = server();
    let (conn, _outgoing) = Connection::new();
    let init = br#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let lines: [(&[u8], &str); 5] = [
        (
            init,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{"#,
        ),
        (
            &ping("-9223372036854775809"),
            r#"{"jsonrpc":"2.0","id":-9223372036854775809,"result":{}}"#,
        ),
        (
            &call(
                "340282366920938463463374607431768211456",
                "check",
                r#"{"order_id":7}"#,
            ),
            r#"{"jsonrpc":"2.0","id":340282366920938463463374607431768211456,"result":{"content":[{"type":"text","text":"7/None/None"}]"#,
        ),
        (
            br#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/call","params":7}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551617,"error":{"code":-32600,"#,
        ),
        (
            br#"{"jsonrpc":"2.0","id":18446744073709551618,"method":"no/such"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551618,"error":{"code":-32601,"#,
        ),
    ];
    for (line, expected) in lines {
        let text = match Incoming::parse(line) {
            Ok(message) => server
                .handle(message, &conn)
                .await
                .expect("an answer")
                .to_string(),
            Err(rejected) => mcp_runtime::server::Reply::from(rejected).to_string(),
        };
        assert!(text.starts_with(expected), "{text}");
    }
    // Within 64 bits the `Value` path is exact too.
    let r = server
        .handle_value(
            json!({"jsonrpc": "2.0", "id": i64::MIN, "method": "ping"}),
            &conn,
        )
        .await
        .unwrap();
    assert_eq!(
        r.to_string(),
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}"#
    );
    assert_eq!(r.into_json()["id"], i64::MIN);
}
