//! Inputs that grow: the patterns that made a backtracking engine run for ever, with hostile
//! tails of 10,000 characters, a 1 MB string argument, and an untagged recursive enum nested so
//! that serde's decoding would take a later variant at every level (2^depth), over stdio (the reader that
//! validates) and over HTTP, with a ping (`tools/list` in the stateless revision, which has no
//! ping) sent at the same time and answered. The test asserts
//! the answers; the times it prints are for the record (BENCHMARKS.md's complexity battery is
//! where time is measured). A whole-test deadline guards against a hang only.

use std::time::{Duration, Instant};

use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::http::{exchange, json_headers, post_bytes, serve, stateless_call};
use test_support::stdio::{Era, RawPeer};

/// Runs in linear time whatever the input: a run of `a`s.
#[tool(read_only)]
fn runs(#[arg(pattern = "^(a+)+$")] text: String) -> usize {
    text.len()
}

/// A list of lowercase words.
#[tool(read_only)]
fn words(#[arg(pattern = "^([a-z]+ ?)*$")] text: String) -> usize {
    text.split(' ').count()
}

/// The length of any text.
#[tool(read_only)]
fn length(text: String) -> usize {
    text.len()
}

/// An expression, untagged: serde tries `Neg`, then `Abs`, then `Num`, and `Neg` decodes `of`
/// before it finds no `neg`.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // the flags and the number are there to be decoded, not read
enum Expr {
    Neg { of: Box<Expr>, neg: bool },
    Abs { of: Box<Expr>, abs: bool },
    Num { num: i64 },
}

/// How many operators an expression nests.
#[tool(read_only)]
fn depth(expr: Expr) -> usize {
    let (mut e, mut n) = (&expr, 0);
    while let Expr::Neg { of, .. } | Expr::Abs { of, .. } = e {
        (e, n) = (of, n + 1);
    }
    n
}

fn server() -> Server {
    Server::builder("linear", "1")
        .tools(tools![runs, words, length, depth])
        .build()
        .unwrap()
}

/// `levels` operators named `op` around a number.
fn nested(levels: usize, op: &str) -> Value {
    (0..levels).fold(json!({"num": 1}), |of, _| json!({"of": of, op: true}))
}

/// The hostile inputs and what each call must get: the field and the rule when refused, the
/// result when accepted. Each with its size in bytes.
fn cases() -> Vec<(&'static str, Value, Result<u64, &'static str>)> {
    let a = "a".repeat(10_000);
    let words = "ab ".repeat(3_333);
    let text = |t: String| json!({ "text": t });
    vec![
        (
            "runs",
            text(format!("{a}!")),
            Err("/text: must match the pattern ^(a+)+$"),
        ),
        ("runs", text(a.clone()), Ok(10_000)),
        (
            "words",
            text(format!("{words}!")),
            Err("/text: must match the pattern ^([a-z]+ ?)*$"),
        ),
        ("words", text(words.clone()), Ok(3_334)),
        ("length", text("x".repeat(1_000_000)), Ok(1_000_000)),
        // 2^40 decodings: refused before serde starts. 12 levels (8,000) and 100 levels that
        // take the first variant are decoded.
        (
            "depth",
            json!({"expr": nested(40, "abs")}),
            Err("/expr: nests its untagged alternatives too deeply"),
        ),
        ("depth", json!({"expr": nested(12, "abs")}), Ok(12)),
        ("depth", json!({"expr": nested(100, "neg")}), Ok(100)),
    ]
}

fn check(tool: &str, answer: &Value, want: &Result<u64, &str>) {
    let result = &answer["result"];
    match want {
        Ok(n) => {
            assert_ne!(result["isError"], json!(true), "{tool}: {answer}");
            assert_eq!(result["structuredContent"]["result"], json!(n), "{tool}");
        }
        Err(rule) => {
            assert_eq!(result["isError"], json!(true), "{tool}: {answer}");
            let text = result["content"][0]["text"].as_str().unwrap();
            assert!(text.contains(rule), "{tool}: {text}");
        }
    }
}

async fn deadline<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(120), f)
        .await
        .expect("a hostile input held the server")
}

#[tokio::test]
async fn hostile_tails_over_stdio_are_answered_and_a_ping_meanwhile() {
    deadline(async {
        let server = server();
        for era in [Era::Handshake, Era::Stateless] {
            let mut peer = RawPeer::in_process(&server, era);
            if era == Era::Handshake {
                peer.open().await;
            }
            for (tool, args, want) in cases() {
                let size = args.to_string().len();
                let started = Instant::now();
                let call = peer
                    .request("tools/call", json!({"name": tool, "arguments": args}))
                    .await;
                // 2026-07-28 removed `ping`: a `tools/list` is its liveness request.
                let method = if era == Era::Handshake {
                    "ping"
                } else {
                    "tools/list"
                };
                let ping = peer.request(method, json!({})).await;
                let mut answers = Vec::new();
                while answers.len() < 2 {
                    answers.push(peer.recv().await);
                }
                let took = started.elapsed();
                let find = |id: &Value| answers.iter().find(|a| &a["id"] == id).unwrap();
                check(tool, find(&call), &want);
                assert!(find(&ping)["result"].is_object(), "{}", find(&ping));
                eprintln!("stdio {era:?} {tool} ({size} bytes): {took:?}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn hostile_tails_over_http_are_answered_and_a_ping_meanwhile() {
    deadline(async {
        let served = serve(&server(), HttpOptions::default()).await;
        let headers = |method: &str, name: Option<&str>| {
            let mut h = json_headers(None);
            h.push("MCP-Protocol-Version: 2026-07-28".into());
            h.push(format!("Mcp-Method: {method}"));
            h.extend(name.map(|n| format!("Mcp-Name: {n}")));
            h
        };
        // The stateless revision (2026-07-28) has no `ping`: `tools/list` stands for it.
        let ping = json!({"jsonrpc": "2.0", "id": "p", "method": "tools/list",
            "params": {"_meta": test_support::http::meta()}});
        let ping = ping.to_string();
        let ping = post_bytes(served.addr, &headers("tools/list", None), ping.as_bytes());
        for (tool, args, want) in cases() {
            let size = args.to_string().len();
            let call = stateless_call(1, tool, args).to_string();
            let h = headers("tools/call", Some(tool));
            let call = post_bytes(served.addr, &h, call.as_bytes());
            let started = Instant::now();
            let (answer, pong) =
                tokio::join!(exchange(served.addr, &call), exchange(served.addr, &ping));
            let took = started.elapsed();
            assert_eq!(answer.status, 200, "{}", answer.body);
            check(tool, &answer.json(), &want);
            assert!(pong.json()["result"].is_object(), "{}", pong.body);
            eprintln!("http {tool} ({size} bytes): {took:?}");
        }
    })
    .await;
}

/// A schema of the developer's own with a backreference: served, run under the server's budget,
/// and a value that exhausts it is refused naming the pattern and where it is in the schema;
/// the server answers on.
#[tokio::test]
async fn a_pattern_that_needs_backtracking_runs_under_the_servers_budget() {
    deadline(async {
        let schema = json!({
            "type": "object",
            "properties": {"text": {"type": "string", "pattern": "^(a|a)+\\1$"}},
            "required": ["text"],
        });
        let table = tools![length];
        let tool = table.iter().next().unwrap().clone();
        let tool = tool.with_input_schema(schema).unwrap();
        for (budget, hostile) in [(None, 10_000), (Some(50), 16)] {
            let mut builder = Server::builder("budget", "1")
                .tools(mcp_runtime::ToolTable::from_tools([tool.clone()]));
            if let Some(n) = budget {
                builder = builder.pattern_backtrack_limit(n);
            }
            let server = builder.build().unwrap();
            let mut peer = RawPeer::in_process(&server, Era::Stateless);
            let text = "a".repeat(hostile) + "!";
            let answer = peer.call_tool("length", json!({"text": text})).await;
            let refused = answer["result"]["content"][0]["text"].as_str().unwrap();
            assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
            assert!(
                refused.contains(
                    "/text: could not be checked against the pattern ^(a|a)+\\1$ \
                     (#/properties/text/pattern) within its backtracking budget"
                ),
                "{refused}"
            );
            let fine = peer.call_tool("length", json!({"text": "aaaa"})).await;
            check("length", &fine, &Ok(4));
            let other = peer.call_tool("length", json!({"text": "a"})).await;
            check(
                "length",
                &other,
                &Err("/text: must match the pattern ^(a|a)+\\1$"),
            );
        }
    })
    .await;
}

/// The server's own limit on repeated decoding: 18 levels (2.6 million decodings, 0.2 s of
/// serde's time) are refused by default and decoded when the server allows them.
#[tokio::test]
async fn the_untagged_decode_limit_is_the_servers_to_set() {
    deadline(async {
        for (limit, want) in [
            (
                None,
                Err("/expr: nests its untagged alternatives too deeply"),
            ),
            (Some(1 << 22), Ok(18)),
        ] {
            let mut builder = Server::builder("decode", "1").tools(tools![depth]);
            if let Some(n) = limit {
                builder = builder.untagged_decode_limit(n);
            }
            let server = builder.build().unwrap();
            let mut peer = RawPeer::in_process(&server, Era::Stateless);
            let answer = peer
                .call_tool("depth", json!({"expr": nested(18, "abs")}))
                .await;
            check("depth", &answer, &want);
        }
    })
    .await;
}
