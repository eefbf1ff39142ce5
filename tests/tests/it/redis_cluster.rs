//! The Redis stores on a Redis Cluster (`redis+cluster://` URLs): a local cluster of Debian's
//! `redis-server`, 3 masters + 3 replicas made by `.ci/redis-cluster` (one per test, in a
//! directory of its own), runs the same test bodies as one Redis does, sessions
//! (`redis_sessions`), streams resumed on another replica and resource changes relayed
//! (`redis_streams`), tasks (`redis_tasks`: records, lists, limits, answers, the `--redis` flag)
//! and three replicas behind nginx with the Python client (`fleet`: the kit's replicas, and
//! atrium's whole scenario with its bookings on the cluster); and a fleet under load
//! through a master failover: the master holding a session's slot (and every replica's relay
//! subscription: the first seed) is killed, its replica takes over, the relay subscribes again on
//! the next seed, and the test prints what the clients saw and what was lost.
//!
//! Needs Debian's `redis-server` (and nginx, and `<repo>/.venv` for the Python fleet); without
//! them the tests say why and pass, unless `MCP_INTEROP_REQUIRED` is set (`.ci/run` sets it).

use crate::fleet_faults::{Load, fleet, unexpected};
use crate::{common, redis_sessions};

use std::time::{Duration, Instant};

use mcp_runtime::http::RedisSessionStore;
use serde_json::json;
use test_support::redis_cluster::RedisCluster;

/// Each test: a cluster of its own, and the body it shares with one Redis.
macro_rules! on_a_cluster {
    ($($name:ident => $body:path;)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some(cluster) = RedisCluster::start() else { return };
            $body(&cluster).await;
        }
    )*};
}

on_a_cluster! {
    sessions_are_shared =>
        crate::redis_sessions::two_replicas_serve_one_session_through_redis_on;
    answers_and_cancellations_are_relayed =>
        crate::redis_sessions::an_elicitation_answer_and_a_cancellation_reach_the_call_on_another_replica_on;
    streams_resume_on_the_other_replica =>
        crate::redis_streams::a_stream_written_on_one_replica_resumes_on_the_other_through_redis_on;
    a_dead_replicas_stream_ends_with_an_error_elsewhere =>
        crate::redis_streams::a_call_on_a_replica_that_died_ends_with_an_error_on_the_stream_resumed_elsewhere_on;
    resource_updates_are_relayed =>
        crate::redis_streams::a_resource_update_raised_on_any_replica_reaches_the_stream_another_holds_once_on;
    tasks_are_shared =>
        crate::redis_tasks::a_task_started_on_one_replica_is_read_listed_and_awaited_on_the_other_on;
    tasks_are_cancelled_across_replicas =>
        crate::redis_tasks::a_task_cancelled_on_another_replica_stops_and_stays_cancelled_on;
    task_keys_expire =>
        crate::redis_tasks::task_keys_expire_in_redis_after_the_ttl_on;
    task_limits_hold_across_the_fleet =>
        crate::redis_tasks::limits_count_the_tasks_of_every_replica_on;
    the_task_store_pages_and_keeps_the_first_end =>
        crate::redis_tasks::the_store_pages_oldest_first_and_keeps_the_first_end_on;
    the_redis_flag_takes_a_cluster =>
        crate::redis_tasks::the_redis_flag_shares_tasks_between_replicas_too_on;
    stateless_tasks_are_shared =>
        crate::redis_tasks::stateless_tasks_are_read_and_cancelled_on_the_other_replica_on;
    a_tasks_question_is_answered_elsewhere =>
        crate::redis_tasks::a_tasks_question_is_answered_through_the_other_replica_on;
    a_stateless_tasks_question_is_answered_elsewhere =>
        crate::redis_tasks::a_stateless_tasks_question_is_answered_through_the_other_replica_on;
    task_answers_expire_and_are_taken_once =>
        crate::redis_tasks::answers_kept_for_a_task_expire_with_its_record_and_are_taken_once_on;
    three_replicas_behind_nginx_with_the_python_client =>
        crate::fleet::progress_and_log_messages_follow_a_session_across_replicas_on;
    three_atrium_replicas_behind_nginx_serve_as_one =>
        crate::fleet::three_atrium_replicas_behind_round_robin_nginx_serve_as_one_on;
}

#[tokio::test]
async fn a_cluster_nobody_answers_at_is_a_clear_error() {
    let port = test_support::redis::free_port();
    let url = format!("redis+cluster://127.0.0.1:{port}");
    let started = Instant::now();
    let error = RedisSessionStore::connect(&url)
        .await
        .err()
        .expect("no cluster there");
    assert!(error.to_string().contains("cannot reach Redis"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let bad = RedisSessionStore::connect("redis+cluster://127.0.0.1").await;
    let error = bad.err().expect("no port");
    assert!(error.to_string().contains("is not host:port"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_master_killed_under_load_fails_over_to_its_replica() {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    let Some((mut replicas, proxy)) = fleet(&cluster).await else {
        return;
    };
    // Two replicas in this process too, whose relay subscribes on the first seed.
    let (a, b, relayed) = redis_sessions::two_replicas(&cluster).await;
    // The watched session: one whose key lives on the first seed, so that its master's death
    // also takes every replica's relay subscription with it.
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "watched", "version": "1"}}});
    let seed = cluster.ports[0];
    let mut watched = None;
    for _ in 0..100 {
        let (status, id, _) =
            common::post_in_session(&http, &proxy.url, None, "2025-06-18", init.clone()).await;
        assert_eq!(status, 200);
        let id = id.expect("a session");
        if cluster.master_of(&format!("mcp:session:{id}")) == seed {
            watched = Some(id);
            break;
        }
    }
    let watched = watched.expect("a session on the first seed in 100 tries");
    let key = format!("mcp:session:{watched}");
    let master = cluster.master_of(&key);

    let load = Load::start(&proxy.url);
    tokio::time::sleep(Duration::from_secs(2)).await;

    // The master of the watched session's slot dies; its replica is promoted.
    let before = proxy.served("POST").values().sum::<usize>();
    cluster.kill(master);
    let took = {
        let (cluster, key) = (&cluster, key.as_str());
        tokio::task::block_in_place(|| cluster.await_failover(key, master))
    };
    let during = proxy.served("POST").values().sum::<usize>() - before;
    let promoted = cluster.master_of(&key);
    let (total, (stateless_ok, stateless_failed)) = load.recovered().await;
    // The watched session lives on: its record had reached the replica before the kill.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let (status, _, answer) =
        common::post_in_session(&http, &proxy.url, Some(&watched), "2025-06-18", ping).await;
    // The relay subscribed again, on the next seed: an answer given to B reaches the call on A.
    let (text, relay_took) = redis_sessions::elicit(&a, &b, &relayed, 1).await;
    assert_eq!(text, "picked Green (sure: None)");
    let refused = total.get("503 error -32000").copied().unwrap_or(0);
    let lost = total.get("404 error -32600").copied().unwrap_or(0);
    let ok = total.get("ok").copied().unwrap_or(0);
    eprintln!(
        "master {master} killed under load, replica {promoted} promoted after {took:?} (cluster \
         node timeout 2 s): session calls {ok} answered, {refused} refused with 503 while the \
         slot had no master, {lost} sessions lost (404: written to the master, not yet to its \
         replica); stateless calls {stateless_ok} answered, {stateless_failed} not; {during} \
         requests during the failover; all outcomes {total:?}; the watched session after it: \
         {status}; an elicitation answer relayed after it in {relay_took:?}"
    );
    assert_eq!(
        (status, &answer[0]["result"]),
        (200, &json!({})),
        "{answer:?}"
    );
    assert!(unexpected(&total).is_empty(), "{total:?}");
    assert!(ok > 0, "{total:?}");
    assert_eq!(stateless_failed, 0, "stateless calls need no store");
    for (child, addr) in &mut replicas {
        assert!(child.try_wait().unwrap().is_none(), "{addr} stopped");
    }
    assert_ne!(promoted, master);
}
