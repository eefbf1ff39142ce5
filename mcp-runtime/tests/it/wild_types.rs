//! Argument types with the serde and schemars shapes found in the wild (`wild/types.rs`: flatten,
//! every enum representation, `other`, `alias`, `default`, `skip`, renaming, recursion, generics,
//! std types, schemars `length`/`range`/`regex`/`with`/`transform`/`extend`, …). Every tool
//! builds into one server; every sample (`wild/samples.rs`) goes through the in-process client,
//! line-delimited JSON-RPC as stdio runs it, and Streamable HTTP on a loopback port. A valid
//! sample reaches the body, which echoes what it received (compared, and checked against the
//! published outputSchema); an invalid one is refused with its JSON Pointer and rule; on every
//! sample our verdict equals the `jsonschema` crate's on the published inputSchema.

use crate::wild;

use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, ToolBuildError};
use serde_json::{Value, json};

use mcp_runtime::validate::Validator;
use wild::{Peer, published, reference, run, samples::samples, types::table, types::unservable};

fn server() -> Server {
    Server::builder("t", "1")
        .tools(table())
        .build()
        .unwrap_or_else(|e| panic!("every tool of the corpus builds: {e}"))
}

/// Runs the whole corpus through `peer`: `hi` answers beside the reproduction, and every
/// tool has samples both accepted and refused.
async fn corpus(server: &Server, mut peer: Peer) {
    let tools = published(server).await;
    let hi = peer.call("hi", &json!({})).await;
    assert_eq!(hi["content"][0]["text"], "hi", "{hi}");
    let seen = run(&mut peer, &tools, &samples()).await;
    for name in tools.keys().filter(|n| *n != "hi") {
        let (accepted, refused) = seen.get(name.as_str()).copied().unwrap_or_default();
        assert!(
            accepted > 0 && refused > 0,
            "{name}: {accepted} accepted, {refused} refused"
        );
    }
    assert!(tools.len() > 40, "{} tools", tools.len());
}

#[tokio::test]
async fn the_corpus_in_process() {
    let server = server();
    corpus(&server, Peer::memory(&server).await).await;
}

#[tokio::test]
async fn the_corpus_over_stdio_framing() {
    let server = server();
    corpus(&server, Peer::stdio(&server).await).await;
}

#[tokio::test]
async fn the_corpus_over_http() {
    let server = server();
    corpus(&server, Peer::http(&server).await).await;
}

/// The `$defs` of a tool's inputSchema: their names, and the target of every `$ref` under
/// `properties/ARG`.
fn defs(schema: &Value) -> Vec<&str> {
    let defs = schema["$defs"].as_object();
    defs.map(|d| d.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn refs_under<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(o) => {
            if let Some(r) = o.get("$ref").and_then(Value::as_str) {
                out.push(r);
            }
            o.values().for_each(|c| refs_under(c, out));
        }
        Value::Array(a) => a.iter().for_each(|c| refs_under(c, out)),
        _ => {}
    }
}

#[tokio::test]
async fn the_same_type_twice_shares_its_defs_and_generic_instances_keep_theirs() {
    let tools = published(&server()).await;
    let refs = |tool: &str, arg: &str| {
        let mut out = Vec::new();
        refs_under(&tools[tool]["inputSchema"]["properties"][arg], &mut out);
        out.sort_unstable();
        out.dedup();
        out.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    // `route(from: List, to: List)`: one entry, named by both arguments.
    assert_eq!(defs(&tools["route"]["inputSchema"]), ["List"]);
    assert_eq!(refs("route", "from"), ["#/$defs/List"]);
    assert_eq!(refs("route", "to"), ["#/$defs/List"]);
    // `chains(a: Chain<u8>, b: Chain<String>)`: one entry per instantiation, each argument
    // recursing into its own.
    let chains = defs(&tools["chains"]["inputSchema"]);
    assert_eq!(chains.len(), 2, "{chains:?}");
    let (a, b) = (refs("chains", "a"), refs("chains", "b"));
    assert_eq!((a.len(), b.len()), (1, 1));
    assert_ne!(a, b);
    // `Page<u8>` and `Page<String>` are not recursive: inlined, with their own item types.
    let pages = &tools["pages"]["inputSchema"]["properties"];
    assert_eq!(
        pages["a"]["properties"]["items"]["items"]["type"],
        "integer"
    );
    assert_eq!(pages["b"]["properties"]["items"]["items"]["type"], "string");
}

#[tokio::test]
async fn every_near_miss_of_every_sample_gets_the_verdict_of_jsonschema() {
    let tools = published(&server()).await;
    let mut compared = 0;
    for (tool, args, _) in samples() {
        let schema = &tools[tool]["inputSchema"];
        let (ours, theirs) = (Validator::compile(schema).unwrap(), reference(schema));
        for m in wild::mutate::mutations(&args) {
            let violations = ours.validate(&mut m.clone());
            let agree = violations.is_empty() == theirs.is_valid(&m);
            assert!(agree, "{tool} {m}: ours {violations:?}\n{schema}");
            compared += 1;
        }
    }
    println!("{compared} near misses compared");
    assert!(compared > 12_000, "{compared}");
}

// ---- `$dynamicRef` and `$dynamicAnchor` -------------------------------------------------------
//
// No schemars 1.x release emits either (nor `$recursiveRef`/`$recursiveAnchor` or `$anchor`):
// the words appear nowhere in schemars or schemars_derive 1.2.3, nor anywhere in the history of
// GREsau/schemars from v1.0.0-alpha.1 to v1.2.0 (`git log -S`). Recursion is `$ref` into
// `$defs` (a recursive type's own schema sits there, hence the pointer below). So they only arrive through a user's `extend` or `JsonSchema` impl, and the validator
// refuses them when the server is built, naming the tool, the pointer and the keyword.

#[derive(Deserialize, JsonSchema)]
pub struct Dynamic {
    #[schemars(extend("$dynamicRef" = "#node"))]
    pub next: Option<Box<Dynamic>>,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(extend("$dynamicAnchor" = "node"))]
pub struct Anchored {
    pub id: u8,
}

/// Takes a schema with `$dynamicRef`.
#[tool]
fn dynamic(v: Dynamic) -> String {
    v.next.map_or("end", |_| "more").into()
}

/// Takes a schema with `$dynamicAnchor`.
#[tool]
fn anchored(v: Anchored) -> u8 {
    v.id
}

#[test]
fn dynamic_refs_are_a_build_error_naming_the_tool_the_pointer_and_the_keyword() {
    let err = test_support::build_error(tools![dynamic, anchored]);
    let BuildError::Several(all) = &err else {
        panic!("unexpected error: {err:?}");
    };
    let problems: Vec<(&str, &str)> = all
        .iter()
        .map(|e| match e {
            BuildError::Tool(ToolBuildError { tool, problem, .. }) => {
                (tool.as_str(), problem.as_str())
            }
            other => panic!("unexpected error: {other:?}"),
        })
        .collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    for ((tool, problem), (name, pointer, keyword)) in problems.into_iter().zip([
        (
            "dynamic",
            "#/$defs/Dynamic/properties/next",
            "`$dynamicRef`",
        ),
        ("anchored", "#/properties/v", "`$dynamicAnchor`"),
    ]) {
        assert_eq!(tool, name);
        let expected = format!("{pointer}: the keyword {keyword} is not supported");
        assert!(problem.contains(&expected), "{tool}: {problem}");
    }
}

/// The reproduction (`deny_unknown_fields` flattening an internally tagged enum) used
/// to build and then refuse every call with serde's `unknown field `kind``: it is refused when
/// the server is built, naming serde's limitation and the fix.
#[test]
fn serde_s_limitation_is_a_build_error() {
    let Err(e) = Server::builder("t", "1").tools(unservable()).build() else {
        panic!("built a tool serde refuses every input of");
    };
    let text = e.to_string();
    assert!(text.contains("tool `draw` cannot be served"), "{text}");
    assert!(text.contains("unknown field `kind`"), "{text}");
    assert!(text.contains("remove `deny_unknown_fields`"), "{text}");
}
