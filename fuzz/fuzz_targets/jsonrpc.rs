//! One JSON-RPC line through `Incoming::parse` and `Server::handle`, after a prelude the first
//! byte chooses so that tool calls are reached:
//!
//! - 0: none, the line alone on a fresh connection;
//! - 1: `initialize` 2025-06-18 and `notifications/initialized`, then the line;
//! - 2: `initialize` 2025-03-26 and `notifications/initialized`, then the line;
//! - 3: `initialize` 2025-11-25 (with elicitation and sampling capabilities), then the line;
//! - 4: stateless (2026-07-28): the line is parsed as JSON and, when it is an object whose
//!   `params` is an object without `_meta`, the `_meta` envelope is put in before handling;
//! - 5: initialized 2025-06-18, then the second byte picks a tool and the rest is its
//!   `arguments` (any JSON, or invalid JSON, sent as a string) in a `tools/call`.
//!
//! Any answer is fine; a panic anywhere (the runtime's contained ones included) is a crash.

#![no_main]

use std::time::Duration;

use fuzz_support::{TOOL_NAMES, abort_on_any_panic, runtime, server};
use libfuzzer_sys::fuzz_target;
use mcp_runtime::Connection;
use mcp_runtime::protocol::Incoming;
use serde_json::{Value, json};

/// The per-input bound: every step of an input together.
const TIMEOUT: Duration = Duration::from_millis(500);

fn initialize(version: &str, capabilities: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "fuzz", "version": "0"}
        }
    })
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"},
        "io.modelcontextprotocol/logLevel": "debug"
    })
}

async fn run(data: &[u8]) {
    let server = server();
    let (conn, mut rx) = Connection::new();
    let Some((&mode, line)) = data.split_first() else {
        return;
    };
    let prelude = match mode % 6 {
        1 | 5 => vec![initialize("2025-06-18", json!({})), initialized()],
        2 => vec![initialize("2025-03-26", json!({})), initialized()],
        3 => vec![
            initialize(
                "2025-11-25",
                json!({"elicitation": {}, "sampling": {}, "roots": {}}),
            ),
            initialized(),
        ],
        _ => vec![],
    };
    for message in prelude {
        let _ = server.handle_value(message, &conn).await;
    }
    match mode % 6 {
        4 => match serde_json::from_slice::<Value>(line) {
            Ok(mut value) => {
                if let Some(params) = value.get_mut("params").and_then(Value::as_object_mut) {
                    params.entry("_meta").or_insert_with(envelope);
                }
                let _ = server.handle_value(value, &conn).await;
            }
            Err(_) => handle_line(line, &conn).await,
        },
        5 => {
            let Some((&tool, args)) = line.split_first() else {
                return;
            };
            let name = TOOL_NAMES[tool as usize % TOOL_NAMES.len()];
            let arguments = serde_json::from_slice::<Value>(args)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(args).into_owned()));
            let call = json!({
                "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": 1}}
            });
            let _ = server.handle_value(call, &conn).await;
        }
        _ => handle_line(line, &conn).await,
    }
    while rx.try_recv().is_some() {}
}

async fn handle_line(line: &[u8], conn: &Connection) {
    match Incoming::parse(line) {
        Ok(incoming) => {
            let _ = server().handle(incoming, conn).await;
        }
        Err(rejected) => {
            let _ = rejected.to_response();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let rt = runtime();
    abort_on_any_panic();
    let _ = rt.block_on(async { tokio::time::timeout(TIMEOUT, run(data)).await });
});
