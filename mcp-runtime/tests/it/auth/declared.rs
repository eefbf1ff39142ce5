//! Scopes declared next to what they guard: `scopes = [...]` on `#[tool]`, on `#[toolbox]` as the
//! default of its methods (a method's own key winning, an empty list needing none), on
//! `#[prompt]` and on `#[resource]` (a template's scopes for each URI it resolves), checked by
//! the resource server with the hierarchy the server declares, and listed in its metadata.

use std::time::Duration;

use mcp_runtime::auth::Algorithm;
use mcp_runtime::auth::{JwtValidator, ResourceServer};
use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::http::{STATELESS, Served, meta, serve_guarded};

use super::idp::{self, mint};
use super::{claims, post_as};

/// Close a ticket.
#[tool(scopes = ["tickets:write"])]
fn close_ticket(id: u32) -> String {
    format!("closed {id}")
}

/// The ticket desk's tools, which read unless they say otherwise.
struct Desk;

#[toolbox(scopes = ["tickets:read"])]
impl Desk {
    /// Count the open tickets.
    #[tool]
    fn open_count(&self) -> u32 {
        3
    }

    /// Reopen a ticket.
    #[tool(scopes = ["tickets:write", "tickets:reopen"])]
    fn reopen(&self, id: u32) -> String {
        format!("reopened {id}")
    }

    /// The desk's opening hours, for anyone.
    #[tool(scopes = [])]
    fn hours(&self) -> String {
        "9 to 5".into()
    }
}

/// Draft a reply to a ticket.
#[prompt(scopes = ["tickets:read"])]
fn draft_reply(id: String) -> String {
    format!("Draft a reply to ticket {id}.")
}

/// One ticket.
#[resource(uri = "tickets://{id}", scopes = ["tickets:read"])]
fn ticket(id: String) -> String {
    format!("ticket {id}")
}

/// The desk's public notice.
#[resource(uri = "tickets://notice")]
fn notice() -> String {
    "closed on Sunday".into()
}

/// The desk's audit log: a scope no tool or prompt declares.
#[resource(uri = "audit://log", scopes = ["audit:read"])]
fn audit_log() -> String {
    "nothing happened".into()
}

async fn serve(idp: &idp::Idp) -> Served {
    let server = Server::builder("desk", "1.0.0")
        .tools(tools![close_ticket, Desk])
        .state(Desk)
        .prompts(prompts![draft_reply])
        .resources(resources![notice, ticket, audit_log])
        .scope_implies("tickets:write", "tickets:read")
        .build()
        .unwrap();
    let validator = JwtValidator::builder(&idp.issuer)
        .fetch_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let auth = ResourceServer::new(&idp.issuer, validator);
    serve_guarded(&server, HttpOptions::default().authorization(auth)).await
}

/// A stateless request of `method` (`Mcp-Name`: `name`) with `params`, and its status,
/// challenge and body.
async fn request(
    url: &str,
    token: &str,
    method: &str,
    name: &str,
    mut params: Value,
) -> (u16, String, Value) {
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", STATELESS)
        .header("mcp-method", method)
        .header("mcp-name", name)
        .header("authorization", format!("Bearer {token}"))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map_or(String::new(), |v| v.to_str().unwrap().to_owned());
    let body = serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null);
    (status, challenge, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scopes_declared_on_the_items_are_checked_and_published() {
    let idp = idp::start(&["rsa"]).await;
    let served = serve(&idp).await;
    let token = |scope: &str| {
        let c = claims(&idp.issuer, &served.url, scope);
        mint(Algorithm::RS256, "rsa", Some("rsa-1"), Some("at+jwt"), &c)
    };
    let call = |name: &'static str, args: Value| json!({"name": name, "arguments": args});
    let url = served.url.as_str();

    // Each case: the token's scope, the request, and the scope a 403 asks for (None: 200).
    let cases: Vec<(&str, &str, &str, Value, Option<&str>)> = vec![
        // #[tool(scopes = ...)] on a free function.
        (
            "tickets:read",
            "tools/call",
            "close_ticket",
            call("close_ticket", json!({"id": 1})),
            Some("tickets:write"),
        ),
        (
            "tickets:write",
            "tools/call",
            "close_ticket",
            call("close_ticket", json!({"id": 1})),
            None,
        ),
        // The toolbox's default; `tickets:write` implies `tickets:read`.
        (
            "",
            "tools/call",
            "open_count",
            call("open_count", json!({})),
            Some("tickets:read"),
        ),
        (
            "tickets:read",
            "tools/call",
            "open_count",
            call("open_count", json!({})),
            None,
        ),
        (
            "tickets:write",
            "tools/call",
            "open_count",
            call("open_count", json!({})),
            None,
        ),
        // A method's own scopes replace the default: both are needed.
        (
            "tickets:write",
            "tools/call",
            "reopen",
            call("reopen", json!({"id": 2})),
            Some("tickets:reopen"),
        ),
        (
            "tickets:write tickets:reopen",
            "tools/call",
            "reopen",
            call("reopen", json!({"id": 2})),
            None,
        ),
        // An empty list: none.
        ("", "tools/call", "hours", call("hours", json!({})), None),
        // #[prompt(scopes = ...)].
        (
            "",
            "prompts/get",
            "draft_reply",
            json!({"name": "draft_reply", "arguments": {"id": "7"}}),
            Some("tickets:read"),
        ),
        (
            "tickets:read",
            "prompts/get",
            "draft_reply",
            json!({"name": "draft_reply", "arguments": {"id": "7"}}),
            None,
        ),
        // #[resource(scopes = ...)] on a template: every URI it resolves; a fixed resource
        // beside it that declares none is resolved first, as resources/read resolves it.
        (
            "",
            "resources/read",
            "tickets://42",
            json!({"uri": "tickets://42"}),
            Some("tickets:read"),
        ),
        (
            "tickets:write",
            "resources/read",
            "tickets://42",
            json!({"uri": "tickets://42"}),
            None,
        ),
        (
            "",
            "resources/read",
            "tickets://notice",
            json!({"uri": "tickets://notice"}),
            None,
        ),
        // A resource's scope that nothing else declares.
        (
            "tickets:write",
            "resources/read",
            "audit://log",
            json!({"uri": "audit://log"}),
            Some("audit:read"),
        ),
        (
            "audit:read",
            "resources/read",
            "audit://log",
            json!({"uri": "audit://log"}),
            None,
        ),
    ];
    for (scope, method, name, params, refused) in cases {
        let (status, challenge, body) = request(url, &token(scope), method, name, params).await;
        let case = format!("{method} {name} with `{scope}`: {status} {challenge} {body}");
        match refused {
            Some(needed) => {
                assert_eq!(status, 403, "{case}");
                assert!(challenge.contains("error=\"insufficient_scope\""), "{case}");
                assert!(challenge.contains(needed), "{case}");
            }
            None => {
                assert_eq!(status, 200, "{case}");
                assert!(body.get("result").is_some(), "{case}");
            }
        }
    }

    // The metadata lists every scope declared, on the items (a resource's alone too) and on the
    // builder.
    let metadata = reqwest::get(format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        served.addr
    ))
    .await
    .unwrap();
    let doc: Value = serde_json::from_str(&metadata.text().await.unwrap()).unwrap();
    assert_eq!(
        doc["scopes_supported"],
        json!([
            "audit:read",
            "tickets:read",
            "tickets:reopen",
            "tickets:write"
        ])
    );
}

/// `body` POSTed in `session` (when given) with `token`: status, challenge, body text, and the
/// session id the answer names.
async fn post_in_session(
    url: &str,
    token: &str,
    session: Option<&str>,
    body: &Value,
) -> (u16, String, String, Option<String>) {
    let response = post_as(url, token, session.map(|id| (id, "2025-03-26")), body).await;
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let (challenge, id) = (
        header("www-authenticate").unwrap_or_default(),
        header("mcp-session-id"),
    );
    (status, challenge, response.text().await.unwrap(), id)
}

/// In a session too, one message or a batch of them (2025-03-26 accepts batches): the endpoint
/// checks the scopes of every message it read, and a batch with one call the token may not make
/// is refused whole, its challenge naming every scope the batch needs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_messages_and_batches_are_checked_for_the_scopes_they_name() {
    let idp = idp::start(&["rsa"]).await;
    let served = serve(&idp).await;
    let token = |scope: &str| {
        let c = claims(&idp.issuer, &served.url, scope);
        mint(Algorithm::RS256, "rsa", Some("rsa-1"), Some("at+jwt"), &c)
    };
    let (read, write) = (token("tickets:read"), token("tickets:write"));
    let url = served.url.as_str();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let (status, _, _, session) = post_in_session(url, &read, None, &init).await;
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post_in_session(url, &read, Some(&session), &initialized).await;
    let call = |id: u32, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
    };
    let count = call(1, "open_count", json!({}));
    let close = call(2, "close_ticket", json!({"id": 1}));

    // One message: the read token may count, not close.
    let (status, _, body, _) = post_in_session(url, &read, Some(&session), &count).await;
    assert_eq!(status, 200, "{body}");
    let (status, challenge, body, _) = post_in_session(url, &read, Some(&session), &close).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"tickets:write\""), "{challenge}");

    // A batch holding both: refused whole; the challenge names both calls' scopes.
    let batch = json!([count, close]);
    let (status, challenge, body, _) = post_in_session(url, &read, Some(&session), &batch).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        challenge.contains("scope=\"tickets:read tickets:write\""),
        "{challenge}"
    );
    // The same subject with the broader token: the batch runs, both answered.
    let (status, _, body, _) = post_in_session(url, &write, Some(&session), &batch).await;
    assert_eq!(status, 200, "{body}");
    let answers: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answers.as_array().map(Vec::len), Some(2), "{body}");
    assert!(
        answers
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a.get("result").is_some()),
        "{body}"
    );
}
