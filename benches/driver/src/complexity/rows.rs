//! The rows of the complexity battery: for each path, the request of size n (the shape that
//! path handles worst) and the answer it must get.

use serde_json::{Value, json};

/// How a row reaches the server: stdio after `initialize` at this version, or HTTP.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Transport {
    Stdio(&'static str),
    Http,
}

/// One request: a stdio line, or an HTTP request (method, headers, body).
pub(super) enum Request {
    Line(String),
    Http(&'static str, Vec<(&'static str, String)>, String),
}

/// One row of the battery.
pub(super) struct Row {
    pub(super) name: &'static str,
    /// The base size n: in full, and with `--quick`.
    pub(super) n: (usize, usize),
    pub(super) transport: Transport,
    /// The request at size n (`quick` for the rows whose width also shrinks).
    pub(super) build: fn(usize, bool) -> Request,
    /// Whether the answer is the expected one at size n (an HTTP answer is `{status, body}`).
    pub(super) check: fn(&Value, usize, bool) -> Result<(), String>,
}

/// How deep each `unique-items` item is nested: past the depth the validator's old prefilter
/// hash looked (8), where every such item hashed alike.
const UNIQUE_NESTING: usize = 10;

fn call(tool: &str, arguments: Value) -> Request {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    Request::Line(request.to_string())
}

fn method(method: &str, params: Value) -> Request {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    Request::Line(request.to_string())
}

/// The structured result of a tool call, `{"result": n}`, is `n`.
fn returns(answer: &Value, n: usize) -> Result<(), String> {
    let got = &answer["result"]["structuredContent"]["result"];
    if answer["result"]["isError"] == true || got.as_u64() != Some(n as u64) {
        return Err(format!("expected the result {n}"));
    }
    Ok(())
}

/// A refused argument: an `isError` result naming the field and the rule.
fn refuses(answer: &Value, needle: &str) -> Result<(), String> {
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    if answer["result"]["isError"] != true || !text.contains(needle) {
        return Err(format!("expected an isError result with {needle:?}"));
    }
    Ok(())
}

/// The text of the first contents of a `resources/read`.
fn reads(answer: &Value, text: &str) -> Result<(), String> {
    if answer["result"]["contents"][0]["text"] != text {
        return Err(format!("expected the contents {text:?}"));
    }
    Ok(())
}

/// `levels` operators that each take the second variant of the untagged `Expr` (its first
/// decodes `of` before it fails).
fn expr(levels: usize) -> Value {
    (0..levels).fold(json!({"num": 1}), |of, _| json!({"of": of, "abs": true}))
}

/// A tree of `depth` levels under `a`: each level has `x` of the wrong type for the first branch
/// of the union, so both branches are tried at every level.
fn tree(depth: usize) -> Value {
    let leaf = json!({"a": [], "x": "s", "y": "s"});
    (0..depth).fold(leaf, |v, _| json!({"a": [v], "x": "s", "y": "s"}))
}

/// A chain of `depth` links under `next`.
fn chain(depth: usize) -> Value {
    (0..depth).fold(
        json!({"name": "end"}),
        |v, _| json!({"name": "n", "next": v}),
    )
}

/// How many trees or chains the depth rows send side by side (so that their times clear the
/// noise floor).
fn width(quick: bool, full: usize) -> usize {
    if quick { full / 8 } else { full }
}

const PATTERN_NESTED: &str = "/text: must match the pattern ^(a+)+$";
const PATTERN_WORDS: &str = "/text: must match the pattern ^([a-z]+ ?)*$";

/// The rows, the hostile patterns last (they run until the pattern engine is linear).
pub(super) fn rows() -> Vec<Row> {
    vec![
        Row {
            name: "params",
            n: (2_500, 2_000),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let params: serde_json::Map<String, Value> =
                    (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
                method("ping", Value::Object(params))
            },
            check: |a, _, _| ok_if(a["result"] == json!({}), "expected an empty result"),
        },
        Row {
            name: "request-id",
            n: (256 * 1024, 16 * 1024),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let id = "i".repeat(n);
                Request::Line(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string())
            },
            check: |a, n, _| {
                let id = a["id"].as_str().map_or(0, str::len);
                ok_if(a["result"] == json!({}) && id == n, "expected the id back")
            },
        },
        Row {
            name: "batch",
            n: (1_000, 200),
            transport: Transport::Stdio("2025-03-26"),
            build: |n, _| {
                let batch: Vec<Value> = (0..n)
                    .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "ping"}))
                    .collect();
                Request::Line(Value::Array(batch).to_string())
            },
            check: |a, n, _| {
                let answers = a.as_array().map_or(&[][..], Vec::as_slice);
                let ordered = answers.iter().enumerate().all(|(i, r)| r["id"] == i);
                ok_if(answers.len() == n && ordered, "expected n answers in order")
            },
        },
        Row {
            name: "string",
            n: (256 * 1024, 16 * 1024),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| call("echo", json!({"text": "x".repeat(n)})),
            check: |a, n, _| returns(a, n),
        },
        Row {
            name: "violation-pointers",
            n: (16_000, 500),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let mut lists = serde_json::Map::new();
                lists.insert("k".repeat(n), json!(vec!["a"; n]));
                call("tally", json!({ "lists": lists }))
            },
            check: |a, n, _| {
                let last = format!("/lists/{}…/{}: must be an integer", "k".repeat(40), n - 1);
                refuses(a, &last)
            },
        },
        Row {
            name: "unique-items",
            n: (8_000, 125),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let nest = |i| (0..UNIQUE_NESTING).fold(json!(i), |v, _| json!([v]));
                call(
                    "unique",
                    json!({"items": (0..n).map(nest).collect::<Vec<_>>()}),
                )
            },
            check: |a, n, _| returns(a, n),
        },
        Row {
            name: "union-items",
            n: (20_000, 2_000),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| call("shapes", json!({"shapes": vec!["s"; n]})),
            check: |a, n, _| returns(a, n),
        },
        Row {
            name: "untagged-items",
            n: (10_000, 1_000),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| call("exprs", json!({"exprs": vec![expr(1); n]})),
            check: |a, n, _| returns(a, n),
        },
        Row {
            name: "untagged-depth",
            // From the deepest value decoded under the default limit: below it, decoding is as
            // exponential as serde makes it, capped by the limit (BENCHMARKS.md).
            n: (12, 12),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| call("exprs", json!({"exprs": [expr(n)]})),
            // Decoded up to 13 levels (100,000 decodings, the default limit); refused, after a
            // count that stops at the limit, beyond: 24, 48 and 96 levels.
            check: |a, n, _| match n {
                ..=13 => returns(a, n),
                _ => refuses(a, "/exprs/0: nests its untagged alternatives too deeply"),
            },
        },
        Row {
            name: "union-depth",
            n: (7, 7),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, quick| call("trees", json!({"trees": vec![tree(n); width(quick, 400)]})),
            check: |a, n, quick| returns(a, width(quick, 400) * (n + 1)),
        },
        Row {
            name: "unevaluated-depth",
            n: (15, 15),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, quick| {
                call(
                    "chains",
                    json!({"chains": vec![chain(n); width(quick, 400)]}),
                )
            },
            check: |a, n, quick| returns(a, width(quick, 400) * n),
        },
        Row {
            name: "prompt-arguments",
            n: (5_000, 500),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let mut args: serde_json::Map<String, Value> =
                    (0..n).map(|i| (format!("k{i}"), json!("v"))).collect();
                args.insert("topic".into(), json!("t"));
                method("prompts/get", json!({"name": "brief", "arguments": args}))
            },
            check: |a, n, _| {
                let message = a["error"]["message"].as_str().unwrap_or_default();
                let last = format!("unknown argument \"k{}\"", n - 1);
                let refused = a["error"]["code"] == -32602 && message.contains(&last);
                ok_if(refused, "expected -32602 naming every unknown argument")
            },
        },
        Row {
            name: "completion",
            n: (256 * 1024, 8 * 1024),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let params = json!({"ref": {"type": "ref/prompt", "name": "brief"},
                    "argument": {"name": "topic", "value": "a".repeat(n)}});
                method("completion/complete", params)
            },
            check: |a, n, _| {
                let values = a["result"]["completion"]["values"].as_array();
                let each = |v: &Value| v.as_str().is_some_and(|s| s.len() == n + 1);
                ok_if(
                    values.is_some_and(|v| v.len() == 3 && v.iter().all(each)),
                    "expected the three completions",
                )
            },
        },
        Row {
            name: "template-reserved",
            n: (6_000, 1_000),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let uri = format!("files://{}", "a/".repeat(n / 2));
                method("resources/read", json!({"uri": uri}))
            },
            check: |a, n, _| reads(a, &(n / 2 * 2).to_string()),
        },
        Row {
            name: "template-split",
            n: (6_000, 1_000),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| {
                let uri = format!("notes://{}/b", "a".repeat(n));
                method("resources/read", json!({"uri": uri}))
            },
            check: |a, n, _| reads(a, &format!("{n} 1")),
        },
        Row {
            name: "last-event-id",
            n: (6_000, 1_000),
            transport: Transport::Http,
            build: |n, _| {
                let id = format!("r{}/1", "0".repeat(n));
                let headers = vec![
                    ("accept", "text/event-stream".into()),
                    ("last-event-id", id),
                ];
                Request::Http("GET", headers, String::new())
            },
            check: |a, _, _| {
                let text = a["body"]["error"]["message"].as_str().unwrap_or_default();
                let refused =
                    a["status"] == 400 && text.contains("Last-Event-ID is not an event id");
                ok_if(refused, "expected 400: not an event id of this server")
            },
        },
        Row {
            name: "session-id",
            n: (6_000, 1_000),
            transport: Transport::Http,
            build: |n, _| {
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
                let headers = vec![
                    ("accept", "application/json, text/event-stream".into()),
                    ("content-type", "application/json".into()),
                    ("mcp-protocol-version", "2025-06-18".into()),
                    ("mcp-session-id", "s".repeat(n)),
                ];
                Request::Http("POST", headers, body)
            },
            check: |a, _, _| ok_if(a["status"] == 404, "expected 404: no such session"),
        },
        Row {
            name: "accept",
            n: (350, 100),
            transport: Transport::Http,
            build: |n, _| {
                let accept = format!(
                    "{}application/json, text/event-stream",
                    "text/plain;q=0.1, ".repeat(n)
                );
                let args = json!({"text": "abc"});
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "name": "echo", "arguments": args, "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}}}});
                let headers = vec![
                    ("accept", accept),
                    ("content-type", "application/json".into()),
                    ("mcp-protocol-version", "2026-07-28".into()),
                    ("mcp-method", "tools/call".into()),
                    ("mcp-name", "echo".into()),
                ];
                Request::Http("POST", headers, body.to_string())
            },
            check: |a, _, _| ok_if(a["status"] == 200, "expected 200").and(returns(&a["body"], 3)),
        },
        Row {
            name: "pattern-nested",
            n: (4_096, 256),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| call("nested_a", json!({"text": format!("{}!", "a".repeat(n))})),
            check: |a, _, _| refuses(a, PATTERN_NESTED),
        },
        Row {
            name: "pattern-words",
            n: (2_048, 128),
            transport: Transport::Stdio("2025-06-18"),
            build: |n, _| call("words", json!({"text": format!("{}!", "ab ".repeat(n))})),
            check: |a, _, _| refuses(a, PATTERN_WORDS),
        },
    ]
}

fn ok_if(ok: bool, expected: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(expected.to_owned()) }
}
