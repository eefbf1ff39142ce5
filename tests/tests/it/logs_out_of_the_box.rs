//! A server that sets up no logging still tells its operator about a hidden failure: on stderr,
//! with the error id the model got and the chain of causes, while stdout carries nothing but
//! JSON-RPC.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_stock_server");

/// What one run printed: every stdout line, stderr as text, and the `errorId` of the failed call.
struct Run {
    stdout: Vec<String>,
    stderr: String,
    error_id: String,
}

/// Runs the server: `initialize`, then one call of the failing tool, then end of input.
async fn run(args: &[&str], rust_log: Option<&str>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(filter) = rust_log {
        cmd.env("RUST_LOG", filter);
    }
    let mut child = cmd.spawn().expect("the test server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = child.stderr.take().unwrap();
    let mut lines = Vec::new();
    let mut send = async |message: Value| {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    )
    .await;
    lines.push(
        stdout
            .next_line()
            .await
            .unwrap()
            .expect("the initialize result"),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "adjust_stock", "arguments": {"item": "bolts", "delta": -3}}}),
    )
    .await;
    lines.push(stdout.next_line().await.unwrap().expect("the call result"));
    drop(stdin);
    while let Some(line) = stdout.next_line().await.unwrap() {
        lines.push(line);
    }
    let mut err = String::new();
    stderr.read_to_string(&mut err).await.unwrap();
    assert!(child.wait().await.unwrap().success(), "stderr: {err}");
    let call: Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(call["result"]["isError"], true, "{call}");
    assert_eq!(
        call["result"]["content"][0]["text"],
        "Error executing tool adjust_stock"
    );
    let error_id = call["result"]["_meta"]["errorId"]
        .as_str()
        .expect("an errorId")
        .to_owned();
    Run {
        stdout: lines,
        stderr: err,
        error_id,
    }
}

/// Every stdout line is a JSON-RPC message.
fn assert_pure_json_rpc(stdout: &[String]) {
    for line in stdout {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("stdout holds a line that is not JSON ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
}

#[tokio::test]
async fn a_hidden_failure_reaches_stderr_with_its_id_and_chain_and_stdout_stays_json_rpc() {
    let run = run(&[], None).await;
    assert_pure_json_rpc(&run.stdout);
    let line = run
        .stderr
        .lines()
        .find(|l| l.contains(&run.error_id))
        .unwrap_or_else(|| {
            panic!(
                "no stderr line has error id {}:\n{}",
                run.error_id, run.stderr
            )
        });
    for expected in [
        "ERROR",
        "adjust_stock",
        "saving the stock of bolts: disk at 10.0.0.5 is full",
    ] {
        assert!(line.contains(expected), "{expected:?} is not in {line:?}");
    }
}

#[tokio::test]
async fn rust_log_filters_the_installed_log() {
    let run = run(&[], Some("off")).await;
    assert_pure_json_rpc(&run.stdout);
    assert!(!run.stderr.contains(&run.error_id), "{}", run.stderr);

    let run = run_with_bad_filter().await;
    assert!(
        run.stderr.contains(&run.error_id),
        "the default filter is used: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("RUST_LOG=\"=nonsense=\""),
        "{}",
        run.stderr
    );
}

async fn run_with_bad_filter() -> Run {
    run(&[], Some("=nonsense=")).await
}

#[tokio::test]
async fn the_builder_opts_out() {
    let run = run(&["--no-log"], None).await;
    assert_pure_json_rpc(&run.stdout);
    assert_eq!(run.stderr, "", "no log was installed");
}
