//! A rolling restart with zero failed calls: three atrium replicas on one Redis behind nginx
//! round-robin, retrying on the next replica what one refused with `503` (docs/deployment.md's
//! settings). Clients call continuously, stateless ones and one on a 2025-11-25 session (kept in
//! Redis), while each replica in turn gets SIGTERM, drains, exits 0 and is started again on its
//! port. Prints the calls made, the calls failed (must be 0) and the longest call a client saw.
//!
//! Needs Debian's `redis-server` and `nginx`; without them the test says why and passes, unless
//! `MCP_INTEROP_REQUIRED` is set (`.ci/run` sets it).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::STATELESS;
use test_support::nginx::{Nginx, spawn_replica};
use test_support::redis::{Redis, free_port};

use crate::common;
use crate::drain::sigterm;

const ATRIUM: &str = env!("CARGO_BIN_EXE_atrium_replica");
const REPLICAS: usize = 3;

/// What the clients saw.
#[derive(Default)]
struct Seen {
    calls: AtomicUsize,
    failures: Mutex<Vec<String>>,
    longest: Mutex<Duration>,
}

/// The arguments of one `find_slots` call.
fn find_slots() -> Value {
    json!({"name": "find_slots", "arguments": {"room_id": "studio-b", "day": "2026-09-17"}})
}

/// One request through the proxy: the answer, or why there is none.
async fn request(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> Result<(Option<String>, Value), String> {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    request = match session {
        Some(id) => request
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-11-25"),
        None if body["method"] == "initialize" => request,
        None => request
            .header("mcp-protocol-version", STATELESS)
            .header("mcp-method", body["method"].as_str().unwrap_or_default())
            .header(
                "mcp-name",
                body["params"]["name"].as_str().unwrap_or_default(),
            ),
    };
    let response = request
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| format!("transport: {e}"))?;
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await.map_err(|e| format!("body: {e}"))?;
    if status != 200 {
        return Err(format!("status {status}: {text}"));
    }
    let message = common::last_message(&text);
    if message.get("error").is_some() || message["result"]["isError"] == true {
        return Err(format!("error answer: {message}"));
    }
    Ok((session, message))
}

/// Calls `find_slots` until `stop`, statelessly or on a session of its own.
async fn caller(url: String, on_session: bool, stop: Arc<AtomicBool>, seen: Arc<Seen>) {
    let http = reqwest::Client::new();
    let session = if on_session {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "rolling", "version": "1"}}});
        let (id, _) = request(&http, &url, None, &initialize)
            .await
            .expect("a session opens");
        let id = id.expect("a session id");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let sent = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &id)
            .header("mcp-protocol-version", "2025-11-25")
            .body(initialized.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), 202);
        Some(id)
    } else {
        None
    };
    let mut n = 1u64;
    while !stop.load(Ordering::Acquire) {
        let mut params = find_slots();
        if session.is_none() {
            params["_meta"] = test_support::http::meta();
        }
        let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params});
        let started = Instant::now();
        let answered = request(&http, &url, session.as_deref(), &body).await;
        let took = started.elapsed();
        seen.calls.fetch_add(1, Ordering::AcqRel);
        {
            let mut longest = seen.longest.lock().unwrap();
            *longest = (*longest).max(took);
        }
        if let Err(why) = answered {
            seen.failures.lock().unwrap().push(why);
        }
        n += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_three_replicas_fails_no_call() {
    let Some(redis) = Redis::start() else { return };
    let ports: Vec<u16> = (0..REPLICAS).map(|_| free_port()).collect();
    let args = |port: u16| {
        vec![
            "--http".to_owned(),
            format!("127.0.0.1:{port}"),
            "--redis".to_owned(),
            redis.url.clone(),
            "--drain-timeout".to_owned(),
            "10".to_owned(),
            "--log-level".to_owned(),
            "warn".to_owned(),
        ]
    };
    let start = |port: u16| {
        let args = args(port);
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            spawn_replica(ATRIUM, &args).await
        }
    };
    let mut replicas = Vec::new();
    for &port in &ports {
        replicas.push(start(port).await);
    }
    let addrs: Vec<String> = replicas.iter().map(|(_, addr)| addr.clone()).collect();
    let Some(proxy) = Nginx::start_retrying(&addrs).await else {
        return;
    };

    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Seen::default());
    let clients: Vec<_> = [false, false, true]
        .into_iter()
        .map(|on_session| {
            tokio::spawn(caller(
                proxy.url.clone(),
                on_session,
                stop.clone(),
                seen.clone(),
            ))
        })
        .collect();

    let started = Instant::now();
    for (i, &port) in ports.iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let (mut child, _) = replicas.remove(i);
        sigterm(&child);
        let exit = tokio::time::timeout(HANG, child.wait())
            .await
            .expect("a drained replica exits")
            .unwrap();
        assert_eq!(exit.code(), Some(0), "replica {i} exited {exit:?}");
        replicas.insert(i, start(port).await);
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    stop.store(true, Ordering::Release);
    for client in clients {
        tokio::time::timeout(HANG, client).await.unwrap().unwrap();
    }

    let calls = seen.calls.load(Ordering::Acquire);
    let failures = seen.failures.lock().unwrap().clone();
    let longest = *seen.longest.lock().unwrap();
    eprintln!(
        "rolling restart of {REPLICAS} replicas in {:?}: {calls} calls, {} failed, longest call {longest:?}",
        started.elapsed(),
        failures.len()
    );
    assert!(calls >= 30, "too few calls to mean anything: {calls}");
    assert!(failures.is_empty(), "failed calls: {failures:#?}");
}
