//! Every example behind a real OpenID provider: `oidc-provider` from npm (an OpenID Certified
//! implementation, `tests/idp/serve.mjs`, installed by `.ci/idp`) on loopback issues JWT access
//! tokens for the example's endpoint (resource indicators) through the client-credentials grant,
//! RS256 or ES256. Each example is started as its own binary with `--auth-issuer`: the right scope
//! succeeds, a missing one gets the `403` step-up challenge, no token the `401` that points at the
//! Protected Resource Metadata, which names the provider. Without Node or the installed package
//! the test says why and passes, unless `MCP_INTEROP_REQUIRED` is set (CI sets it).

use std::process::Stdio;

use serde_json::{Value, json};
use test_support::HANG;
use test_support::nginx::spawn_replica;
use test_support::python::missing;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

mod clients;

/// The provider, killed when dropped.
struct Provider {
    issuer: String,
    _child: Child,
}

/// Starts `tests/idp/serve.mjs` with the `node` on `PATH` (or `MCP_NODE`); `None` (after
/// [`missing`]) when Node or the package is not installed.
async fn start_provider() -> Option<Provider> {
    let dir = test_support::repo().join("tests/idp");
    if !dir.join("node_modules/oidc-provider").exists() {
        missing("oidc-provider is not installed (run .ci/idp)");
        return None;
    }
    let node = std::env::var("MCP_NODE").unwrap_or_else(|_| "node".into());
    let child = Command::new(&node)
        .arg(dir.join("serve.mjs"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let Ok(mut child) = child else {
        missing("node is not on PATH");
        return None;
    };
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(HANG, lines.next_line())
        .await
        .expect("the provider starts")
        .unwrap()
        .expect("the provider prints its issuer");
    let issuer: Value = serde_json::from_str(&line).unwrap();
    Some(Provider {
        issuer: issuer["issuer"].as_str().unwrap().to_owned(),
        _child: child,
    })
}

impl Provider {
    /// An access token for `resource` with `scope`, by the client-credentials grant of `client`.
    async fn token(&self, client: &str, scope: &str, resource: &str) -> String {
        let form = format!(
            "grant_type=client_credentials&scope={}&resource={}",
            scope.replace(' ', "%20").replace(':', "%3A"),
            resource.replace(':', "%3A").replace('/', "%2F")
        );
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client, Some(format!("{client}-secret")))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(status, 200, "{body}");
        body["access_token"].as_str().unwrap().to_owned()
    }
}

/// A stateless request of `method` naming `name` with `params`, with `token` if any: status,
/// `WWW-Authenticate`, body.
async fn request(
    url: &str,
    token: Option<&str>,
    method: &str,
    name: &str,
    params: Value,
) -> (u16, String, Value) {
    let mut params = params;
    params["_meta"] = test_support::http::meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", test_support::http::STATELESS)
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string());
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    (
        status,
        challenge,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

/// One example's checks: `allowed` is (client, scope, method, name, params) that must succeed;
/// `refused` the same with the scope the `403` must ask for.
struct Example {
    bin: &'static str,
    allowed: Vec<(
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        Value,
    )>,
    refused: Vec<(
        &'static str,
        &'static str,
        &'static str,
        Value,
        &'static str,
    )>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_example_behind_a_real_openid_provider() {
    let Some(idp) = start_provider().await else {
        return;
    };
    let examples = [
        Example {
            bin: env!("CARGO_BIN_EXE_tasks_test_server"),
            allowed: vec![
                (
                    "reader",
                    "tasks:read",
                    "tools/call",
                    "list_tasks",
                    json!({"name": "list_tasks", "arguments": {}}),
                ),
                (
                    "es-client",
                    "tasks:write",
                    "tools/call",
                    "list_tasks",
                    json!({"name": "list_tasks", "arguments": {}}),
                ),
                (
                    "writer",
                    "tasks:write",
                    "tools/call",
                    "add_task",
                    json!({"name": "add_task", "arguments": {"title": "ship auth"}}),
                ),
            ],
            refused: vec![
                (
                    "tasks:read",
                    "tools/call",
                    "add_task",
                    json!({"name": "add_task", "arguments": {"title": "x"}}),
                    "tasks:write",
                ),
                (
                    "tasks:read",
                    "tools/call",
                    "complete_task",
                    json!({"name": "complete_task", "arguments": {"id": 1}}),
                    "tasks:write",
                ),
            ],
        },
        Example {
            bin: env!("CARGO_BIN_EXE_shop_test_server"),
            allowed: vec![
                (
                    "reader",
                    "orders:read",
                    "tools/call",
                    "get_order",
                    json!({"name": "get_order", "arguments": {"order_id": 1042}}),
                ),
                (
                    "es-client",
                    "orders:write",
                    "tools/call",
                    "cancel_order",
                    json!({"name": "cancel_order", "arguments": {"order_id": 1042}}),
                ),
            ],
            refused: vec![(
                "orders:read",
                "tools/call",
                "cancel_order",
                json!({"name": "cancel_order", "arguments": {"order_id": 1}}),
                "orders:write",
            )],
        },
        Example {
            bin: env!("CARGO_BIN_EXE_notes_test_server"),
            allowed: vec![
                (
                    "reader",
                    "notes:read",
                    "resources/read",
                    "notes://index",
                    json!({"uri": "notes://index"}),
                ),
                (
                    "reader",
                    "notes:read",
                    "tools/call",
                    "get_note",
                    json!({"name": "get_note", "arguments": {"title": "groceries"}}),
                ),
            ],
            refused: vec![
                (
                    "tasks:read",
                    "resources/read",
                    "notes://index",
                    json!({"uri": "notes://index"}),
                    "notes:read",
                ),
                (
                    "tasks:read",
                    "prompts/get",
                    "summarize_note",
                    json!({"name": "summarize_note", "arguments": {"title": "groceries"}}),
                    "notes:read",
                ),
            ],
        },
        Example {
            bin: env!("CARGO_BIN_EXE_atrium_replica"),
            allowed: vec![(
                "reader",
                "rooms:read",
                "tools/call",
                "find_slots",
                json!({"name": "find_slots", "arguments": {"room_id": "studio-b", "day": "2026-09-17"}}),
            )],
            refused: vec![(
                "rooms:read",
                "tools/call",
                "book_room",
                json!({"name": "book_room", "arguments": {}}),
                "rooms:book",
            )],
        },
    ];
    for example in examples {
        let (_child, addr) = spawn_replica(
            example.bin,
            &["--http", "127.0.0.1:0", "--auth-issuer", &idp.issuer],
        )
        .await;
        let url = format!("http://{addr}/mcp");
        let metadata = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
        // The metadata names the provider; no token gets the 401 that points at it.
        let doc: Value =
            serde_json::from_str(&reqwest::get(&metadata).await.unwrap().text().await.unwrap())
                .unwrap();
        assert_eq!(
            doc["authorization_servers"],
            json!([idp.issuer]),
            "{}",
            example.bin
        );
        assert_eq!(doc["resource"], url);
        let (_, _, _, name, params) = &example.allowed[0];
        let (status, challenge, _) = request(&url, None, "tools/call", name, params.clone()).await;
        assert_eq!(status, 401, "{}", example.bin);
        assert!(
            challenge.contains(&format!("resource_metadata=\"{metadata}\"")),
            "{challenge}"
        );
        for (client, scope, method, name, params) in &example.allowed {
            let token = idp.token(client, scope, &url).await;
            let (status, challenge, body) =
                request(&url, Some(&token), method, name, params.clone()).await;
            assert_eq!(
                status, 200,
                "{} {name} with {scope}: {challenge} {body}",
                example.bin
            );
            assert!(body.get("result").is_some(), "{body}");
            assert_ne!(
                body["result"]["isError"], true,
                "{} {name}: {body}",
                example.bin
            );
        }
        for (scope, method, name, params, needed) in &example.refused {
            let token = idp.token("writer", scope, &url).await;
            let (status, challenge, _) =
                request(&url, Some(&token), method, name, params.clone()).await;
            assert_eq!(status, 403, "{} {name} with {scope}", example.bin);
            assert!(
                challenge.contains("error=\"insufficient_scope\""),
                "{challenge}"
            );
            assert!(
                challenge.contains(&format!("scope=\"{needed}\"")),
                "{challenge}"
            );
        }
        // A token for another resource is refused (audience).
        let other = idp
            .token("writer", example.allowed[0].1, "http://127.0.0.1:9/mcp")
            .await;
        let (_, _, _, name, params) = &example.allowed[0];
        let (status, challenge, _) =
            request(&url, Some(&other), "tools/call", name, params.clone()).await;
        assert_eq!(status, 401, "{challenge}");
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    }
}
