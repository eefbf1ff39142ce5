//! A fleet behaving as one server: three replicas of the atrium example, each started with
//! `--http 0 --redis URL` (sessions and bookings in one Redis), behind nginx balancing
//! round-robin with no stickiness. The official Python client (`mcp==2.3.0`, `mode="legacy"`,
//! Streamable HTTP) runs the whole atrium scenario (`tests/py/fleet.py`: bookings, refusals,
//! elicitation accepted, declined, dismissed and refused, its answers landing on whichever
//! replica nginx picks), then bookings whose streams the replicas close before the user answers
//! (`--close-streams-after 300`): the client resumes each with `Last-Event-ID` on the replica
//! nginx picks, at least one of them not the replica that wrote it, and gets the booking's
//! progress and its log message there (sent after the first stream closed); then 200 calls on one
//! session. The requests each replica served are printed, and every session the client ended
//! (`DELETE`) is gone from Redis itself. A second
//! fleet, of the kit's `http_replica`, shows progress and log messages across replicas: the log
//! level set on one replica applies to the session's calls on every other.
//!
//! Every replica runs with `--metrics`, and a real Prometheus (Debian's package) scrapes the
//! three: its query API must count, summed over the replicas, exactly the `tools/call` requests
//! the Python client sent.
//!
//! Needs Debian's `redis-server` and `nginx` and `<repo>/.venv` (`bash .ci/python-venv`); without
//! them the test says why and passes, unless `MCP_INTEROP_REQUIRED` is set (`.ci/run` sets it).

use integration_tests::python::{python_with_sdk, run_script};

use crate::prometheus::query_value;
use test_support::nginx::{Nginx, spawn_replica};
use test_support::prometheus::Prometheus;
use test_support::redis::Redis;
use test_support::redis_cluster::RedisLike;

const ATRIUM: &str = env!("CARGO_BIN_EXE_atrium_replica");
const REPLICA: &str = env!("CARGO_BIN_EXE_http_replica");
const CALLS: usize = 200;
const REPLICAS: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_atrium_replicas_behind_round_robin_nginx_serve_as_one() {
    let Some(redis) = Redis::start() else { return };
    three_atrium_replicas_behind_round_robin_nginx_serve_as_one_on(&redis).await;
}

/// Waits until `prometheus`, scraping every replica, counts `sent` `tools/call` operations
/// (`mcp.server.operation.duration`'s `_count`, summed over tools and replicas).
async fn calls_counted_by_prometheus(prometheus: &Prometheus, sent: f64) {
    let query = r#"sum(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"})"#;
    let http = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + test_support::HANG;
    let mut seen = None;
    while tokio::time::Instant::now() < deadline {
        seen = query_value(&http, prometheus, query).await;
        if seen == Some(sent) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    eprintln!("prometheus over {REPLICAS} replicas: {query} = {seen:?}; tools/call sent: {sent}");
    assert_eq!(seen, Some(sent), "prometheus' log:\n{}", prometheus.log());
}

/// The body of [`three_atrium_replicas_behind_round_robin_nginx_serve_as_one`], on one Redis or a
/// Redis Cluster (`redis_cluster`).
pub(crate) async fn three_atrium_replicas_behind_round_robin_nginx_serve_as_one_on(
    redis: &impl RedisLike,
) {
    let Some(python) = python_with_sdk() else {
        return;
    };
    let mut replicas = Vec::new();
    for _ in 0..REPLICAS {
        let args = [
            "--http",
            "0",
            "--redis",
            redis.url(),
            "--close-streams-after",
            "300",
            "--metrics",
        ];
        replicas.push(spawn_replica(ATRIUM, &args).await);
    }
    let addrs: Vec<String> = replicas.iter().map(|(_, addr)| addr.clone()).collect();
    let Some(proxy) = Nginx::start(&addrs).await else {
        return;
    };
    // A real Prometheus scraping every replica's `/metrics` while the clients call.
    let Some(prometheus) = Prometheus::start(&addrs) else {
        return;
    };

    // Where atrium's bookings are (the scenario empties them between its parts).
    let bookings = if redis.is_cluster() {
        "{atrium}:bookings"
    } else {
        "atrium:bookings"
    };
    let (url, port) = (proxy.url.clone(), redis.port_of(bookings).to_string());
    let calls = CALLS.to_string();
    let stdout = tokio::task::spawn_blocking(move || {
        run_script(&python, "tests/py/fleet.py", &[&url, &port, &calls])
    })
    .await
    .unwrap();
    assert!(stdout.contains(&format!("ok fleet {CALLS} calls on one session")));
    let sent: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("tools/call sent: "))
        .and_then(|n| n.parse().ok())
        .expect("the script counts its tools/call requests");
    calls_counted_by_prometheus(&prometheus, sent).await;
    assert!(stdout.contains("ok fleet atrium book_room: ambiguous, the user accepts great-hall"));
    assert!(stdout.contains("ok fleet atrium book_room: ambiguous hint, the user declines"));
    assert!(stdout.contains("ok fleet three bookings answered on resumed streams"));
    assert!(stdout.contains(
        "ok fleet each booking's progress and log message arrived on the resumed stream"
    ));

    let resumed = proxy.resumptions();
    eprintln!("streams resumed with Last-Event-ID (writer -> resumer): {resumed:#?}");
    assert!(resumed.len() >= 3, "{resumed:?}");
    assert!(resumed.iter().all(|r| r.status == 200), "{resumed:?}");
    let elsewhere = resumed
        .iter()
        .filter(|r| r.writer.as_deref().is_some_and(|w| w != r.resumer))
        .count();
    assert!(
        elsewhere >= 1,
        "no stream resumed on another replica: {resumed:?}"
    );

    let posts = proxy.served("POST");
    eprintln!(
        "{CALLS} calls and the atrium scenario over {REPLICAS} replicas: POSTs per replica {posts:?}, \
         DELETEs {:?}",
        proxy.served("DELETE")
    );
    assert_eq!(posts.len(), REPLICAS, "every replica served: {posts:?}");
    let total: usize = posts.values().sum();
    assert!(total > CALLS, "{posts:?}");
    for (replica, n) in &posts {
        assert!(
            *n >= total / (REPLICAS * 2),
            "{replica} served {n} of {total}"
        );
    }
    // The client ended each of its sessions (DELETE through whichever replica): no key is left.
    let deleted: usize = proxy.served("DELETE").values().sum();
    assert!(
        deleted >= 3,
        "the scenario's two sessions and the calls' one"
    );
    assert_eq!(redis.keys("mcp:session:*"), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_log_messages_follow_a_session_across_replicas() {
    let Some(redis) = Redis::start() else { return };
    progress_and_log_messages_follow_a_session_across_replicas_on(&redis).await;
}

/// The body of [`progress_and_log_messages_follow_a_session_across_replicas`], on one Redis or a
/// Redis Cluster (`redis_cluster`).
pub(crate) async fn progress_and_log_messages_follow_a_session_across_replicas_on(
    redis: &impl RedisLike,
) {
    let Some(python) = python_with_sdk() else {
        return;
    };
    let mut replicas = Vec::new();
    for _ in 0..REPLICAS {
        replicas.push(spawn_replica(REPLICA, &["0", redis.url()]).await);
    }
    let addrs: Vec<String> = replicas.iter().map(|(_, addr)| addr.clone()).collect();
    let Some(proxy) = Nginx::start(&addrs).await else {
        return;
    };
    let url = proxy.url.clone();
    let calls = 30.to_string();
    let stdout = tokio::task::spawn_blocking(move || {
        run_script(&python, "tests/py/fleet_progress.py", &[&url, &calls])
    })
    .await
    .unwrap();
    assert!(
        stdout.contains("ok fleet progress and a log message on each of 30 calls"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ok fleet the calls reached every replica"),
        "{stdout}"
    );
    let posts = proxy.served("POST");
    eprintln!("progress and logs over {REPLICAS} replicas: POSTs per replica {posts:?}");
    assert_eq!(posts.len(), REPLICAS, "every replica served: {posts:?}");
}
