//! The HTTP endpoint as an OAuth 2.1 resource server (feature `auth`), against a small
//! authorization server of the test's own on loopback (`idp.rs`) and tokens signed with the
//! test's keys: the hostile-token battery (status and challenge of each case, the server alive
//! after, the JWKS fetched a bounded number of times), key rotation and an unreachable JWKS,
//! introspection, Protected Resource Metadata, scopes and their hierarchy, the principal in
//! the tool, and a session bound to its creator.

pub mod battery;
pub mod declared;
pub mod flows;
pub mod idp;

use std::time::Duration;

use mcp_runtime::auth::{JwtValidator, ResourceServer};
use mcp_runtime::http::HttpOptions;
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use test_support::http::{Served, serve_guarded, stateless_call};

/// List the tasks (needs `tasks:read`).
#[tool]
fn list_tasks() -> Vec<String> {
    vec!["write the tests".into()]
}

/// Add a task (needs `tasks:write`).
#[tool]
fn add_task(title: String) -> String {
    format!("added {title}")
}

/// Who is calling: the verified principal's subject and tenant claim.
#[tool]
fn whoami(ctx: &Context) -> String {
    match ctx.principal() {
        Some(p) => {
            let tenant = p.claim::<String>("tenant").and_then(Result::ok);
            format!(
                "{} of {} via {}",
                p.subject().unwrap_or("-"),
                tenant.as_deref().unwrap_or("-"),
                p.client_id().unwrap_or("-")
            )
        }
        None => "nobody".into(),
    }
}

/// The server under test.
pub fn server() -> Server {
    Server::builder("guarded", "1.0.0")
        .tools(tools![list_tasks, add_task, whoami])
        .build()
        .unwrap()
}

/// The scopes of the tasks example, over `validator` for `issuer`.
pub fn resource_server(
    issuer: &str,
    validator: impl mcp_runtime::auth::TokenValidator,
) -> ResourceServer {
    ResourceServer::new(issuer, validator)
        .tool_scopes("list_tasks", ["tasks:read"])
        .tool_scopes("add_task", ["tasks:write"])
        .scope_implies("tasks:admin", "tasks:write")
        .scope_implies("tasks:write", "tasks:read")
}

/// The server behind a JWT validator for `issuer` (keys discovered), refreshing at most every
/// `refresh` and keeping keys `ttl`.
pub async fn serve_jwt(issuer: &str, refresh: Duration, ttl: Duration) -> Served {
    let validator = JwtValidator::builder(issuer)
        .refresh_interval(refresh)
        .jwks_ttl(ttl)
        .fetch_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let auth = resource_server(issuer, validator);
    serve_guarded(&server(), HttpOptions::default().authorization(auth)).await
}

/// Standard claims for `resource` from `issuer`, with `scope`, valid for ten minutes.
pub fn claims(issuer: &str, resource: &str, scope: &str) -> Value {
    let now = idp::now();
    json!({"iss": issuer, "aud": resource, "sub": "alice", "client_id": "cli",
           "exp": now + 600, "iat": now, "scope": scope, "tenant": "acme"})
}

/// A stateless call's answer: status, `WWW-Authenticate`, body.
pub struct Answer {
    pub status: u16,
    pub challenge: Option<String>,
    pub body: String,
}

impl Answer {
    /// The `error` of the challenge, if any.
    pub fn error(&self) -> Option<&str> {
        let c = self.challenge.as_deref()?;
        let start = c.find("error=\"")? + 7;
        Some(&c[start..start + c[start..].find('"')?])
    }

    /// The text of a tool result.
    pub fn text(&self) -> String {
        let v: Value = serde_json::from_str(&self.body).unwrap_or(Value::Null);
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// A stateless `tools/call` of `tool` with `authorization` header values (each one header).
pub async fn call_with(url: &str, authorization: &[&str], tool: &str, args: Value) -> Answer {
    let body = stateless_call(1, tool, args);
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", test_support::http::STATELESS)
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string());
    for value in authorization {
        request = request.header("authorization", *value);
    }
    let response = request.send().await.unwrap();
    Answer {
        status: response.status().as_u16(),
        challenge: response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_owned()),
        body: response.text().await.unwrap(),
    }
}

/// A stateless call with `Authorization: Bearer <token>`.
pub async fn call(url: &str, token: &str, tool: &str) -> Answer {
    call_with(url, &[&format!("Bearer {token}")], tool, json!({})).await
}

/// A POST of `body` to `url` with `token`, in a session if given (its id and the protocol
/// version it negotiated).
pub async fn post_as(
    url: &str,
    token: &str,
    session: Option<(&str, &str)>,
    body: &Value,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"))
        .body(body.to_string());
    if let Some((id, version)) = session {
        request = request
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", version);
    }
    request.send().await.unwrap()
}
