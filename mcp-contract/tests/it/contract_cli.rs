//! `mcp-contract` as a user runs it: the binary, against an example server over stdio and
//! against a server of this test's own over Streamable HTTP (both eras), then `diff` in each
//! format with its exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::scratch::Scratch;

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-contract"))
        .args(args)
        .output()
        .expect("run mcp-contract")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// An example binary beside this one in the target folder (the examples package's tests build
/// them: `cargo test --workspace`).
fn example(name: &str) -> PathBuf {
    let me = Path::new(env!("CARGO_BIN_EXE_mcp-contract"));
    let path = me.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is not built; `cargo test --workspace` builds the example binaries",
        path.display()
    );
    path
}

#[test]
fn a_stdio_example_is_snapshotted_and_equals_its_committed_snapshot() {
    let shop = example("shop");
    let scratch = Scratch::new("contract-cli-stdio");
    let out = scratch.file("shop.json");
    let o = cli(&[
        "snapshot",
        "-o",
        out.to_str().unwrap(),
        "--",
        shop.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/contract/shop.json");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(&committed).unwrap()
    );
    // The stateless era publishes the same contract.
    let o = cli(&["snapshot", "--stateless", "--", shop.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stateless: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(stateless["server"]["protocolVersion"], "2026-07-28");
    let handshake: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(stateless["tools"], handshake["tools"]);
    // Against itself: nothing changed.
    let o = cli(&["diff", out.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("no change"), "{}", stdout(&o));
}

/// Look up one order.
#[tool]
fn get_order(
    /// The order's id.
    #[arg(minimum = 0, maximum = 9999)]
    order_id: u32,
) -> String {
    format!("{order_id}")
}

/// Greets someone.
#[prompt]
fn greet(
    /// Who.
    name: String,
) -> String {
    format!("Hello {name}")
}

async fn serve_http() -> String {
    let server = Server::builder("orders", "1.0.0")
        .tools(tools![get_order])
        .prompts(prompts![greet])
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, HttpOptions::default()).await });
    format!("http://{addr}/mcp")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_streamable_http_server_is_snapshotted_in_both_eras() {
    let url = serve_http().await;
    let mut snapshots = Vec::new();
    for era in [&[][..], &["--stateless"][..]] {
        let mut args = vec!["snapshot", "--url", url.as_str()];
        args.extend(era);
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        let o = tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            cli(&args)
        })
        .await
        .unwrap();
        assert!(
            o.status.success(),
            "{era:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let s: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(s["server"]["name"], "orders");
        assert_eq!(
            s["tools"][0]["inputSchema"]["properties"]["order_id"]["maximum"],
            9999
        );
        assert_eq!(s["prompts"][0]["name"], "greet");
        snapshots.push(s);
    }
    assert_eq!(snapshots[0]["server"]["protocolVersion"], "2025-11-25");
    assert_eq!(snapshots[1]["server"]["protocolVersion"], "2026-07-28");
    assert_eq!(snapshots[0]["tools"], snapshots[1]["tools"]);
    assert_eq!(snapshots[0]["prompts"], snapshots[1]["prompts"]);
}

fn write(scratch: &Scratch, name: &str, v: &Value) -> String {
    let p = scratch.file(name);
    std::fs::write(&p, v.to_string()).unwrap();
    p.to_str().unwrap().to_owned()
}

fn tools_list(maximum: i64, extra: Value) -> Value {
    let mut props = json!({"order_id": {"type": "integer", "minimum": 0, "maximum": maximum}});
    for (k, v) in extra.as_object().unwrap() {
        props[k] = v.clone();
    }
    json!({"tools": [{"name": "get_order", "inputSchema": {
        "type": "object", "properties": props, "required": ["order_id"], "additionalProperties": false}}]})
}

#[test]
fn diff_prints_text_json_and_markdown_with_its_exit_codes() {
    let scratch = Scratch::new("contract-cli-diff");
    let old = write(&scratch, "old.json", &tools_list(9999, json!({})));
    let tight = write(&scratch, "tight.json", &tools_list(999, json!({})));
    let loose = write(
        &scratch,
        "loose.json",
        &tools_list(99999, json!({"verbose": {"type": "boolean"}})),
    );
    let union = write(
        &scratch,
        "union.json",
        &tools_list(9999, json!({"v": {"type": "boolean", "default": false}})),
    );
    let union2 = write(
        &scratch,
        "union2.json",
        &tools_list(9999, json!({"v": {"type": "boolean", "default": true}})),
    );
    // Breaking: 1, with the rule, the pointer and the witness.
    let o = cli(&["diff", &old, &tight]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(text.contains("BREAKING   tool get_order /inputSchema/properties/order_id/maximum [input.maximum-tightened]"), "{text}");
    assert!(
        text.contains(r#"witness (old accepts, new refuses): {"order_id":9999}"#),
        "{text}"
    );
    let o = cli(&["diff", "--format", "json", &old, &tight]);
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["breaking"].clone(), j["exitCode"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(j["changes"][0]["witness"], json!({"order_id": 9999}));
    let o = cli(&["diff", "--format", "markdown", &old, &tight]);
    assert!(
        stdout(&o).starts_with("### MCP contract\n\n**Breaking**"),
        "{}",
        stdout(&o)
    );
    // Compatible: 0.
    let o = cli(&["diff", &old, &loose]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("0 breaking, 0 unknown, 2 compatible"),
        "{}",
        stdout(&o)
    );
    // Unknown only (a default changed): 3.
    let o = cli(&["diff", &union, &union2]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    // An allowed rule no longer fails the gate.
    let o = cli(&["diff", "--allow", "input.maximum-tightened", &old, &tight]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Input and usage errors: 2.
    let missing = scratch.file("missing.json");
    let o = cli(&["diff", &old, missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let junk = write(&scratch, "junk.json", &json!([1, 2]));
    assert_eq!(cli(&["diff", &old, &junk]).status.code(), Some(2));
    assert_eq!(cli(&["diff", &old]).status.code(), Some(2));
    assert_eq!(cli(&["snapshot"]).status.code(), Some(2));
    assert_eq!(
        cli(&["snapshot", "--", "/nonexistent/server"])
            .status
            .code(),
        Some(2)
    );
}

/// shop's committed snapshot, changed by `edit` and written as a full snapshot file (server,
/// version and protocol kept), the way a candidate's snapshot would differ from the published one.
fn shop_variant(scratch: &Scratch, name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/contract/shop.json");
    let mut s: Value = serde_json::from_str(&std::fs::read_to_string(committed).unwrap()).unwrap();
    edit(&mut s);
    let p = scratch.file(name);
    std::fs::write(&p, serde_json::to_string_pretty(&s).unwrap()).unwrap();
    p.to_str().unwrap().to_owned()
}

fn get_order_input(s: &mut Value) -> &mut Value {
    let tools = s["tools"].as_array_mut().unwrap();
    let t = tools.iter_mut().find(|t| t["name"] == "get_order").unwrap();
    &mut t["inputSchema"]
}

#[test]
fn diff_of_two_real_snapshot_files_prints_and_exits_by_the_worst_class() {
    let scratch = Scratch::new("contract-cli-real");
    let v1 = shop_variant(&scratch, "shop-v1.json", |_| {});
    // v2: the bound tightened (breaking), a status added to the output (breaking), a new
    // version.
    let v2 = shop_variant(&scratch, "shop-v2.json", |s| {
        s["server"]["version"] = json!("2.0.0");
        get_order_input(s)["properties"]["order_id"]["maximum"] = json!(999);
        let tools = s["tools"].as_array_mut().unwrap();
        let t = tools.iter_mut().find(|t| t["name"] == "get_order").unwrap();
        t["outputSchema"]["properties"]["status"]["enum"] = json!(["paid", "shipped", "lost"]);
    });
    // v3: only verbose's default changed (unknown), and a description (info).
    let v3 = shop_variant(&scratch, "shop-v3.json", |s| {
        get_order_input(s)["properties"]["verbose"]["default"] = json!(true);
        let tools = s["tools"].as_array_mut().unwrap();
        tools[0]["description"] = json!("Cancel an order that has not shipped.");
    });
    let o = cli(&["diff", &v1, &v2]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    for line in [
        "BREAKING   tool get_order /inputSchema/properties/order_id/maximum [input.maximum-tightened]",
        "BREAKING   tool get_order /outputSchema/properties/status/enum [output.enum-value-added]",
        r#"witness (old accepts, new refuses): {"order_id":9999}"#,
        "server version 1.0.0 became 2.0.0",
        "2 breaking, 0 unknown",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    let o = cli(&["diff", "--format", "json", &v1, &v2]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["breaking"].clone(), j["unknown"].clone()),
        (json!(2), json!(0))
    );
    assert_eq!(j["exitCode"], 1);
    let rules: Vec<&str> = j["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"server.version-changed"), "{rules:?}");
    // Nothing breaks, something is unknown: 3, in text and JSON alike.
    let o = cli(&["diff", &v1, &v3]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.contains("UNKNOWN    tool get_order /inputSchema/properties/verbose/default [input.default-changed]"),
        "{text}"
    );
    assert!(text.contains("[tool.description-changed]"), "{text}");
    let o = cli(&["diff", "--format", "json", &v1, &v3]);
    assert_eq!(o.status.code(), Some(3));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["breaking"].clone(), j["unknown"].clone()),
        (json!(0), json!(1))
    );
    assert_eq!(j["exitCode"], 3);
    // The way back from v2 loosens what v2 published: compatible input, narrowed output.
    let o = cli(&["diff", &v2, &v1]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn version_and_protocol_flags() {
    let o = cli(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o).trim(),
        format!("mcp-contract {}", env!("CARGO_PKG_VERSION"))
    );
    // `--protocol` picks the handshake's version; the snapshot records the one agreed.
    let shop = example("shop");
    let o = cli(&[
        "snapshot",
        "--protocol",
        "2025-06-18",
        "--",
        shop.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["server"]["protocolVersion"], "2025-06-18");
    // --protocol and --stateless do not go together: a usage error.
    let o = cli(&[
        "snapshot",
        "--stateless",
        "--protocol",
        "2025-06-18",
        "--",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(2));
}
