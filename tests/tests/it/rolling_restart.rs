//! A rolling restart with zero failed calls: three atrium replicas on one Redis (or on a Redis
//! Cluster of 3 masters + 3 replicas) behind nginx round-robin, retrying on the next replica what
//! one refused with `503` (docs/deployment.md's settings). Clients of both eras call
//! continuously: the official Python client (`tests/py/fleet_rolling.py`: three 2025-11-25
//! sessions, `find_slots` in a loop and bookings that ask the user which room through
//! elicitation and report progress, one of them with a user slow enough that a drain cuts the
//! call's stream, and a 2026-07-28 stateless client), and Rust callers (two stateless, one on a
//! 2025-11-25 session). Each replica in turn gets SIGTERM, drains, exits 0 and is started again on
//! its port.
//!
//! Before each SIGTERM the test holds a booking on that replica itself (a session opened on it
//! directly, the call waiting for the user's answer): it sees readiness turn `503` at once while
//! liveness stays `200` (`draining: true`) until the drain is over, the call's stream end with a
//! `retry` hint, its answer to the question taken by the draining replica, and the booking's
//! progress and result arrive on the stream resumed with `Last-Event-ID` on the next replica.
//!
//! Prints the calls made, the calls failed (must be 0), the streams resumed (nginx's access log:
//! each `GET` carrying `Last-Event-ID`, a request's stream or a session's `GET` stream), the
//! sessions lost (must be 0) and the longest pause a client saw.
//!
//! Needs Debian's `redis-server` and `nginx` and `<repo>/.venv` (`bash .ci/python-venv`); without
//! them the test says why and passes, unless `MCP_INTEROP_REQUIRED` is set (`.ci/run` sets it).

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use integration_tests::python::{passed_summary, python_with_sdk, repo};
use serde_json::{Value, json};
use test_support::HANG;
use test_support::http::STATELESS;
use test_support::nginx::{Nginx, spawn_replica};
use test_support::redis::{Redis, free_port};
use test_support::redis_cluster::{RedisCluster, RedisLike};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common;
use crate::drain::{probe, sigterm};

const ATRIUM: &str = env!("CARGO_BIN_EXE_atrium_replica");
const REPLICAS: usize = 3;
const SESSION: &str = "2025-11-25";

/// What the Rust callers saw.
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

/// A POST of `body` to `url`, in `session` at 2025-11-25 when given.
fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    match session {
        Some(id) => request
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", SESSION),
        None => request,
    }
}

/// One request through the proxy: the answer, or why there is none.
async fn request(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> Result<(Option<String>, Value), String> {
    let mut request = post(http, url, session, body);
    if session.is_none() && body["method"] != "initialize" {
        request = request
            .header("mcp-protocol-version", STATELESS)
            .header("mcp-method", body["method"].as_str().unwrap_or_default())
            .header(
                "mcp-name",
                body["params"]["name"].as_str().unwrap_or_default(),
            );
    }
    let response = request
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

/// Opens a 2025-11-25 session at `url` (declaring elicitation): its id.
async fn open_session(http: &reqwest::Client, url: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": SESSION, "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "rolling", "version": "1"}}});
    let (id, _) = request(http, url, None, &initialize)
        .await
        .expect("a session opens");
    let id = id.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let sent = post(http, url, Some(&id), &initialized)
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 202);
    id
}

/// Calls `find_slots` until `stop`, statelessly or on a session of its own.
async fn caller(url: String, on_session: bool, stop: Arc<AtomicBool>, seen: Arc<Seen>) {
    let http = reqwest::Client::new();
    let session = if on_session {
        Some(open_session(&http, &url).await)
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

/// A booking held open on one replica: its session, the call's stream and the question's id.
struct Held {
    session: String,
    stream: common::Events,
    last_event: String,
    question: Value,
}

/// Opens a session on the replica at `base` itself and calls `book_room` with an ambiguous hint
/// on `day`: returns once the question (elicitation) has arrived on the call's stream.
async fn hold_a_booking(http: &reqwest::Client, base: &str, day: &str) -> Held {
    let url = format!("{base}/mcp");
    let session = open_session(http, &url).await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "book_room", "arguments": {"day": day, "hour": 11, "room_hint": "studio"},
        "_meta": {"progressToken": "held"}}});
    let response = post(http, &url, Some(&session), &call)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = common::Events::of(response);
    loop {
        let (id, message) = stream.next_event().await.expect("the question");
        if let Some(message) = message.filter(|m| m["method"] == "elicitation/create") {
            return Held {
                session,
                stream,
                last_event: id.expect("the question's event id"),
                question: message["id"].clone(),
            };
        }
    }
}

/// What one replica's drain showed.
struct Drained {
    /// SIGTERM to `/readyz` answering `503`.
    unready_after: Duration,
    /// SIGTERM to the process's exit.
    exited_after: Duration,
    /// `/healthz` probes sent once readiness had turned, each answered `200`, `draining: true`.
    alive_probes: usize,
    /// Whether its drain waited for the Python client's long booking.
    waited_for_the_long_call: bool,
}

/// How long a drain may last after the held booking answered before the test takes it to be
/// waiting for the Python client's long booking (the other calls end within a few hundred ms).
const LONG_CALL_SIGN: Duration = Duration::from_millis(1500);

/// SIGTERMs the replica `child` at `base` while `held` waits on it; checks its probes through the
/// drain, answers the question there, resumes the call's stream at `other` (a live replica) and
/// reads the booking; waits for the exit, which must be 0. While `long_answer` names a file not
/// yet written, a drain still going on [`LONG_CALL_SIGN`] later is waiting for the Python
/// client's long booking: the file tells its user to answer.
async fn drain_with_a_held_call(
    http: &reqwest::Client,
    mut child: tokio::process::Child,
    (base, other): (&str, &str),
    held: Held,
    long_answer: &mut Option<std::path::PathBuf>,
) -> Drained {
    let Held {
        session,
        mut stream,
        last_event,
        question,
    } = held;
    let signalled = Instant::now();
    sigterm(&child);
    // Liveness, polled until nothing answers.
    let liveness = {
        let base = base.to_owned();
        tokio::spawn(async move {
            let mut answers = Vec::new();
            loop {
                let sent = Instant::now();
                let Some(answer) = probe(&base, "/healthz").await else {
                    break;
                };
                answers.push((sent, answer));
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            (answers, Instant::now())
        })
    };
    let unready_after = loop {
        if let Some((503, body)) = probe(base, "/readyz").await {
            assert_eq!(body, json!({"status": "unready", "reason": "draining"}));
            break signalled.elapsed();
        }
        assert!(signalled.elapsed() < HANG, "readiness never turned 503");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // Alive and draining while the drain waits for the held call (which waits for the test).
    assert_eq!(
        probe(base, "/healthz").await,
        Some((200, json!({"status": "alive", "draining": true})))
    );
    // The call's stream ends with the retry hint, before its answer.
    assert_eq!(stream.next_event().await, Some((None, None)));
    assert_eq!(stream.next_event().await, None);
    // The user's answer is taken by the draining replica, where the call waits.
    let url = format!("{base}/mcp");
    let answer = json!({"jsonrpc": "2.0", "id": question,
        "result": {"action": "accept", "content": {"room_id": "studio-a"}}});
    let taken = post(http, &url, Some(&session), &answer)
        .send()
        .await
        .unwrap();
    assert_eq!(taken.status(), 202);
    let taken_at = Instant::now();
    let resumed = http
        .get(format!("{other}/mcp"))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", SESSION)
        .header("last-event-id", &last_event)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let mut resumed = common::Events::of(resumed);
    let mut progress = Vec::new();
    let booked = loop {
        let message = resumed.next().await;
        if message["method"] == "notifications/progress" {
            progress.push(message["params"]["message"].clone());
        }
        if message["id"] == 7 {
            break message;
        }
    };
    assert_eq!(
        booked["result"]["structuredContent"]["room_id"], "studio-a",
        "{booked}"
    );
    assert_eq!(progress, [json!("booking Studio A"), json!("booked")]);
    let mut waited_for_the_long_call = false;
    if let Some(file) = long_answer.as_ref()
        && tokio::time::timeout(LONG_CALL_SIGN, child.wait())
            .await
            .is_err()
    {
        std::fs::write(file, "answer").unwrap();
        *long_answer = None;
        waited_for_the_long_call = true;
    }
    let exit = tokio::time::timeout(HANG, child.wait())
        .await
        .expect("a drained replica exits")
        .unwrap();
    let exited_after = signalled.elapsed();
    assert_eq!(exit.code(), Some(0), "{base} exited {exit:?}");
    let (answers, gone_at) = liveness.await.unwrap();
    // Alive on every probe; draining on each sent once readiness was seen to turn (a probe sent
    // before the process handled the signal may still say `"draining": false`).
    let unready_at = signalled + unready_after;
    assert!(
        answers.iter().all(|(sent, (status, body))| *status == 200
            && body["status"] == "alive"
            && (*sent < unready_at || body["draining"] == true)),
        "{answers:?}"
    );
    let draining = answers
        .iter()
        .filter(|(sent, _)| *sent >= unready_at)
        .count();
    // The replica took the answer to the call it was draining: liveness was up until then,
    // and after (the call still had its booking to make, and its answer to write).
    assert!(
        gone_at > taken_at,
        "liveness went down before the call the drain waited for was answered"
    );
    Drained {
        unready_after,
        exited_after,
        alive_probes: draining,
        waited_for_the_long_call,
    }
}

/// The Python clients: the child, its output so far and when it said `ready`.
struct PythonClients {
    child: tokio::process::Child,
    stdout: Arc<Mutex<String>>,
    stop_file: std::path::PathBuf,
}

impl PythonClients {
    async fn start(python: &std::path::Path, url: &str) -> PythonClients {
        let stop_file = std::env::temp_dir().join(format!(
            "mcp-rolling-stop-{}-{}",
            std::process::id(),
            free_port()
        ));
        let _ = std::fs::remove_file(&stop_file);
        let mut child = tokio::process::Command::new(python)
            .arg(repo().join("tests/py/fleet_rolling.py"))
            .arg(url)
            .arg(&stop_file)
            .env("PYTHONUNBUFFERED", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("run the Python client");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let stdout = Arc::new(Mutex::new(String::new()));
        let (ready, is_ready) = tokio::sync::oneshot::channel();
        let kept = stdout.clone();
        tokio::spawn(async move {
            let mut ready = Some(ready);
            while let Ok(Some(line)) = lines.next_line().await {
                if line == "ready" {
                    ready.take().map(|r| r.send(()));
                }
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let started = tokio::time::timeout(HANG, is_ready).await;
        assert!(
            matches!(started, Ok(Ok(()))),
            "the Python clients never got going: {}",
            stdout.lock().unwrap()
        );
        PythonClients {
            child,
            stdout,
            stop_file,
        }
    }

    /// The file whose existence tells the long booking's user to answer.
    fn answer_file(&self) -> std::path::PathBuf {
        let mut name = self.stop_file.clone().into_os_string();
        name.push(".answer");
        name.into()
    }

    /// Tells the clients to stop, waits for them: their figures (the `rolling {json}` line).
    async fn stop(mut self) -> Value {
        std::fs::write(&self.stop_file, "stop").unwrap();
        let status = tokio::time::timeout(HANG, self.child.wait())
            .await
            .expect("the Python clients stop")
            .unwrap();
        let _ = std::fs::remove_file(&self.stop_file);
        let _ = std::fs::remove_file(self.answer_file());
        // The reader has the last lines once the pipe closed.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let stdout = self.stdout.lock().unwrap().clone();
        println!("{stdout}");
        passed_summary(&stdout, status);
        let figures = stdout
            .lines()
            .find_map(|l| l.strip_prefix("rolling "))
            .expect("the clients' figures");
        serde_json::from_str(figures).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_three_replicas_fails_no_call() {
    let Some(redis) = Redis::start() else { return };
    a_rolling_restart_fails_no_call_on(&redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_on_a_redis_cluster_fails_no_call() {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    a_rolling_restart_fails_no_call_on(&cluster).await;
}

/// The rolling restart, its sessions, streams and bookings in `redis` (one node or a cluster).
async fn a_rolling_restart_fails_no_call_on(redis: &impl RedisLike) {
    let Some(python) = python_with_sdk() else {
        return;
    };
    let ports: Vec<u16> = (0..REPLICAS).map(|_| free_port()).collect();
    let start = |port: u16| {
        let args = [
            "--http".to_owned(),
            format!("127.0.0.1:{port}"),
            "--redis".to_owned(),
            redis.url().to_owned(),
            "--drain-timeout".to_owned(),
            "10".to_owned(),
            "--log-level".to_owned(),
            "warn".to_owned(),
        ];
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
    let python = PythonClients::start(&python, &proxy.url).await;

    let http = reqwest::Client::new();
    let started = Instant::now();
    let mut drains = Vec::new();
    let mut long_answer = Some(python.answer_file());
    for (i, &port) in ports.iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let base = format!("http://{}", addrs[i]);
        let other = format!("http://{}", addrs[(i + 1) % REPLICAS]);
        let held = hold_a_booking(&http, &base, &format!("2040-01-0{}", i + 1)).await;
        let (child, _) = replicas.remove(i);
        let drained =
            drain_with_a_held_call(&http, child, (&base, &other), held, &mut long_answer).await;
        drains.push(drained);
        replicas.insert(i, start(port).await);
    }
    assert!(
        long_answer.is_none(),
        "no drain waited for the Python client's long booking"
    );
    // Long enough for the slow user's next booking to run on the restarted fleet.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let rolled = started.elapsed();
    let figures = python.stop().await;
    stop.store(true, Ordering::Release);
    for client in clients {
        tokio::time::timeout(HANG, client).await.unwrap().unwrap();
    }

    let rust_calls = seen.calls.load(Ordering::Acquire);
    let rust_failures = seen.failures.lock().unwrap().clone();
    let rust_longest = *seen.longest.lock().unwrap();
    let python_calls = figures["calls"].as_u64().unwrap() as usize;
    let python_failed = figures["failed"].as_u64().unwrap() as usize;
    let sessions_lost = figures["sessions_lost"].as_u64().unwrap() as usize
        + usize::from(rust_failures.iter().any(|f| f.starts_with("status 404")));
    let longest = rust_longest.max(Duration::from_millis(
        figures["longest_pause_ms"].as_u64().unwrap(),
    ));
    let count = |resumed: &[(String, u16)], kind: char| {
        resumed
            .iter()
            .filter(|(id, _)| id.starts_with(kind))
            .count()
    };
    // nginx logs a stream when it ends: the last ones as the clients close their sessions.
    let sessions = figures["sessions"].as_u64().unwrap() as usize;
    let mut resumed = proxy.resumed_streams();
    let waited = Instant::now();
    while (count(&resumed, 'r') < 1 || count(&resumed, 'g') < sessions)
        && waited.elapsed() < Duration::from_secs(3)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
        resumed = proxy.resumed_streams();
    }
    let of = |kind: char| count(&resumed, kind);
    eprintln!(
        "rolling restart of {REPLICAS} replicas on {} in {rolled:.1?}: {} calls made ({python_calls} \
         by the Python client: {}; {rust_calls} by the Rust callers), {} failed, streams resumed \
         with Last-Event-ID by the Python client: {} request streams and {} session GET streams \
         (statuses {:?}), plus the test's {REPLICAS} held bookings; sessions lost {sessions_lost} \
         of {}; longest pause a client saw {} ms (Python {} ms, Rust {} ms, not counting the \
         user's time to answer)",
        if redis.is_cluster() {
            "a Redis Cluster"
        } else {
            "one Redis"
        },
        python_calls + rust_calls,
        figures["clients"],
        python_failed + rust_failures.len(),
        of('r'),
        of('g'),
        resumed
            .iter()
            .map(|(_, s)| *s)
            .collect::<std::collections::BTreeSet<_>>(),
        sessions + 1,
        longest.as_millis(),
        figures["longest_pause_ms"],
        rust_longest.as_millis(),
    );
    for (i, d) in drains.iter().enumerate() {
        eprintln!(
            "replica {i}: /readyz 503 {} ms after SIGTERM, /healthz 200 (draining) for {} probes \
             until the drain ended, exit 0 {} ms after SIGTERM{}",
            d.unready_after.as_millis(),
            d.alive_probes,
            d.exited_after.as_millis(),
            if d.waited_for_the_long_call {
                " (the drain waited for the Python client's long booking)"
            } else {
                ""
            }
        );
        assert!(
            d.unready_after < Duration::from_secs(2),
            "{:?}",
            d.unready_after
        );
    }
    assert!(
        rust_calls >= 30,
        "too few calls to mean anything: {rust_calls}"
    );
    assert!(rust_failures.is_empty(), "failed calls: {rust_failures:#?}");
    assert_eq!(python_failed, 0, "{figures}");
    assert_eq!(sessions_lost, 0, "{figures}");
    assert!(
        resumed.iter().all(|(_, status)| *status == 200),
        "{resumed:?}"
    );
    // The long booking's stream was cut by the drain that waited for it, and resumed.
    assert!(of('r') >= 1, "{resumed:?}");
    // Every session's GET stream was on some replica when that replica drained.
    assert!(of('g') >= sessions, "{resumed:?}");
}
