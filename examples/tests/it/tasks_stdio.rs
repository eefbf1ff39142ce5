//! Tasks over stdio, on the conformance server's fixtures (`#[tool(task)]` tools), in both eras:
//! a task created, polled, waited on, answered and cancelled through a real child process.

use std::process::Stdio;

use mcp_runtime::Client;
use mcp_runtime::client::{ClientError, ElicitationAnswer};
use serde_json::json;
use test_support::task_calls::{start, wait_for};
use tokio::process::{Child, Command};

/// The conformance server on stdio, and a client of `era` (`None`: stateless) on its pipes.
async fn connect(era: Option<&str>) -> (Client, Child) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the conformance server starts");
    let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let builder = Client::builder()
        .elicitation_handler(|_| async { ElicitationAnswer::Accept(json!({"confirm": true})) });
    let builder = match era {
        Some(version) => builder.handshake(version),
        None => builder.stateless(),
    };
    (builder.over_io(stdout, stdin).await.unwrap(), child)
}

#[tokio::test]
async fn handshake_era_tasks_over_stdio() {
    let (client, _child) = connect(Some("2025-11-25")).await;
    let id = start(
        &client,
        "slow_compute",
        json!({"seconds": 0.05, "label": "x"}),
    )
    .await;
    let result = client.task_result(&id).await.unwrap();
    assert_eq!(result["content"][0]["text"], "computed x after 0.05s");
    // The task asks its question over the session while `input_required`.
    let id = start(&client, "confirm_delete", json!({"filename": "a.txt"})).await;
    let result = client.task_result(&id).await.unwrap();
    assert_eq!(result["content"][0]["text"], "deleted a.txt");
    let long = start(&client, "slow_compute", json!({"seconds": 60})).await;
    let listed = client.list_tasks(None).await.unwrap();
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 3);
    assert_eq!(
        client.cancel_task(&long).await.unwrap()["status"],
        "cancelled"
    );
    // A failed task's error is `tasks/result`'s error.
    let id = start(&client, "protocol_error_job", json!({})).await;
    match client.task_result(&id).await {
        Err(ClientError::Protocol(e)) => assert_eq!(e.code, -32603),
        other => panic!("expected the job's protocol error, got {other:?}"),
    }
}

#[tokio::test]
async fn stateless_era_tasks_over_stdio() {
    let (client, _child) = connect(None).await;
    let id = start(&client, "confirm_delete", json!({"filename": "b.txt"})).await;
    let parked = wait_for(&client, &id, "input_required").await;
    let key = parked["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    client
        .update_task(&id, [(key, answer)].into_iter().collect())
        .await
        .unwrap();
    let done = wait_for(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "deleted b.txt");
    let failed = start(&client, "protocol_error_job", json!({})).await;
    assert_eq!(
        wait_for(&client, &failed, "failed").await["error"]["code"],
        -32603
    );
    let long = start(&client, "slow_compute", json!({"seconds": 60})).await;
    assert_eq!(
        client.cancel_task(&long).await.unwrap()["resultType"],
        "complete"
    );
    assert_eq!(
        wait_for(&client, &long, "cancelled").await["status"],
        "cancelled"
    );
}
