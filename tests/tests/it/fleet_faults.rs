//! A fleet under faults: three replicas of the kit's `http_replica`, their sessions and streams in
//! one Redis, behind nginx balancing round-robin with no stickiness.
//!
//! - A replica killed mid-call (`tests/py/fleet_faults.py`, the official Python client in
//!   `mode="legacy"`): the client's stream breaks, it resumes the stream with `Last-Event-ID` on a
//!   live replica, which replays what the dead one wrote and ends the call with a JSON-RPC error
//!   once its lease lapsed; every later call of the session answers, on the two replicas left.
//! - Redis stopped and started again under load (sessions of the 2025 era, eight clients calling
//!   in a loop, and stateless calls beside them): while Redis is down, session requests are
//!   refused with `503` and a JSON-RPC error (`-32000`), stateless calls go on; Redis comes back
//!   empty (its sessions are gone: `404`, and the clients open new ones); every client's calls
//!   then succeed again, every replica is still running, and once the clients end their sessions
//!   no session or task key is left in Redis.
//!
//! Needs Debian's `redis-server` and `nginx` (and `<repo>/.venv` for the first); without them the
//! tests say why and pass, unless `MCP_INTEROP_REQUIRED` is set (`.ci/run` sets it).

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use integration_tests::python::{python_with_sdk, run_script};
use serde_json::{Value, json};
use test_support::http::{STATELESS, stateless_call};
use test_support::nginx::{Nginx, spawn_replica};
use test_support::redis::Redis;
use test_support::redis_cluster::RedisLike;
use tokio::process::Child;
use tokio::task::JoinHandle;

const REPLICA: &str = env!("CARGO_BIN_EXE_http_replica");
const REPLICAS: usize = 3;

/// Three replicas on `redis` (one Redis or a cluster) behind nginx.
pub(crate) async fn fleet(redis: &impl RedisLike) -> Option<(Vec<(Child, String)>, Nginx)> {
    let mut replicas = Vec::new();
    for _ in 0..REPLICAS {
        replicas.push(spawn_replica(REPLICA, &["0", redis.url()]).await);
    }
    let addrs: Vec<String> = replicas.iter().map(|(_, addr)| addr.clone()).collect();
    let proxy = Nginx::start(&addrs).await?;
    Some((replicas, proxy))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_call_ends_that_call_with_an_error_and_the_session_goes_on() {
    let Some(python) = python_with_sdk() else {
        return;
    };
    let Some(redis) = Redis::start() else { return };
    let Some((mut replicas, proxy)) = fleet(&redis).await else {
        return;
    };
    let url = proxy.url.clone();
    let stdout = tokio::task::spawn_blocking(move || {
        run_script(&python, "tests/py/fleet_faults.py", &[&url, "30"])
    })
    .await
    .unwrap();
    for check in [
        "ok fleet a replica was killed mid-call",
        "ok fleet the call ended with a JSON-RPC error on the resumed stream",
        "ok fleet 30 later calls all answered",
        "ok fleet the later calls reached both live replicas",
    ] {
        assert!(stdout.contains(check), "{check}: {stdout}");
    }
    let dead = replicas
        .iter_mut()
        .filter_map(|(child, _)| child.try_wait().ok().flatten())
        .count();
    assert_eq!(dead, 1, "exactly the killed replica stopped");
    let resumed = proxy.resumptions();
    eprintln!(
        "the killed call's stream resumed (writer -> resumer): {resumed:#?}; POSTs per replica {:?}",
        proxy.served("POST")
    );
    assert!(
        resumed
            .iter()
            .any(|r| r.status == 200 && r.writer.as_deref() != Some(r.resumer.as_str())),
        "{resumed:?}"
    );
}

/// What one client saw, by outcome.
pub(crate) type Outcomes = BTreeMap<String, usize>;

/// A client of the 2025 era calling `add` in a loop until `stop`: a new session whenever it has
/// none (or its session is gone); each outcome counted, and whether its last calls succeeded.
pub(crate) async fn session_client(url: String, stop: Arc<AtomicBool>) -> (Outcomes, Vec<bool>) {
    let http = reqwest::Client::new();
    let mut outcomes = Outcomes::new();
    let mut recent = Vec::new();
    let mut session: Option<String> = None;
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let Some(id) = &session else {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "load", "version": "1"}}});
            let (status, id, _) =
                common::post_in_session(&http, &url, None, "2025-06-18", init).await;
            *outcomes.entry(format!("initialize {status}")).or_default() += 1;
            session = id;
            if session.is_none() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            continue;
        };
        let call = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": n, "b": 1}}});
        let (status, _, answer) =
            common::post_in_session(&http, &url, Some(id), "2025-06-18", call).await;
        let outcome = match (status, answer.first()) {
            (200, Some(a)) if a["result"]["structuredContent"]["result"] == n + 1 => "ok".into(),
            (status, Some(a)) if a.get("error").is_some() => {
                format!("{status} error {}", a["error"]["code"])
            }
            (status, _) => format!("{status} other"),
        };
        recent.push(outcome == "ok");
        if status == 404 {
            session = None;
        }
        *outcomes.entry(outcome).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    if let Some(id) = session {
        let _ = http.delete(&url).header("mcp-session-id", id).send().await;
    }
    (outcomes, recent)
}

/// Stateless calls in a loop until `stop`: how many answered, how many did not.
pub(crate) async fn stateless_client(url: String, stop: Arc<AtomicBool>) -> (usize, usize) {
    let http = reqwest::Client::new();
    let (mut ok, mut failed) = (0, 0);
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let response = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", STATELESS)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "add")
            .body(stateless_call(n, "add", json!({"a": n, "b": 1})).to_string())
            .send()
            .await;
        let answered = match response {
            Ok(r) if r.status() == 200 => r.text().await.is_ok_and(|t| {
                let v: Value = serde_json::from_str(&t).unwrap_or_default();
                v["result"]["structuredContent"]["result"] == n + 1
            }),
            _ => false,
        };
        if answered {
            ok += 1
        } else {
            failed += 1
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (ok, failed)
}

/// The load of the fault tests: eight [`session_client`]s and a [`stateless_client`], calling
/// through one URL until [`Load::recovered`].
pub(crate) struct Load {
    stop: Arc<AtomicBool>,
    clients: Vec<JoinHandle<(Outcomes, Vec<bool>)>>,
    stateless: JoinHandle<(usize, usize)>,
}

impl Load {
    /// The clients started on `url`.
    pub(crate) fn start(url: &str) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let clients = (0..8)
            .map(|_| tokio::spawn(session_client(url.to_owned(), stop.clone())))
            .collect();
        let stateless = tokio::spawn(stateless_client(url.to_owned(), stop.clone()));
        Load {
            stop,
            clients,
            stateless,
        }
    }

    /// Four seconds more (long enough for every client to be served again, a new session
    /// opened where its own is gone), then the clients stopped: each session client's last 20
    /// calls answered (asserted); the outcomes of them all, and the stateless calls answered
    /// and not.
    pub(crate) async fn recovered(self) -> (Outcomes, (usize, usize)) {
        tokio::time::sleep(Duration::from_secs(4)).await;
        self.stop.store(true, Ordering::SeqCst);
        let mut total = Outcomes::new();
        for client in self.clients {
            let (outcomes, recent) = client.await.unwrap();
            let tail = &recent[recent.len().saturating_sub(20)..];
            assert!(
                tail.len() == 20 && tail.iter().all(|ok| *ok),
                "a client had not recovered: {outcomes:?}"
            );
            for (outcome, n) in outcomes {
                *total.entry(outcome).or_default() += n;
            }
        }
        (total, self.stateless.await.unwrap())
    }
}

/// The outcomes in `total` that no store fault explains: none but an answer, an `initialize`
/// (200, or 503 while the store is down), a `503` with `-32000` (the store unavailable) or a
/// `404` with `-32600` (a session the store lost).
pub(crate) fn unexpected(total: &Outcomes) -> Vec<&String> {
    total
        .keys()
        .filter(|o| {
            !matches!(o.as_str(), "ok" | "initialize 200" | "initialize 503")
                && !o.starts_with("503 error -32000")
                && !o.starts_with("404 error -32600")
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_stopped_and_restarted_under_load_refuses_clearly_then_recovers() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let Some((mut replicas, proxy)) = fleet(&redis).await else {
        return;
    };
    let load = Load::start(&proxy.url);

    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = proxy.served("POST").values().sum::<usize>();
    redis.stop();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let during = proxy.served("POST").values().sum::<usize>() - before;
    redis.restart();
    let (total, (stateless_ok, stateless_failed)) = load.recovered().await;
    eprintln!(
        "Redis stopped for 2 s and restarted empty under load: session outcomes {total:?}; \
         stateless calls {stateless_ok} answered, {stateless_failed} not; {during} requests \
         while it was down; POSTs per replica {:?}",
        proxy.served("POST")
    );
    // While Redis was down: refusals that say so, nothing else.
    assert!(unexpected(&total).is_empty(), "{total:?}");
    assert!(
        total.get("503 error -32000").is_some_and(|n| *n > 0),
        "{total:?}"
    );
    assert!(
        total.get("404 error -32600").is_some_and(|n| *n > 0),
        "{total:?}"
    );
    assert_eq!(stateless_failed, 0, "stateless calls need no store");
    // Every replica still runs; once the clients ended their sessions nothing is left.
    for (child, addr) in &mut replicas {
        assert!(child.try_wait().unwrap().is_none(), "{addr} stopped");
    }
    assert_eq!(redis.keys("mcp:session:*"), Vec::<String>::new());
    assert_eq!(redis.keys("mcp:task*"), Vec::<String>::new());
}
