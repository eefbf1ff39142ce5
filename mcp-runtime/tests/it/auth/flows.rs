//! Everything around the battery: metadata, the principal in the tool, a session bound to its
//! creator, key rotation, an unreachable JWKS with and without keys held, introspection.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_runtime::auth::Algorithm;
use mcp_runtime::auth::{CachedValidator, IntrospectionValidator, JwtValidator};
use mcp_runtime::http::HttpOptions;
use mcp_runtime::http::MemorySessionStore;
use serde_json::{Value, json};
use test_support::http::serve_guarded;

use super::idp::{self, mint};
use super::{call, call_with, claims, post_as, resource_server, serve_jwt, server};

fn rs(claims: &Value, key: &str, kid: &str) -> String {
    mint(Algorithm::RS256, key, Some(kid), Some("at+jwt"), claims)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_is_served_outside_auth_at_both_paths() {
    let idp = idp::start(&["rsa"]).await;
    let served = serve_jwt(&idp.issuer, Duration::from_secs(1), Duration::from_secs(60)).await;
    let base = format!("http://{}", served.addr);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let doc: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(
            doc,
            json!({
                "resource": served.url,
                "authorization_servers": [idp.issuer],
                "scopes_supported": ["tasks:admin", "tasks:read", "tasks:write"],
                "bearer_methods_supported": ["header"],
            })
        );
    }
    // CORS preflight is not behind auth (it goes to the endpoint, which does not serve OPTIONS).
    let preflight = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, &served.url)
        .send()
        .await
        .unwrap();
    assert_ne!(preflight.status(), 401);
    assert!(preflight.headers().get("www-authenticate").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_sees_the_principal_never_the_token() {
    let idp = idp::start(&["rsa"]).await;
    let served = serve_jwt(&idp.issuer, Duration::from_secs(1), Duration::from_secs(60)).await;
    let token = rs(
        &claims(&idp.issuer, &served.url, "tasks:read"),
        "rsa",
        "rsa-1",
    );
    let answer = call(&served.url, &token, "whoami").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.text(), "alice of acme via cli");
    assert!(!answer.body.contains(&token));
}

/// The version the sessions here negotiate.
const V: &str = "2025-11-25";

/// Opens a session at `url` with `token`: its id.
async fn open_session(url: &str, token: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let response = post_as(url, token, None, &init).await;
    assert_eq!(response.status(), 200);
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post_as(url, token, Some((&session, V)), &initialized).await;
    assert_eq!(response.status(), 202);
    session
}

/// `whoami` on `session`: the status, and the tool's text when it answered.
async fn whoami_on(url: &str, token: &str, session: &str) -> (u16, Option<String>) {
    let whoami = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}});
    let response = post_as(url, token, Some((session, V)), &whoami).await;
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    let text = serde_json::from_str::<Value>(&body).ok().and_then(|v| {
        v["result"]["content"][0]["text"]
            .as_str()
            .map(str::to_owned)
    });
    (status, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_bound_to_the_subject_that_opened_it() {
    let idp = idp::start(&["rsa"]).await;
    let served = serve_jwt(&idp.issuer, Duration::from_secs(1), Duration::from_secs(60)).await;
    let alice = rs(
        &claims(&idp.issuer, &served.url, "tasks:read"),
        "rsa",
        "rsa-1",
    );
    let mut bob_claims = claims(&idp.issuer, &served.url, "tasks:read");
    bob_claims["sub"] = json!("bob");
    let bob = rs(&bob_claims, "rsa", "rsa-1");
    let session = open_session(&served.url, &alice).await;
    assert_eq!(whoami_on(&served.url, &bob, &session).await, (404, None));
    let (status, text) = whoami_on(&served.url, &alice, &session).await;
    assert_eq!(status, 200);
    assert_eq!(text.as_deref(), Some("alice of acme via cli"));
    // `DELETE` and the `GET` stream are refused to another subject the same way.
    let client = reqwest::Client::new();
    let with = |method: reqwest::Method, token: &str| {
        client
            .request(method, &served.url)
            .header("accept", "text/event-stream")
            .header("authorization", format!("Bearer {token}"))
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
    };
    let get = with(reqwest::Method::GET, &bob).await.unwrap();
    assert_eq!(get.status(), 404);
    let delete = with(reqwest::Method::DELETE, &bob).await.unwrap();
    assert_eq!(delete.status(), 404);
    assert_eq!(whoami_on(&served.url, &alice, &session).await.0, 200);
}

/// The binding lives in the session's record: a replica that never saw the session (a fleet
/// sharing one store) refuses its id to another subject too, and serves its owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_refused_to_another_subject_on_every_replica() {
    let idp = idp::start(&["rsa"]).await;
    let resource = "http://mcp.fleet.test/mcp";
    let store = Arc::new(MemorySessionStore::default());
    let mut replicas = Vec::new();
    for _ in 0..2 {
        let validator = JwtValidator::builder(&idp.issuer)
            .fetch_timeout(Duration::from_secs(2))
            .build()
            .unwrap();
        let auth = resource_server(&idp.issuer, validator).resource(resource);
        let options = HttpOptions::default()
            .authorization(auth)
            .session_store(store.clone());
        replicas.push(serve_guarded(&server(), options).await);
    }
    let alice = rs(&claims(&idp.issuer, resource, "tasks:read"), "rsa", "rsa-1");
    let mut bob_claims = claims(&idp.issuer, resource, "tasks:read");
    bob_claims["sub"] = json!("bob");
    let bob = rs(&bob_claims, "rsa", "rsa-1");
    // A token issued to a client whose id is alice's subject, without `sub`: not alice.
    let mut client_claims = claims(&idp.issuer, resource, "tasks:read");
    client_claims.as_object_mut().unwrap().remove("sub");
    client_claims["client_id"] = json!("alice");
    let client_alice = rs(&client_claims, "rsa", "rsa-1");

    let session = open_session(&replicas[0].url, &alice).await;
    let other = &replicas[1].url;
    assert_eq!(whoami_on(other, &bob, &session).await, (404, None));
    assert_eq!(whoami_on(other, &client_alice, &session).await, (404, None));
    let (status, text) = whoami_on(other, &alice, &session).await;
    assert_eq!(status, 200);
    assert_eq!(text.as_deref(), Some("alice of acme via cli"));
    // Served on the second replica now, still refused there to bob.
    assert_eq!(whoami_on(other, &bob, &session).await, (404, None));
    assert_eq!(
        whoami_on(&replicas[0].url, &bob, &session).await,
        (404, None)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_taken_and_the_removed_one_refused_after_the_ttl() {
    let idp = idp::start(&["rsa"]).await;
    let ttl = Duration::from_millis(600);
    let served = serve_jwt(&idp.issuer, Duration::from_millis(200), ttl).await;
    let c = claims(&idp.issuer, &served.url, "tasks:read");
    let old = rs(&c, "rsa", "rsa-1");
    let new = rs(&c, "rsa2", "rsa-2");
    assert_eq!(call(&served.url, &old, "list_tasks").await.status, 200);
    assert_eq!(call(&served.url, &new, "list_tasks").await.status, 401);
    *idp.knobs.jwks.lock().unwrap() = idp::jwks_of(&["rsa2"]);
    tokio::time::sleep(Duration::from_millis(250)).await;
    // The unknown kid refreshes the set: the new key is taken at once.
    assert_eq!(call(&served.url, &new, "list_tasks").await.status, 200);
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    let answer = call(&served.url, &old, "list_tasks").await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(call(&served.url, &new, "list_tasks").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_jwks_keeps_the_keys_held_and_fails_closed_without() {
    // With keys held: they keep working past their TTL while the JWKS is down.
    let idp = idp::start(&["rsa"]).await;
    let ttl = Duration::from_millis(300);
    let served = serve_jwt(&idp.issuer, Duration::from_millis(100), ttl).await;
    let token = rs(
        &claims(&idp.issuer, &served.url, "tasks:read"),
        "rsa",
        "rsa-1",
    );
    assert_eq!(call(&served.url, &token, "list_tasks").await.status, 200);
    idp.knobs.jwks_down.store(true, Ordering::SeqCst);
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    assert_eq!(call(&served.url, &token, "list_tasks").await.status, 200);
    assert!(idp.jwks_fetches() >= 2, "the stale set was not refreshed");

    // With none: refused (503, nothing to check against), many times, at one fetch per interval.
    let down = idp::start(&["rsa"]).await;
    down.knobs.jwks_down.store(true, Ordering::SeqCst);
    let served = serve_jwt(&down.issuer, Duration::from_secs(60), ttl).await;
    let token = rs(
        &claims(&down.issuer, &served.url, "tasks:read"),
        "rsa",
        "rsa-1",
    );
    for _ in 0..20 {
        let answer = call(&served.url, &token, "list_tasks").await;
        assert_eq!(answer.status, 503, "{}", answer.body);
    }
    assert_eq!(down.jwks_fetches(), 1);
    // Up again: still refused until the interval has passed (fail closed, IdP spared).
    down.knobs.jwks_down.store(false, Ordering::SeqCst);
    assert_eq!(call(&served.url, &token, "list_tasks").await.status, 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_checks_active_audience_expiry_and_times_out() {
    let idp = idp::start(&[]).await;
    let validator = IntrospectionValidator::builder(format!("{}/introspect", idp.issuer))
        .client_credentials("mcp-server", "s3cret")
        .issuer(idp.issuer.clone())
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let auth = resource_server(&idp.issuer, validator);
    let served = serve_guarded(&server(), HttpOptions::default().authorization(auth)).await;
    let answer = |active: bool, aud: &str, exp: u64| {
        json!({"active": active, "aud": aud, "exp": exp, "iss": idp.issuer,
               "sub": "carol", "client_id": "c", "scope": "tasks:write"})
    };
    let later = idp::now() + 600;
    *idp.knobs.introspection.lock().unwrap() = answer(true, &served.url, later);
    assert_eq!(
        call(&served.url, "opaque-1", "list_tasks").await.status,
        200
    );
    assert_eq!(
        idp.knobs.introspection_auth.lock().unwrap().as_deref(),
        Some("Basic bWNwLXNlcnZlcjpzM2NyZXQ=")
    );
    let whoami = call(&served.url, "opaque-1", "whoami").await;
    assert_eq!(whoami.text(), "carol of - via c");
    for (case, status) in [
        (answer(false, &served.url, later), 401),
        (answer(true, "http://elsewhere/mcp", later), 401),
        (answer(true, &served.url, idp::now() - 3600), 401),
        (json!({"active": true, "aud": served.url}), 401),
        (
            json!({"active": "true", "aud": served.url, "exp": later}),
            401,
        ),
    ] {
        *idp.knobs.introspection.lock().unwrap() = case.clone();
        let got = call(&served.url, "opaque-2", "list_tasks").await;
        assert_eq!(got.status, status, "{case}: {}", got.body);
        assert_eq!(got.error(), Some("invalid_token"));
    }
    // Slow: refused at the timeout, and the server serves on.
    *idp.knobs.introspection.lock().unwrap() = answer(true, &served.url, later);
    *idp.knobs.introspection_delay.lock().unwrap() = Duration::from_secs(2);
    let started = std::time::Instant::now();
    assert_eq!(
        call(&served.url, "opaque-3", "list_tasks").await.status,
        503
    );
    assert!(started.elapsed() < Duration::from_millis(1500));
    *idp.knobs.introspection_delay.lock().unwrap() = Duration::ZERO;
    assert_eq!(
        call(&served.url, "opaque-3", "list_tasks").await.status,
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_verifies_a_token_once_and_an_audience_can_be_set() {
    let idp = idp::start(&[]).await;
    let validator = IntrospectionValidator::builder(format!("{}/introspect", idp.issuer))
        .audience("api://tasks")
        .build()
        .unwrap();
    let auth = resource_server(&idp.issuer, CachedValidator::new(validator));
    let served = serve_guarded(&server(), HttpOptions::default().authorization(auth)).await;
    *idp.knobs.introspection.lock().unwrap() = json!({"active": true, "aud": ["api://tasks"], "exp": idp::now() + 600, "scope": "tasks:read"});
    for _ in 0..5 {
        assert_eq!(call(&served.url, "opaque", "list_tasks").await.status, 200);
    }
    assert_eq!(idp.knobs.introspections.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audience_set_replaces_the_resource_uri() {
    let idp = idp::start(&["ec"]).await;
    let jwt = JwtValidator::builder(&idp.issuer)
        .audience("api://tasks")
        .build()
        .unwrap();
    let auth = resource_server(&idp.issuer, jwt);
    let served = serve_guarded(&server(), HttpOptions::default().authorization(auth)).await;
    let mut c = claims(&idp.issuer, &served.url, "tasks:read");
    let es = |c: &Value| mint(Algorithm::ES256, "ec", Some("ec-1"), Some("at+jwt"), c);
    assert_eq!(call(&served.url, &es(&c), "list_tasks").await.status, 401);
    c["aud"] = json!("api://tasks");
    assert_eq!(call(&served.url, &es(&c), "list_tasks").await.status, 200);
    let answer = call_with(
        &served.url,
        &[&format!("Bearer {}", es(&c))],
        "add_task",
        json!({"title": "x"}),
    )
    .await;
    assert_eq!(answer.status, 403);
}

/// Only ever a task: waits a little, then answers.
#[mcp_runtime::tool(task = "required")]
async fn slow_report() -> String {
    tokio::time::sleep(Duration::from_millis(50)).await;
    "report ready".into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_task_is_its_principals_alone() {
    let idp = idp::start(&["rsa"]).await;
    let validator = JwtValidator::builder(&idp.issuer).build().unwrap();
    let server = mcp_runtime::Server::builder("tasks", "1.0.0")
        .tools(mcp_runtime::tools![slow_report])
        .build()
        .unwrap();
    let auth = mcp_runtime::auth::ResourceServer::new(&idp.issuer, validator);
    let served = serve_guarded(&server, HttpOptions::default().authorization(auth)).await;
    let token = |sub: &str| {
        let mut c = claims(&idp.issuer, &served.url, "");
        c["sub"] = json!(sub);
        rs(&c, "rsa", "rsa-1")
    };
    let (alice, bob) = (token("alice"), token("bob"));
    let post = |token: String, method: &'static str, name: String, mut params: Value| {
        params["_meta"] = test_support::http::meta();
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let request = reqwest::Client::new()
            .post(&served.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", test_support::http::STATELESS)
            .header("mcp-method", method)
            .header("mcp-name", name)
            .header("authorization", format!("Bearer {token}"))
            .body(body.to_string());
        async move {
            let text = request.send().await.unwrap().text().await.unwrap();
            serde_json::from_str::<Value>(&text).unwrap()
        }
    };
    let created = post(
        alice.clone(),
        "tools/call",
        "slow_report".into(),
        json!({"name": "slow_report", "arguments": {}}),
    )
    .await;
    let id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_owned();
    let params = json!({"taskId": id});
    let stolen = post(bob.clone(), "tasks/get", id.clone(), params.clone()).await;
    assert!(
        stolen["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no task"),
        "{stolen}"
    );
    let cancelled = post(bob, "tasks/cancel", id.clone(), params.clone()).await;
    assert!(cancelled.get("error").is_some(), "{cancelled}");
    let own = post(alice, "tasks/get", id.clone(), params).await;
    assert_eq!(own["result"]["taskId"], json!(id), "{own}");
}
