//! The cost of one message on the server's side of the wire, with the task tracker of
//! `examples/tasks.rs` itself (the workload of `benches/run.sh`): decoding a JSON-RPC line,
//! encoding a response, one request through `Server::handle` (valid call, invalid call,
//! `tools/list`), and building the server, which generates every schema and compiles every
//! validator once. Each request kind gets a fresh server: `add_task` stores what it adds.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_util::FutureExt;
use mcp_runtime::protocol::{Incoming, RequestId, result_response};
use mcp_runtime::transport::stdio::encode_message;
use mcp_runtime::{Connection, Server};
use serde_json::json;

#[path = "../../../examples/tasks.rs"]
#[allow(dead_code)]
mod tasks;

const VALID: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_task","arguments":{"title":"Tag the release","priority":"high"}}}"#;
const INVALID: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_task","arguments":{"title":"ab","priority":"urgent"}}}"#;
const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}"#;

/// A connection past its handshake.
fn connected(server: &Server) -> Connection {
    let (conn, _outgoing) = Connection::new();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}});
    let response = server.handle_value(init, &conn).now_or_never().flatten();
    assert!(response.is_some_and(|r| r.protocol_error().is_none()));
    // Dropping the receiver is fine: `Connection::send` ignores a closed channel.
    conn
}

fn bench(c: &mut Criterion) {
    c.bench_function("jsonrpc/decode tools/call", |b| {
        b.iter(|| black_box(Incoming::parse(black_box(VALID)).unwrap()))
    });
    let response = result_response(
        &RequestId::from(7),
        json!({
            "content": [{"type": "text", "text": "{\"id\":\"T-4\",\"title\":\"Tag the release\",\"priority\":\"high\",\"status\":\"open\"}"}],
            "structuredContent": {"id": "T-4", "title": "Tag the release", "priority": "high", "status": "open"}
        }),
    );
    let mut buf = Vec::with_capacity(1024);
    c.bench_function("jsonrpc/encode tools/call result", |b| {
        b.iter(|| {
            buf.clear();
            encode_message(&mut buf, black_box(&response)).unwrap();
            black_box(buf.len())
        })
    });

    // Every tool here is synchronous, so the future `handle` returns is ready on its first poll,
    // as the stdio transport polls it.
    let mut handle = |name: &str, line: &'static [u8], expect_error: bool| {
        let server = tasks::server();
        let conn = connected(&server);
        let run = || {
            let message = Incoming::parse(line).unwrap();
            server.handle(message, &conn).now_or_never().flatten()
        };
        let first = run().expect("a response").into_json();
        let is_error = first["result"]["isError"] == json!(true);
        assert_eq!(is_error, expect_error, "{first}");
        c.bench_function(name, |b| b.iter(|| black_box(run())));
    };
    handle(
        "server/handle tools/call valid (decode + dispatch)",
        VALID,
        false,
    );
    handle(
        "server/handle tools/call invalid (decode + dispatch)",
        INVALID,
        true,
    );
    handle("server/handle tools/list (decode + dispatch)", LIST, false);

    // The table builds its tools on first use; the first `iter` is that use.
    c.bench_function("server/build: schemas and validators of 3 tools", |b| {
        b.iter(|| {
            let server = tasks::server();
            black_box(server.tools().iter().count());
            server
        })
    });
    c.bench_function(
        "server/build: the server alone (tools built on first use)",
        |b| b.iter(|| black_box(tasks::server())),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
