//! Memory stays bounded under a long stream of calls: after warm-up, 200,000 calls (half valid,
//! half refused in each way a call can be) over stdio to one server process of the debug build
//! grow its resident memory by less than 13 bytes a call (2.5 MiB; never less than 2 MiB for a
//! shorter run): a leak of one small allocation per call fails it. `MCP_MEMORY_CALLS` sets the
//! count: CI runs the default, the long run is `MCP_MEMORY_CALLS=2000000` (docs/checks.md).

use std::process::Stdio;
use std::time::Duration;

use test_support::stdio::spawn;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const KIT: &str = env!("CARGO_BIN_EXE_kit_server");
const WARM_UP: usize = 20_000;
/// Calls after warm-up, unless `MCP_MEMORY_CALLS` says otherwise (a multiple of [`WINDOW`]).
const CALLS: usize = 200_000;
/// The growth allowed: [`PER_CALL`] bytes a call, and never less than this.
const FLOOR_KIB: u64 = 2 * 1024;
const PER_CALL: u64 = 13;
/// Lines written before their answers are read: enough to keep the server busy.
const WINDOW: usize = 2_000;
/// A server that neither reads nor answers for this long has stalled: fail with what is known
/// rather than hang (a lost wake-up in the stdio transport once did that, intermittently).
const STALL: Duration = Duration::from_secs(60);

/// How long the blocking pool keeps an idle thread (tokio's default, 10 s), and a margin.
const POOL_IDLE: Duration = Duration::from_secs(15);

/// The process's resident memory (KiB) and its number of threads.
fn rss_kib_and_threads(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in /proc/{pid}/status"))
    };
    (field("VmRSS:"), field("Threads:"))
}

/// Call `i`: every other one is invalid, in turn each way a call can be: a string for an
/// integer (the validator), an integer beyond `i64` (serde's refusal, reworded), an unknown tool,
/// a line that is not JSON, and an envelope that is not JSON-RPC 2.0.
fn call(i: usize) -> String {
    let tools_call = |name: &str, a: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"{name}","arguments":{{"a":{a},"b":2}}}}}}"#
        )
    };
    let line = if i.is_multiple_of(2) {
        tools_call("add", "1")
    } else {
        match (i / 2) % 5 {
            0 => tools_call("add", "\"x\""),
            1 => tools_call("add", "9223372036854775808"),
            2 => tools_call("nope", "1"),
            3 => format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":"#),
            _ => format!(r#"{{"jsonrpc":"1.0","id":{i},"method":"tools/call"}}"#),
        }
    };
    line + "\n"
}

/// Whether an answer is the valid call's (1 + 2) or an error (a refused call or a JSON-RPC
/// error); anything else fails the test.
fn is_valid_answer(line: &str) -> bool {
    if line.contains(r#""structuredContent":{"result":3}"#) {
        return true;
    }
    assert!(
        line.contains(r#""isError":true"#) || line.contains(r#""error":{"code":"#),
        "neither a result nor an error: {line}"
    );
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_stream_of_calls_grows_memory_by_less_than_thirteen_bytes_a_call() {
    if !cfg!(target_os = "linux") {
        eprintln!("skipping: reads VmRSS from /proc");
        return;
    }
    let calls = match std::env::var("MCP_MEMORY_CALLS") {
        Ok(n) => n
            .parse::<usize>()
            .expect("MCP_MEMORY_CALLS: a number of calls"),
        Err(_) => CALLS,
    }
    .next_multiple_of(WINDOW);
    let allowed_kib = FLOOR_KIB.max(calls as u64 * PER_CALL / 1024);
    let mut child = spawn(KIT, &[], Stdio::null());
    let pid = child.id().expect("pid");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    lines
        .next_line()
        .await
        .unwrap()
        .expect("the initialize answer");

    let (mut rss_after_warm_up, mut threads_after_warm_up) = (0, 0);
    let (mut valid, mut invalid) = (0, 0);
    let mut sent = 0;
    while sent < WARM_UP + calls {
        let mut batch = String::with_capacity(WINDOW * 120);
        for i in sent..sent + WINDOW {
            batch.push_str(&call(i));
        }
        tokio::time::timeout(STALL, stdin.write_all(batch.as_bytes()))
            .await
            .unwrap_or_else(|_| panic!("the server stopped reading at call {sent}"))
            .unwrap();
        for i in 0..WINDOW {
            let line = tokio::time::timeout(STALL, lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("no answer to call {} in {STALL:?}", sent + i))
                .unwrap()
                .expect("an answer");
            if is_valid_answer(&line) {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        sent += WINDOW;
        if sent == WARM_UP {
            (rss_after_warm_up, threads_after_warm_up) = rss_kib_and_threads(pid);
        }
    }
    // A sync tool runs on tokio's blocking pool, which adds threads while calls queue and lets
    // each go after 10 s idle. On a loaded machine the pool can grow after warm-up (each thread
    // holds its stack's touched pages): that is not memory kept per call, so the RSS is read at
    // no more threads than after warm-up, waiting for the pool's idle threads to go if needed.
    let (mut rss_after, mut threads_after) = rss_kib_and_threads(pid);
    let settle = tokio::time::Instant::now() + POOL_IDLE;
    while threads_after > threads_after_warm_up && tokio::time::Instant::now() < settle {
        tokio::time::sleep(Duration::from_millis(250)).await;
        (rss_after, threads_after) = rss_kib_and_threads(pid);
    }
    assert_eq!(
        (valid, invalid),
        ((WARM_UP + calls) / 2, (WARM_UP + calls) / 2)
    );
    let growth = rss_after.saturating_sub(rss_after_warm_up);
    eprintln!(
        "RSS after {WARM_UP} calls: {rss_after_warm_up} KiB ({threads_after_warm_up} threads); after {calls} more: {rss_after} KiB ({threads_after} threads; +{growth} KiB, {allowed_kib} KiB allowed)"
    );
    assert!(
        growth < allowed_kib,
        "RSS grew by {growth} KiB in {calls} calls (allowed: {allowed_kib} KiB)"
    );
    drop(stdin);
    let status = child.wait().await.unwrap();
    assert!(status.success(), "{status}");
}
