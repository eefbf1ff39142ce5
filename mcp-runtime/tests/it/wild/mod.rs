//! The machinery of the corpus: the samples' expectations, the transports a sample travels
//! through, and the one check every sample passes.

pub mod mutate;
pub mod samples;
pub mod types;

use std::collections::HashMap;

use mcp_runtime::http::HttpOptions;
use mcp_runtime::validate::Validator;
use mcp_runtime::{Client, Server};
use serde_json::{Value, json};
use test_support::http::{STATELESS, Served, serve, stateless_call};
use test_support::stdio::{Era, RawPeer};

/// What a sample must do.
pub enum Expect {
    /// Reach the body, which echoes back exactly what was sent (`v`, or every argument).
    Same,
    /// Reach the body, which echoes back this value (serde filled in or dropped something).
    Echo(Value),
    /// Be refused by the validator: the text after the tool's prefix starts with this pointer
    /// and rule (`/v/a: must be <= 255`).
    Refused(&'static str),
    /// Be valid for the published schema (our verdict and jsonschema's) and refused by serde with
    /// exactly this text: what the schema cannot say (a custom `Deserialize`, a
    /// `deny_unknown_fields` + `flatten` that serde cannot serve).
    Serde(&'static str),
}

/// One call: the tool, its arguments, what must happen.
pub type Sample = (&'static str, Value, Expect);

/// The reference verdict: the `jsonschema` crate on the published schema, formats checked. Every
/// format published is a standard one (`IpAddr` is published as `ipv4` or `ipv6`), so the
/// reference needs no format of ours.
pub fn reference(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("jsonschema compiles the published schema")
}

/// How a sample reaches the server.
pub enum Peer {
    /// The in-process client.
    Memory(Client),
    /// Line-delimited JSON-RPC over `Server::serve_io`, as stdio runs it.
    Stdio(Box<RawPeer>),
    /// Stateless Streamable HTTP on a loopback port.
    Http(Served, reqwest::Client),
}

impl Peer {
    pub async fn memory(server: &Server) -> Peer {
        Peer::Memory(Client::in_process(server).await.unwrap())
    }

    pub async fn stdio(server: &Server) -> Peer {
        let mut peer = RawPeer::in_process(server, Era::Handshake);
        peer.open().await;
        Peer::Stdio(Box::new(peer))
    }

    pub async fn http(server: &Server) -> Peer {
        Peer::Http(
            serve(server, HttpOptions::default()).await,
            reqwest::Client::new(),
        )
    }

    /// The result object of `tools/call` (a JSON-RPC error fails the test).
    pub async fn call(&mut self, tool: &str, args: &Value) -> Value {
        let response = match self {
            Peer::Memory(client) => return client.call_tool_raw(tool, args.clone()).await.unwrap(),
            Peer::Stdio(peer) => peer.call_tool(tool, args.clone()).await,
            Peer::Http(served, http) => {
                let headers = [
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                    ("mcp-protocol-version", STATELESS),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", tool),
                ];
                let body = stateless_call(1, tool, args.clone()).to_string();
                let request = headers
                    .into_iter()
                    .fold(http.post(&served.url).body(body), |r, (k, v)| {
                        r.header(k, v)
                    });
                let text = request.send().await.unwrap().text().await.unwrap();
                // A JSON body, or an event stream whose last `data:` field is the answer.
                let last = text.rsplit("data:").next().unwrap_or_default();
                serde_json::from_str(last.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
            }
        };
        match response.get("result") {
            Some(result) => result.clone(),
            None => panic!("{tool} {args}: not a result: {response}"),
        }
    }
}

/// The published tools, by name.
pub async fn published(server: &Server) -> HashMap<String, Value> {
    let client = Client::in_process(server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let named = tools
        .into_iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), t));
    named.collect()
}

/// Sends every sample through `peer` and checks what happened against the sample's expectation,
/// our validator's verdict and jsonschema's (every failing sample is reported, then the test
/// fails); returns how many samples of each tool the schema accepted and how many were refused.
pub async fn run(
    peer: &mut Peer,
    tools: &HashMap<String, Value>,
    samples: &[Sample],
) -> HashMap<&'static str, (usize, usize)> {
    let mut seen: HashMap<&'static str, (usize, usize)> = HashMap::new();
    let mut failed = 0;
    for (tool, args, expect) in samples {
        let result = peer.call(tool, args).await;
        let published = &tools[*tool];
        let checked = std::panic::catch_unwind(|| check(tool, args, expect, published, &result));
        failed += usize::from(checked.is_err());
        let counts = seen.entry(tool).or_default();
        // A `Serde` sample is valid for the schema and refused by serde: it counts as both.
        counts.0 += usize::from(!matches!(expect, Expect::Refused(_)));
        counts.1 += usize::from(!matches!(expect, Expect::Same | Expect::Echo(_)));
    }
    assert_eq!(
        failed,
        0,
        "{failed} of {} samples failed (above)",
        samples.len()
    );
    seen
}

fn check(tool: &str, args: &Value, expect: &Expect, published: &Value, result: &Value) {
    let schema = &published["inputSchema"];
    let theirs = reference(schema).is_valid(args);
    let ours = Validator::compile(schema)
        .expect("our validator compiles the published schema")
        .validate(&mut args.clone())
        .is_empty();
    let at = format!("{tool} {args}");
    assert_eq!(
        ours, theirs,
        "{at}: ours {ours}, jsonschema {theirs}\n{schema}"
    );
    let is_error = result["isError"] == true;
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let prefix = format!("Invalid arguments for tool {tool}: ");
    let echo = match expect {
        Expect::Same => Some(sent(args)),
        Expect::Echo(v) => Some(v.clone()),
        Expect::Refused(_) | Expect::Serde(_) => None,
    };
    if let Some(echo) = echo {
        assert!(
            !is_error && theirs,
            "{at}: refused (jsonschema {theirs}): {text}\n{schema}"
        );
        assert_eq!(result["structuredContent"]["echo"], echo, "{at}: {result}");
        // What the body sent back conforms to the published outputSchema.
        let output = &published["outputSchema"];
        let conforms = reference(output).is_valid(&result["structuredContent"]);
        assert!(conforms, "{at}: {result} against\n{output}");
        return;
    }
    assert!(is_error, "{at}: accepted: {result}");
    let message = text
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{at}: {text}"));
    match expect {
        Expect::Refused(rule) => {
            assert!(
                rule.contains(": ") && rule.starts_with('/'),
                "{at}: name a pointer and a rule"
            );
            assert!(message.starts_with(rule), "{at}: {message} (wanted {rule})");
            assert!(!theirs, "{at}: jsonschema accepts it\n{schema}");
        }
        Expect::Serde(why) => {
            assert_eq!(message, *why, "{at}");
            assert!(theirs, "{at}: jsonschema refuses it\n{schema}");
        }
        Expect::Same | Expect::Echo(_) => unreachable!(),
    }
}

/// What an echo of `args` looks like: `v` itself for the one-argument tools, else every
/// argument in declaration order.
fn sent(args: &Value) -> Value {
    let obj = args.as_object().expect("arguments are an object");
    match obj.get("v") {
        Some(v) if obj.len() == 1 => v.clone(),
        _ => Value::Array(obj.values().cloned().collect()),
    }
}

/// Asserts that `json!` keeps insertion order, which `sent` relies on for several arguments.
#[test]
fn arguments_keep_their_order() {
    assert_eq!(sent(&json!({"b": 1, "a": 2})), json!([1, 2]));
}
