//! The official clients completing calls through their own OAuth support, against the `tasks`
//! example served with `--auth-issuer` behind the real OpenID provider: the TypeScript client
//! (`@modelcontextprotocol/client`, `tests/idp/ts-client.mjs`, its `ClientCredentialsProvider`) and
//! the Python client (mcp 2.3.0, `tests/py/oauth_client.py`, its
//! `ClientCredentialsOAuthProvider`). Neither is told the token endpoint: each must find the
//! provider from the `401`'s `resource_metadata`, the Protected Resource Metadata and the
//! provider's own metadata; each meets the `403` `insufficient_scope` challenge and steps up. The
//! requests each client made are recorded by the script and checked here. Every other example
//! (`shop`, `notes`, `atrium`) is then served the same way and both clients complete a call that
//! needs one of its scopes, discovering it alone, in both eras. Without Node, the
//! packages or the virtualenv the tests say why and pass, unless `MCP_INTEROP_REQUIRED` is set.

use std::time::Duration;

use serde_json::Value;
use test_support::nginx::spawn_replica;
use test_support::python::{missing, python_with_sdk, run_script};
use tokio::process::Command;

use super::start_provider;

/// How long a client script may run: four cases, each a few requests on loopback.
const SCRIPT: Duration = Duration::from_secs(90);

/// The requests `case` recorded.
fn requests(case: &Value) -> &Vec<Value> {
    case["requests"]
        .as_array()
        .expect("the case recorded its requests")
}

/// The token requests (POSTs to the provider) of `case`: (scope asked, resource, status).
fn token_requests(case: &Value, issuer: &str) -> Vec<(String, String, u64)> {
    requests(case)
        .iter()
        .filter(|r| r["method"] == "POST" && r["url"].as_str().unwrap().starts_with(issuer))
        .map(|r| {
            (
                r["scope"].as_str().unwrap_or_default().to_owned(),
                r["resource"].as_str().unwrap_or_default().to_owned(),
                r["status"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The `WWW-Authenticate` challenges the MCP endpoint answered `case` with `status`.
fn challenges(case: &Value, url: &str, status: u64) -> Vec<String> {
    requests(case)
        .iter()
        .filter(|r| r["url"] == url && r["status"] == status)
        .map(|r| r["challenge"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The server binary `bin` on a loopback port behind `idp` (`--auth-issuer`): the process and
/// its address.
async fn behind(idp: &super::Provider, bin: &str) -> (tokio::process::Child, String) {
    spawn_replica(
        bin,
        &["--http", "127.0.0.1:0", "--auth-issuer", &idp.issuer],
    )
    .await
}

/// The folder of `ts-client.mjs` when `.ci/idp` installed its client package; else says so.
fn ts_client_dir() -> Option<std::path::PathBuf> {
    let dir = test_support::repo().join("tests/idp");
    if !dir
        .join("node_modules/@modelcontextprotocol/client")
        .exists()
    {
        missing("@modelcontextprotocol/client is not installed (run .ci/idp)");
        return None;
    }
    Some(dir)
}

/// Runs `ts-client.mjs` with `args` and returns its JSON summary (its last line of output),
/// after checking that it exited with success.
async fn run_ts_client(dir: &std::path::Path, args: &[&str]) -> Value {
    let node = std::env::var("MCP_NODE").unwrap_or_else(|_| "node".into());
    let out = tokio::time::timeout(
        SCRIPT,
        Command::new(&node)
            .arg(dir.join("ts-client.mjs"))
            .args(args)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the TypeScript client finishes")
    .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "{stderr}");
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no JSON summary ({e}): {stdout} {stderr}"))
}

/// Runs `tests/py/oauth_client.py` with `args` (`run_script` checks that nothing failed) and
/// returns what it printed.
async fn run_python_client(python: &std::path::Path, args: Vec<String>) -> String {
    let python = python.to_owned();
    tokio::time::timeout(
        SCRIPT,
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run_script(&python, "tests/py/oauth_client.py", &args)
        }),
    )
    .await
    .expect("the Python client finishes")
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_client_discovers_the_provider_and_steps_up() {
    let Some(dir) = ts_client_dir() else {
        return;
    };
    let Some(idp) = start_provider().await else {
        return;
    };
    let (_server, addr) = behind(&idp, env!("CARGO_BIN_EXE_tasks_test_server")).await;
    let url = format!("http://{addr}/mcp");
    let metadata = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
    let summary = run_ts_client(&dir, &[&url, &idp.issuer]).await;
    for (mode, protocol) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let cases = &summary[mode];
        for case in ["discover", "step_up", "narrow", "narrow_throw"] {
            assert_eq!(cases[case]["protocol"], protocol, "{mode} {case}");
        }
        typescript_cases(cases, &url, &metadata, &idp.issuer);
    }
}

/// The checks of one protocol era's cases of `ts-client.mjs`.
fn typescript_cases(cases: &Value, url: &str, metadata: &str, issuer: &str) {
    let tasks = ["tasks:read", "tasks:write"];
    typescript_discover(
        &cases["discover"],
        url,
        metadata,
        issuer,
        &tasks,
        "add_task",
    );
    typescript_step_up(cases, url, metadata, issuer);
}

/// The `discover` case: the 401 names the metadata, the client reads it, then the provider's
/// metadata, then asks the provider's token endpoint for a token for this resource with the
/// metadata's `scopes` (the SDK's scope selection); `tool` is listed and its call succeeds.
fn typescript_discover(
    discover: &Value,
    url: &str,
    metadata: &str,
    issuer: &str,
    scopes: &[&str],
    tool: &str,
) {
    let urls: Vec<&str> = requests(discover)
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    let first_401 = requests(discover)
        .iter()
        .position(|r| r["url"] == url && r["status"] == 401)
        .unwrap_or_else(|| panic!("no 401: {discover}"));
    assert!(
        requests(discover)[first_401]["challenge"]
            .as_str()
            .unwrap()
            .contains(&format!("resource_metadata=\"{metadata}\"")),
        "{discover}"
    );
    let prm = urls.iter().position(|u| *u == metadata);
    let asm = urls
        .iter()
        .position(|u| u.starts_with(&format!("{issuer}/.well-known/")));
    let token = urls.iter().position(|u| *u == format!("{issuer}/token"));
    assert!(
        matches!((prm, asm, token), (Some(p), Some(a), Some(t)) if first_401 < p && p < a && a < t),
        "discovery order: {urls:?}"
    );
    let tokens = token_requests(discover, issuer);
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    assert_eq!((tokens[0].1.as_str(), tokens[0].2), (url, 200));
    let mut asked: Vec<&str> = tokens[0].0.split(' ').collect();
    asked.sort_unstable();
    assert_eq!(asked, scopes);
    assert!(
        discover["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|n| n == tool)),
        "{discover}"
    );
    assert_eq!(discover["call"]["isError"], false, "{discover}");
}

/// The `step_up`, `narrow` and `narrow_throw` cases (the tasks example).
fn typescript_step_up(cases: &Value, url: &str, metadata: &str, issuer: &str) {
    // step_up: a tasks:read token, the 403 naming tasks:write, a second token request with the
    // union of the scopes, the retried call succeeds.
    let step_up = &cases["step_up"];
    let forbidden = challenges(step_up, url, 403);
    assert_eq!(forbidden.len(), 1, "{step_up}");
    assert!(
        forbidden[0].contains("error=\"insufficient_scope\"")
            && forbidden[0].contains("scope=\"tasks:write\"")
            && forbidden[0].contains(&format!("resource_metadata=\"{metadata}\"")),
        "{forbidden:?}"
    );
    let tokens = token_requests(step_up, issuer);
    assert_eq!(tokens.len(), 2, "{tokens:?}");
    assert_eq!(tokens[0].0, "tasks:read");
    assert!(
        tokens[1].0.split(' ').any(|s| s == "tasks:write"),
        "{tokens:?}"
    );
    assert_eq!(step_up["call"]["isError"], false, "{step_up}");

    // narrow: the provider grants tasks:read only; the client's step-up asks again, gets the same
    // grant, meets the 403 again and stops with an error (its retry limit).
    let narrow = &cases["narrow"];
    assert_eq!(narrow["granted"], "tasks:read", "{narrow}");
    let forbidden = challenges(narrow, url, 403);
    assert_eq!(forbidden.len(), 2, "{narrow}");
    assert!(
        forbidden
            .iter()
            .all(|c| c.contains("error=\"insufficient_scope\"")
                && c.contains("scope=\"tasks:write\"")),
        "{forbidden:?}"
    );
    assert_eq!(token_requests(narrow, issuer).len(), 2, "{narrow}");
    assert!(
        narrow.get("call").is_none()
            && narrow["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("403 insufficient_scope")),
        "{narrow}"
    );

    // narrow_throw: no step-up; the error is the SDK's InsufficientScopeError naming the scope.
    let thrown = &cases["narrow_throw"];
    assert_eq!(challenges(thrown, url, 403).len(), 1, "{thrown}");
    assert_eq!(token_requests(thrown, issuer).len(), 1, "{thrown}");
    assert_eq!(thrown["error"]["insufficientScope"], true, "{thrown}");
    assert_eq!(thrown["error"]["requiredScope"], "tasks:write", "{thrown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_discovers_the_provider_and_steps_up() {
    let Some(python) = python_with_sdk() else {
        return;
    };
    let Some(idp) = start_provider().await else {
        return;
    };
    let (_server, addr) = behind(&idp, env!("CARGO_BIN_EXE_tasks_test_server")).await;
    let url = format!("http://{addr}/mcp");
    let stdout = run_python_client(&python, vec![url, idp.issuer.clone()]).await;
    // run_script checked the summary (nothing failed); the cases all ran, in both modes.
    let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(passed, 2 * 14, "{stdout}");
}

/// Another example's call for the official clients: the binary, the tool and its arguments,
/// and the scopes its Protected Resource Metadata lists.
struct Call {
    bin: &'static str,
    tool: &'static str,
    arguments: Value,
    scopes: &'static [&'static str],
}

/// Every other example (the tests above drive `tasks`) behind the real provider: both official
/// clients discover it from the `401`, take a token with its scopes and complete a call that
/// needs one of them, in both protocol eras.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_official_clients_complete_a_call_on_every_other_example() {
    let Some(dir) = ts_client_dir() else {
        return;
    };
    let Some(python) = python_with_sdk() else {
        return;
    };
    let Some(idp) = start_provider().await else {
        return;
    };
    let calls = [
        Call {
            bin: env!("CARGO_BIN_EXE_shop_test_server"),
            tool: "cancel_order",
            arguments: serde_json::json!({"order_id": 1042}),
            scopes: &["orders:read", "orders:write"],
        },
        Call {
            bin: env!("CARGO_BIN_EXE_notes_test_server"),
            tool: "get_note",
            arguments: serde_json::json!({"title": "groceries"}),
            scopes: &["notes:read"],
        },
        Call {
            bin: env!("CARGO_BIN_EXE_atrium_replica"),
            tool: "find_slots",
            arguments: serde_json::json!({"room_id": "studio-b", "day": "2026-09-17"}),
            scopes: &["rooms:book", "rooms:read"],
        },
    ];
    for call in calls {
        let (_server, addr) = behind(&idp, call.bin).await;
        let url = format!("http://{addr}/mcp");
        let metadata = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
        let request = serde_json::json!({"name": call.tool, "arguments": call.arguments});
        let summary = run_ts_client(&dir, &[&url, &idp.issuer, &request.to_string()]).await;
        for (mode, protocol) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
            let discover = &summary[mode]["discover"];
            assert_eq!(discover["protocol"], protocol, "{} {mode}", call.tool);
            typescript_discover(
                discover,
                &url,
                &metadata,
                &idp.issuer,
                call.scopes,
                call.tool,
            );
        }
        println!(
            "TypeScript client: {} through its own OAuth, both eras",
            call.tool
        );

        let args = vec![
            url,
            idp.issuer.clone(),
            call.tool.to_owned(),
            call.arguments.to_string(),
            call.scopes.join(" "),
        ];
        let stdout = run_python_client(&python, args).await;
        // run_script checked the summary (nothing failed); the discover case ran in both modes.
        let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
        assert_eq!(passed, 2 * 8, "{stdout}");
        println!(
            "Python client: {} through its own OAuth, both eras",
            call.tool
        );
    }
}
