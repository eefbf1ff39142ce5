//! Streamable HTTP, rule by rule: status codes, headers, sessions, event streams, cancellation
//! when a stateless call's stream closes, and the security checks. Each test serves its own
//! server on 127.0.0.1:0 and talks to it with a plain HTTP client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use integration_tests::kit::{add, steps};
use mcp_runtime::http::{BearerAuth, HttpOptions, router};
use mcp_runtime::prelude::*;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::{STATELESS, Served, meta};
use test_support::wait::until;

const HANDSHAKE: &str = "2025-11-25";
/// The headers of a stateless `tools/list`.
const LIST: [(&str, &str); 2] = [
    ("mcp-protocol-version", STATELESS),
    ("mcp-method", "tools/list"),
];

// ---- the server under test ----

/// What the tools saw, for the tests to read back.
#[derive(Default)]
struct Probe {
    /// `wait_forever` runs whose future was dropped.
    dropped: AtomicUsize,
    /// `wait_forever` runs that started.
    started: AtomicUsize,
}

/// Counts a `wait_*` run as started, and as dropped when the guard it returns is.
fn running(probe: &Probe) -> impl Drop + '_ {
    struct Drops<'a>(&'a Probe);
    impl Drop for Drops<'_> {
        fn drop(&mut self) {
            self.0.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
    probe.started.fetch_add(1, Ordering::SeqCst);
    Drops(probe)
}

/// Report progress, then wait until dropped.
#[tool]
async fn wait_forever(ctx: &Context, probe: &Probe) -> String {
    let _running = running(probe);
    ctx.progress(1.0, None, Some("waiting"));
    std::future::pending::<()>().await;
    "never".into()
}

/// Wait until dropped, without a word (its answer would be plain JSON).
#[tool]
async fn wait_quietly(probe: &Probe) -> String {
    let _running = running(probe);
    std::future::pending::<()>().await;
    "never".into()
}

/// Ask the user for a colour.
#[tool]
async fn pick(ctx: &Context) -> Result<String, ToolError> {
    #[derive(Deserialize, JsonSchema)]
    struct Pick {
        color: String,
    }
    match ctx.elicit::<Pick>("Which colour?").await {
        Ok(Elicitation::Accept(p)) => Ok(format!("picked {}", p.color)),
        Ok(_) => Ok("no colour".into()),
        Err(e) => Err(e.into_tool_error("cannot ask")),
    }
}

/// How many `wait_forever` runs were dropped and started.
#[tool]
fn probe_counts(probe: &Probe) -> Vec<usize> {
    vec![
        probe.started.load(Ordering::SeqCst),
        probe.dropped.load(Ordering::SeqCst),
    ]
}

fn server() -> Server {
    Server::builder("http-test", "1.0.0")
        .state(Probe::default())
        .tools(tools![
            add,
            steps,
            wait_forever,
            wait_quietly,
            pick,
            probe_counts
        ])
        .build()
        .unwrap()
}

/// A server on a loopback port (stopped when dropped) and a client for it.
struct Endpoint {
    served: Served,
    http: reqwest::Client,
}

async fn serve(options: HttpOptions) -> Endpoint {
    serve_app(router(&server(), options)).await
}

async fn serve_app(app: axum::Router) -> Endpoint {
    Endpoint {
        served: test_support::http::serve_app(app).await,
        http: reqwest::Client::new(),
    }
}

// ---- requests ----

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("content-type", HeaderValue::from_static("application/json"));
    h.insert(
        "accept",
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    for (k, v) in pairs {
        h.insert(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    h
}

/// A stateless request body with its `_meta` envelope (extra `_meta` keys merged in).
fn stateless_body(id: u64, method: &str, mut params: Value, extra_meta: Value) -> Value {
    let mut m = meta();
    if let Value::Object(extra) = extra_meta {
        m.as_object_mut().unwrap().extend(extra);
    }
    params["_meta"] = m;
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

impl Endpoint {
    async fn post(&self, pairs: &[(&str, &str)], body: &Value) -> reqwest::Response {
        self.http
            .post(&self.served.url)
            .headers(headers(pairs))
            .body(body.to_string())
            .send()
            .await
            .unwrap()
    }

    /// A stateless call with matching headers.
    async fn stateless(&self, id: u64, method: &str, params: Value) -> reqwest::Response {
        self.post_stateless(&stateless_body(id, method, params, json!({})))
            .await
    }

    /// Posts a stateless `body` with the headers its method and tool name call for.
    async fn post_stateless(&self, body: &Value) -> reqwest::Response {
        let method = body["method"].as_str().unwrap();
        let mut pairs = vec![("mcp-protocol-version", STATELESS), ("mcp-method", method)];
        if let Some(name) = body["params"]["name"].as_str() {
            pairs.push(("mcp-name", name));
        }
        self.post(&pairs, body).await
    }

    /// A stateless `tools/list` with `extra` headers besides [`LIST`].
    async fn list_with(&self, id: u64, extra: &[(&str, &str)]) -> reqwest::Response {
        let body = stateless_body(id, "tools/list", json!({}), json!({}));
        self.post(&[&LIST[..], extra].concat(), &body).await
    }

    /// For each `(value, status)` of `cases`, a stateless `tools/list` with that `header` gets
    /// that status.
    async fn expect_statuses(&self, header: &str, cases: &[(&str, StatusCode)]) {
        for (value, status) in cases {
            let r = self.list_with(41, &[(header, value)]).await;
            assert_eq!(r.status(), *status, "{header}: {value}");
        }
    }

    /// `probe_counts`, called statelessly: how many `wait_*` runs started and were dropped.
    async fn probe_counts(&self, id: u64) -> Value {
        let v = json_body(
            self.stateless(
                id,
                "tools/call",
                json!({"name": "probe_counts", "arguments": {}}),
            )
            .await,
        )
        .await;
        v["result"]["structuredContent"]["result"].clone()
    }

    /// `initialize` (and `notifications/initialized`); the session id.
    async fn initialize(&self, capabilities: Value) -> String {
        let r = self
            .post(
                &[],
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": HANDSHAKE,
                    "capabilities": capabilities,
                    "clientInfo": {"name": "http-test", "version": "1"}
                }}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        let session = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let r = self
            .in_session(
                &session,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        session
    }

    async fn in_session(&self, session: &str, body: &Value) -> reqwest::Response {
        self.post(
            &[
                ("mcp-session-id", session),
                ("mcp-protocol-version", HANDSHAKE),
            ],
            body,
        )
        .await
    }

    /// `GET` on the endpoint in `session`: its server-to-client event stream.
    async fn get_stream(&self, session: &str) -> reqwest::Response {
        self.method(reqwest::Method::GET, &[("mcp-session-id", session)])
            .await
    }

    async fn method(&self, method: reqwest::Method, pairs: &[(&str, &str)]) -> reqwest::Response {
        self.http
            .request(method, &self.served.url)
            .headers(headers(pairs))
            .send()
            .await
            .unwrap()
    }
}

fn content_type(r: &reqwest::Response) -> String {
    r.headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

async fn json_body(r: reqwest::Response) -> Value {
    assert!(
        content_type(&r).starts_with("application/json"),
        "{}",
        content_type(&r)
    );
    serde_json::from_str(&r.text().await.unwrap()).unwrap()
}

/// A `tools/list` request of the handshake era (no `_meta` envelope).
fn session_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

/// Reads the `data:` payloads of an event stream, one message at a time.
struct Events {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buffer: String,
}

impl Events {
    fn of(r: reqwest::Response) -> Self {
        assert!(
            content_type(&r).starts_with("text/event-stream"),
            "{}",
            content_type(&r)
        );
        Events {
            stream: r.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next message; `None` when the stream ends.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                return Some(serde_json::from_str(&data.join("\n")).unwrap());
            }
            let chunk = tokio::time::timeout(HANG, self.stream.next())
                .await
                .expect("the event stream stalled")?;
            self.buffer
                .push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        }
    }

    async fn all(mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(m) = self.next().await {
            out.push(m);
        }
        out
    }
}

// ---- POST: media types and message kinds ----

#[tokio::test]
async fn a_post_must_accept_json_and_event_streams() {
    let ep = serve(HttpOptions::default()).await;
    for accept in ["application/json", "text/event-stream", "text/html"] {
        let r = ep.list_with(1, &[("accept", accept)]).await;
        assert_eq!(r.status(), StatusCode::NOT_ACCEPTABLE, "Accept: {accept}");
    }
    let r = ep
        .list_with(1, &[("accept", "application/json, text/event-stream")])
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_refused() {
    let ep = serve(HttpOptions::default()).await;
    let r = ep
        .http
        .post(&ep.served.url)
        .headers(headers(&[("content-type", "text/plain")]))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let r = ep
        .http
        .post(&ep.served.url)
        .headers(headers(&[]))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json_body(r).await["error"]["code"], -32700);
}

#[tokio::test]
async fn a_notification_gets_202_and_no_body() {
    let ep = serve(HttpOptions::default()).await;
    let session = ep.initialize(json!({})).await;
    let r = ep
        .in_session(
            &session,
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(r.text().await.unwrap(), "");
    // Stateless: a notification has nothing to answer either.
    let r = ep
        .post(
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "notifications/cancelled"),
            ],
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(r.text().await.unwrap(), "");
}

#[tokio::test]
async fn a_quiet_request_gets_one_json_response() {
    let ep = serve(HttpOptions::default()).await;
    let r = ep
        .stateless(
            7,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let v = json_body(r).await;
    assert_eq!(v["id"], 7);
    assert_eq!(v["result"]["structuredContent"], json!({"result": 5}));
}

#[tokio::test]
async fn notifications_before_the_result_turn_the_response_into_an_event_stream() {
    let ep = serve(HttpOptions::default()).await;
    for era in ["handshake", "stateless"] {
        let r = if era == "handshake" {
            let session = ep.initialize(json!({})).await;
            let mut body = call(3, "steps", json!({}));
            body["params"]["_meta"] = json!({"progressToken": "tok"});
            ep.in_session(&session, &body).await
        } else {
            let body = stateless_body(
                3,
                "tools/call",
                json!({"name": "steps", "arguments": {}}),
                json!({"progressToken": "tok", "io.modelcontextprotocol/logLevel": "info"}),
            );
            ep.post_stateless(&body).await
        };
        assert_eq!(r.status(), StatusCode::OK);
        let messages = Events::of(r).all().await;
        let methods: Vec<&str> = messages
            .iter()
            .map(|m| m["method"].as_str().unwrap_or("(response)"))
            .collect();
        assert_eq!(
            methods,
            [
                "notifications/progress",
                "notifications/message",
                "notifications/progress",
                "(response)"
            ],
            "{era}: {messages:?}"
        );
        assert_eq!(messages[0]["params"]["progressToken"], "tok");
        assert_eq!(messages[3]["id"], 3);
        assert_eq!(
            messages[3]["result"]["structuredContent"]["result"],
            "two steps"
        );
    }
}

// ---- the handshake era: sessions ----

#[tokio::test]
async fn initialize_mints_a_random_session_id() {
    let ep = serve(HttpOptions::default()).await;
    let a = ep.initialize(json!({})).await;
    let b = ep.initialize(json!({})).await;
    assert_ne!(a, b);
    for id in [&a, &b] {
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|c| c.is_ascii_hexdigit()), "{id}");
    }
}

#[tokio::test]
async fn later_requests_need_a_known_session() {
    let ep = serve(HttpOptions::default()).await;
    let session = ep.initialize(json!({})).await;
    let list = session_list();
    for (what, pairs, status) in [
        (
            "missing",
            vec![("mcp-protocol-version", HANDSHAKE)],
            StatusCode::BAD_REQUEST,
        ),
        (
            "unknown",
            vec![("mcp-session-id", "0123456789abcdef0123456789abcdef")],
            StatusCode::NOT_FOUND,
        ),
        (
            "an unsupported MCP-Protocol-Version",
            vec![
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            StatusCode::BAD_REQUEST,
        ),
    ] {
        assert_eq!(ep.post(&pairs, &list).await.status(), status, "{what}");
    }
    // Known: served, and the answer is the session's.
    let r = ep.in_session(&session, &list).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        json_body(r).await["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
}

#[tokio::test]
async fn delete_ends_a_session() {
    let ep = serve(HttpOptions::default()).await;
    let session = ep.initialize(json!({})).await;
    let other = ep.initialize(json!({})).await;
    let r = ep
        .method(reqwest::Method::DELETE, &[("mcp-session-id", &session)])
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    let list = session_list();
    assert_eq!(
        ep.in_session(&session, &list).await.status(),
        StatusCode::NOT_FOUND
    );
    let r = ep
        .method(reqwest::Method::DELETE, &[("mcp-session-id", &session)])
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // The other session is untouched.
    assert_eq!(ep.in_session(&other, &list).await.status(), StatusCode::OK);
    // Without a session id: 400.
    let r = ep.method(reqwest::Method::DELETE, &[]).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn idle_sessions_end() {
    let ep = serve(HttpOptions::default().session_idle_timeout(Duration::from_millis(50))).await;
    let idle = ep.initialize(json!({})).await;
    let streaming = ep.initialize(json!({})).await;
    let stream = ep.get_stream(&streaming).await;
    assert_eq!(stream.status(), StatusCode::OK);
    // Well past the limit; the next session to open sweeps the idle one, not the one whose
    // stream is open.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fresh = ep.initialize(json!({})).await;
    for (session, status) in [
        (&idle, StatusCode::NOT_FOUND),
        (&streaming, StatusCode::OK),
        (&fresh, StatusCode::OK),
    ] {
        let r = ep.in_session(session, &session_list()).await;
        assert_eq!(r.status(), status, "{session}");
    }
}

#[tokio::test]
async fn get_opens_one_server_stream_per_session() {
    let ep = serve(HttpOptions::default()).await;
    let session = ep.initialize(json!({})).await;
    let r = ep.get_stream(&session).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(content_type(&r).starts_with("text/event-stream"));
    // A second one while the first is open: 409.
    assert_eq!(ep.get_stream(&session).await.status(), StatusCode::CONFLICT);
    // Closing the first frees the slot (the server notices on its next poll).
    drop(r);
    until(
        "the stream freed",
        async || {
            let again = ep.get_stream(&session).await.status();
            if again != StatusCode::OK {
                assert_eq!(again, StatusCode::CONFLICT);
            }
            again
        },
        |status| *status == StatusCode::OK,
    )
    .await;
    // Unknown session: 404; none: 400.
    let unknown = ep.get_stream("ffffffffffffffffffffffffffffffff").await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let r = ep.method(reqwest::Method::GET, &[]).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn elicitation_travels_on_the_calls_event_stream() {
    let ep = serve(HttpOptions::default()).await;
    let session = ep.initialize(json!({"elicitation": {"form": {}}})).await;
    let r = ep.in_session(&session, &call(5, "pick", json!({}))).await;
    let mut events = Events::of(r);
    let ask = events.next().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "Which colour?");
    // The answer is its own POST, in the same session.
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"color": "teal"}}});
    let r = ep.in_session(&session, &answer).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let result = events.next().await.unwrap();
    assert_eq!(result["id"], 5);
    assert_eq!(
        result["result"]["structuredContent"]["result"],
        "picked teal"
    );
    assert!(
        events.next().await.is_none(),
        "the stream ends with the result"
    );
}

// ---- the stateless era ----

#[tokio::test]
async fn stateless_get_and_delete_are_not_allowed() {
    let ep = serve(HttpOptions::default()).await;
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let r = ep
            .method(method.clone(), &[("mcp-protocol-version", STATELESS)])
            .await;
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(r.headers()["allow"], "POST");
    }
    let r = ep.method(reqwest::Method::PUT, &[]).await;
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn stateless_requests_get_no_session() {
    let ep = serve(HttpOptions::default()).await;
    let r = ep.stateless(1, "server/discover", json!({})).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers().get("mcp-session-id").is_none());
    let v = json_body(r).await;
    assert!(
        v["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!(STATELESS))
    );
}

/// Sends `body` with `pairs` and expects `status` with JSON-RPC error `code` and the body's id.
async fn expect_error(
    ep: &Endpoint,
    pairs: &[(&str, &str)],
    body: &Value,
    status: StatusCode,
    code: i64,
) -> Value {
    let r = ep.post(pairs, body).await;
    assert_eq!(r.status(), status, "{pairs:?} {body}");
    let v = json_body(r).await;
    assert_eq!(v["error"]["code"], code, "{pairs:?} {body}: {v}");
    assert_eq!(v["id"], body["id"], "errors carry the request's id");
    v
}

#[tokio::test]
async fn stateless_headers_must_match_the_body() {
    let ep = serve(HttpOptions::default()).await;
    let body = stateless_body(
        11,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        json!({}),
    );
    let v = STATELESS;
    for pairs in [
        // No MCP-Protocol-Version.
        vec![("mcp-method", "tools/call"), ("mcp-name", "add")],
        // Mcp-Method missing, different, or differing in case.
        vec![("mcp-protocol-version", v), ("mcp-name", "add")],
        vec![
            ("mcp-protocol-version", v),
            ("mcp-method", "tools/list"),
            ("mcp-name", "add"),
        ],
        vec![
            ("mcp-protocol-version", v),
            ("mcp-method", "TOOLS/CALL"),
            ("mcp-name", "add"),
        ],
        // Mcp-Name missing or different.
        vec![("mcp-protocol-version", v), ("mcp-method", "tools/call")],
        vec![
            ("mcp-protocol-version", v),
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
        ],
    ] {
        expect_error(&ep, &pairs, &body, StatusCode::BAD_REQUEST, -32020).await;
    }
    // The header's version differs from `_meta`'s.
    let mut other = body.clone();
    other["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01".into();
    expect_error(
        &ep,
        &[
            ("mcp-protocol-version", v),
            ("mcp-method", "tools/call"),
            ("mcp-name", "add"),
        ],
        &other,
        StatusCode::BAD_REQUEST,
        -32020,
    )
    .await;
    // Header names are case-insensitive and values are trimmed.
    let r = ep
        .post(
            &[
                ("MCP-PROTOCOL-VERSION", v),
                ("Mcp-Method", "tools/call"),
                ("mcp-name", "  add  "),
            ],
            &body,
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn stateless_envelope_errors_map_to_http_statuses() {
    let ep = serve(HttpOptions::default()).await;
    let list = LIST;
    // Missing `_meta`: 400, -32602.
    let bare = json!({"jsonrpc": "2.0", "id": 21, "method": "tools/list", "params": {}});
    expect_error(&ep, &list, &bare, StatusCode::BAD_REQUEST, -32602).await;
    // `_meta` without capabilities: 400, -32602.
    let partial = json!({"jsonrpc": "2.0", "id": 22, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": STATELESS}}});
    expect_error(&ep, &list, &partial, StatusCode::BAD_REQUEST, -32602).await;
    // An unsupported version: 400, -32022, with the versions we support.
    let mut unknown = stateless_body(23, "tools/list", json!({}), json!({}));
    unknown["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "v999".into();
    let v = expect_error(
        &ep,
        &[
            ("mcp-protocol-version", "v999"),
            ("mcp-method", "tools/list"),
        ],
        &unknown,
        StatusCode::BAD_REQUEST,
        -32022,
    )
    .await;
    assert_eq!(v["error"]["data"]["requested"], "v999");
    assert!(
        v["error"]["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!(STATELESS))
    );
    // Unknown and removed methods: 404, -32601.
    for method in ["no/such/method", "initialize", "ping", "logging/setLevel"] {
        let body = stateless_body(24, method, json!({}), json!({}));
        expect_error(
            &ep,
            &[("mcp-protocol-version", STATELESS), ("mcp-method", method)],
            &body,
            StatusCode::NOT_FOUND,
            -32601,
        )
        .await;
    }
}

#[tokio::test]
async fn closing_a_stateless_stream_cancels_the_call() {
    let ep = serve(HttpOptions::default()).await;
    let body = stateless_body(
        31,
        "tools/call",
        json!({"name": "wait_forever", "arguments": {}}),
        json!({"progressToken": 1}),
    );
    let r = ep.post_stateless(&body).await;
    let mut events = Events::of(r);
    let first = events.next().await.unwrap();
    assert_eq!(first["method"], "notifications/progress");
    // The tool is running; the client goes away.
    drop(events);
    until(
        "the call cancelled",
        async || {
            let counts = ep.probe_counts(32).await;
            assert_eq!(counts[0], 1, "{counts}");
            counts
        },
        |counts| counts[1] == 1,
    )
    .await;
}

#[tokio::test]
async fn a_stateless_client_that_hangs_up_before_any_answer_cancels_the_call() {
    let ep = serve(HttpOptions::default()).await;
    let pending = ep.stateless(
        33,
        "tools/call",
        json!({"name": "wait_quietly", "arguments": {}}),
    );
    // Wait until the tool runs, then hang up (drop the request future).
    let probe = until(
        "the tool started",
        async || ep.probe_counts(34).await,
        |counts| counts[0] == 1,
    );
    tokio::select! {
        _ = pending => panic!("wait_quietly answered"),
        _ = probe => {}
    }
    until(
        "the call cancelled",
        async || ep.probe_counts(35).await,
        |counts| counts[1] == 1,
    )
    .await;
}

// ---- security ----

/// Options to serve with, a header, and the status each of its values gets.
type GuardCase = (
    HttpOptions,
    &'static str,
    &'static [(&'static str, StatusCode)],
);

/// The Origin and Host guards (DNS rebinding): each header value under the options it is served
/// with, and the status it gets.
#[tokio::test]
async fn origins_and_hosts_are_checked() {
    use StatusCode as S;
    let any = HttpOptions::default;
    let cases: [GuardCase; 4] = [
        (
            any().allow_origin("https://app.example.com"),
            "origin",
            &[
                ("http://evil.example.com", S::FORBIDDEN),
                ("null", S::FORBIDDEN),
                ("http://localhost.evil.com", S::FORBIDDEN),
                ("http://localhost:5173", S::OK),
                ("http://127.0.0.1", S::OK),
                ("https://app.example.com", S::OK),
            ],
        ),
        // Localhost origins can be refused too.
        (
            any().deny_localhost_origins(),
            "origin",
            &[("http://localhost:5173", S::FORBIDDEN)],
        ),
        (
            any(),
            "host",
            &[
                ("evil.example.com", S::FORBIDDEN),
                ("evil.example.com:80", S::FORBIDDEN),
                ("localhost:1234", S::OK),
                ("127.0.0.1", S::OK),
                ("[::1]:8080", S::OK),
            ],
        ),
        (
            any().allow_host("mcp.example.com"),
            "host",
            &[("mcp.example.com:443", S::OK)],
        ),
    ];
    for (options, header, expected) in cases {
        serve(options).await.expect_statuses(header, expected).await;
    }
    // Every method is checked, not only POST.
    let ep = serve(any()).await;
    let r = ep
        .method(
            reqwest::Method::GET,
            &[("origin", "http://evil.example.com")],
        )
        .await;
    assert_eq!(r.status(), S::FORBIDDEN);
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let ep = serve(HttpOptions::default().max_body_bytes(1024)).await;
    let big = stateless_body(
        61,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2, "pad": "x".repeat(2000)}}),
        json!({}),
    );
    assert_eq!(
        ep.post_stateless(&big).await.status(),
        StatusCode::PAYLOAD_TOO_LARGE
    );
    let small = ep
        .stateless(
            62,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        )
        .await;
    assert_eq!(small.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_bearer_token_layer_guards_the_endpoint() {
    let app = router(&server(), HttpOptions::default()).layer(BearerAuth::new("s3cret"));
    let ep = serve_app(app).await;
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Bearer s3cre"),
        Some("Basic s3cret"),
    ] {
        let extra: Vec<_> = auth.map(|a| ("authorization", a)).into_iter().collect();
        let r = ep.list_with(71, &extra).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(r.headers()["www-authenticate"], "Bearer");
    }
    let r = ep
        .list_with(71, &[("authorization", "Bearer s3cret")])
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_endpoint_path_is_configurable() {
    let ep = serve(HttpOptions::default().path("/api/tools")).await;
    let base = ep.served.url.trim_end_matches("/mcp").to_owned();
    let body = stateless_body(81, "tools/list", json!({}), json!({}));
    let h = headers(&LIST);
    let at = |path: &str| {
        ep.http
            .post(format!("{base}{path}"))
            .headers(h.clone())
            .body(body.to_string())
            .send()
    };
    assert_eq!(at("/mcp").await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(at("/api/tools").await.unwrap().status(), StatusCode::OK);
}

/// `serve_http_on` answers at the endpoint's path and nowhere else, as `router` does: a literal
/// path is compared by the listener itself, one with a capture is matched by the router.
#[tokio::test]
async fn serve_http_on_answers_at_the_endpoint_path_only() {
    let body = stateless_body(82, "tools/list", json!({}), json!({}));
    let http = reqwest::Client::new();
    let cases: [(&str, &[(&str, StatusCode)]); 3] = [
        (
            "/mcp",
            &[
                ("/mcp", StatusCode::OK),
                ("/mcp/", StatusCode::NOT_FOUND),
                ("/MCP", StatusCode::NOT_FOUND),
                ("/other", StatusCode::NOT_FOUND),
                ("/", StatusCode::NOT_FOUND),
                ("/mcp?x=1", StatusCode::OK),
            ],
        ),
        (
            "/api/tools",
            &[
                ("/api/tools", StatusCode::OK),
                ("/mcp", StatusCode::NOT_FOUND),
                ("/api", StatusCode::NOT_FOUND),
            ],
        ),
        (
            "/t/{tenant}/mcp",
            &[
                ("/t/acme/mcp", StatusCode::OK),
                ("/t/mcp", StatusCode::NOT_FOUND),
                ("/mcp", StatusCode::NOT_FOUND),
            ],
        ),
    ];
    for (path, expected) in cases {
        let served =
            test_support::http::serve_guarded(&server(), HttpOptions::default().path(path)).await;
        for &(at, status) in expected {
            let r = http
                .post(format!("http://{}{at}", served.addr))
                .headers(headers(&LIST))
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), status, "{at} on an endpoint at {path}");
            let text = r.text().await.unwrap();
            if status == StatusCode::OK {
                assert!(text.contains(r#""tools":["#), "{at}: {text}");
            } else {
                assert_eq!(text, "", "{at}");
            }
        }
        // Any method reaches the endpoint, which answers those it does not serve with 405.
        let r = http
            .put(format!("http://{}{}", served.addr, expected[0].0))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{path}");
        assert!(r.headers().contains_key("allow"), "{path}");
    }
}

/// A path that does not start with `/` is refused when serving starts, as `router` refuses it,
/// not served as an endpoint that answers nothing but 404.
#[tokio::test]
#[should_panic(expected = "must start with a `/`")]
async fn serve_http_on_refuses_a_path_without_a_leading_slash() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let options = HttpOptions::default().path("mcp");
    // Serving would run forever: a second passing without the panic fails the test.
    let server = server();
    let serving = server.serve_http_on(listener, options);
    let _ = tokio::time::timeout(Duration::from_secs(1), serving).await;
}

/// Many sessions and stateless calls at once keep their answers apart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sessions_get_their_own_answers() {
    let ep = Arc::new(serve(HttpOptions::default()).await);
    let mut tasks = Vec::new();
    for i in 0..8i64 {
        let ep = ep.clone();
        tasks.push(tokio::spawn(async move {
            let session = ep.initialize(json!({})).await;
            for j in 0..10i64 {
                let r = ep
                    .in_session(&session, &call(j as u64, "add", json!({"a": i, "b": j})))
                    .await;
                let v = json_body(r).await;
                assert_eq!(v["id"], j);
                assert_eq!(v["result"]["structuredContent"]["result"], i + j);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}
