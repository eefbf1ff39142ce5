//! The floor of the stdio benchmark: the least an MCP server over stdio can do per call. It
//! reads one line, parses it with serde_json, and writes a canned response carrying the request's
//! id, padded to `FLOOR_RESPONSE_BYTES` (default 256) so it is as long as the real server's.
//!
//! By default every response is flushed on its own (one `write` per response, like a server that
//! writes each message as it is ready); with `FLOOR_FLUSH=batch` output is flushed only when no
//! more input is buffered, so a burst of requests costs one `write`: the least any server can do.

use std::io::{BufRead, BufReader, BufWriter, Write};

const INITIALIZE: &str = r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"floor","version":"1.0.0"}}"#;

fn main() -> std::io::Result<()> {
    let target: usize = std::env::var("FLOOR_RESPONSE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let batch = std::env::var("FLOOR_FLUSH").as_deref() == Ok("batch");
    let padding = vec![b'x'; target];
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let Ok(message) = serde_json::from_slice::<serde_json::Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id") else {
            continue; // a notification
        };
        let id = id.to_string();
        if message.get("method").and_then(|m| m.as_str()) == Some("initialize") {
            writeln!(
                output,
                r#"{{"jsonrpc":"2.0","id":{id},"result":{INITIALIZE}}}"#
            )?;
        } else {
            let head = r#"{"jsonrpc":"2.0","id":"#;
            let middle = r#","result":{"content":[{"type":"text","text":""#;
            let tail = r#""}]}}"#;
            let fixed = head.len() + id.len() + middle.len() + tail.len() + 1;
            let pad = target.saturating_sub(fixed);
            output.write_all(head.as_bytes())?;
            output.write_all(id.as_bytes())?;
            output.write_all(middle.as_bytes())?;
            output.write_all(&padding[..pad])?;
            output.write_all(tail.as_bytes())?;
            output.write_all(b"\n")?;
        }
        if !batch || input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}
