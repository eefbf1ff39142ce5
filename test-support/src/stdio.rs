//! A server spoken to line by line in JSON-RPC: a child process over its stdin and stdout, or a
//! [`Server`] in memory over `Server::serve_io` (as stdio runs it), in either protocol era.

use std::process::Stdio;

use mcp_runtime::Server;
use mcp_runtime::transport::stdio::{Line, LineReader};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use crate::HANG;

/// Which protocol era a peer speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `initialize` at 2025-11-25.
    Handshake,
    /// 2026-07-28, a `_meta` envelope on every request.
    Stateless,
}

/// Both eras.
pub const ERAS: [Era; 2] = [Era::Handshake, Era::Stateless];

impl Era {
    /// The in-process client of this era on `server`.
    pub async fn client(self, server: &Server) -> mcp_runtime::Client {
        let builder = mcp_runtime::Client::builder();
        let builder = match self {
            Era::Handshake => builder,
            Era::Stateless => builder.stateless(),
        };
        builder
            .in_process(server)
            .await
            .expect("the in-process client connects")
    }

    /// The protocol version a client of this era ends up speaking.
    pub fn version(self) -> &'static str {
        match self {
            Era::Handshake => "2025-11-25",
            Era::Stateless => "2026-07-28",
        }
    }
}

/// Starts `bin args…` with piped stdin and stdout, `stderr` as given, `RUST_LOG` passed on (or
/// `warn`); killed when dropped.
pub fn spawn(bin: &str, args: &[String], stderr: Stdio) -> Child {
    Command::new(bin)
        .args(args)
        .env(
            "RUST_LOG",
            std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"))
}

/// Reads the piped stderr of `child` to its end in a task; the task returns the text.
pub fn collect_stderr(child: &mut Child) -> JoinHandle<String> {
    use tokio::io::AsyncReadExt;
    let mut err = child.stderr.take().expect("stderr piped");
    tokio::spawn(async move {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text).await;
        text
    })
}

/// A peer that writes raw lines and reads messages one by one: for what a well-behaved client
/// never sends.
pub struct RawPeer {
    writer: Option<Box<dyn AsyncWrite + Unpin + Send>>,
    lines: LineReader<Box<dyn AsyncRead + Unpin + Send>>,
    end: End,
    era: Era,
    next_id: u64,
}

enum End {
    Child(Child),
    Task(JoinHandle<std::io::Result<()>>),
}

impl RawPeer {
    /// A peer on `server` in memory (over `Server::serve_io`, as stdio runs it).
    pub fn in_process(server: &Server, era: Era) -> RawPeer {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let server = server.clone();
        let task = tokio::spawn(async move {
            let (r, w) = tokio::io::split(server_end);
            server.serve_io(r, w).await
        });
        let (r, w) = tokio::io::split(client_end);
        RawPeer::over(Box::new(w), Box::new(r), End::Task(task), era)
    }

    /// A peer on the child process `bin args…`, its stderr inherited (the test's log).
    pub fn child(bin: &str, args: &[String], era: Era) -> RawPeer {
        let mut child = spawn(bin, args, Stdio::inherit());
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        RawPeer::over(Box::new(stdin), Box::new(stdout), End::Child(child), era)
    }

    /// [`RawPeer::child`], the child's stderr read in a task instead (its text, once the child
    /// has ended: [`RawPeer::finish`] first).
    pub fn child_with_stderr(
        bin: &str,
        args: &[String],
        era: Era,
    ) -> (RawPeer, JoinHandle<String>) {
        let mut child = spawn(bin, args, Stdio::piped());
        let stderr = collect_stderr(&mut child);
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let peer = RawPeer::over(Box::new(stdin), Box::new(stdout), End::Child(child), era);
        (peer, stderr)
    }

    /// A peer writing to `writer` and reading lines from `reader`, with `end` kept alive.
    fn over(
        writer: Box<dyn AsyncWrite + Unpin + Send>,
        reader: Box<dyn AsyncRead + Unpin + Send>,
        end: End,
        era: Era,
    ) -> RawPeer {
        RawPeer {
            writer: Some(writer),
            lines: LineReader::new(reader, 1 << 30),
            end,
            era,
            next_id: 1000,
        }
    }

    /// Writes `bytes` and a newline.
    pub async fn send_line(&mut self, bytes: &[u8]) {
        let w = self.writer.as_mut().expect("input still open");
        w.write_all(bytes).await.expect("write");
        w.write_all(b"\n").await.expect("write");
        w.flush().await.expect("flush");
    }

    /// Writes one JSON message.
    pub async fn send(&mut self, message: &Value) {
        self.send_line(message.to_string().as_bytes()).await;
    }

    /// The params of a request in this peer's era: the stateless envelope added when needed.
    pub fn params(&self, mut params: Value) -> Value {
        if self.era == Era::Stateless {
            if !params["_meta"].is_object() {
                params["_meta"] = json!({});
            }
            for (k, v) in envelope().as_object().unwrap() {
                if params["_meta"].get(k).is_none() {
                    params["_meta"][k] = v.clone();
                }
            }
        }
        params
    }

    /// Sends a request in this peer's era and returns its id.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        let params = self.params(params);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Opens the session: `initialize` + `notifications/initialized` in the handshake era,
    /// nothing in the stateless one.
    pub async fn open(&mut self) {
        self.open_at("2025-11-25").await;
    }

    /// [`RawPeer::open`], offering `version` in the handshake era.
    pub async fn open_at(&mut self, version: &str) {
        if self.era == Era::Handshake {
            let id = self.next_id;
            self.send(
                &json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}}),
            )
            .await;
            let r = self.recv().await;
            assert_eq!(r["id"], id, "{r}");
            assert!(r["result"]["protocolVersion"].is_string(), "{r}");
            self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await;
        }
    }

    /// The next message, or `None` at end of output.
    pub async fn try_recv(&mut self) -> Option<Value> {
        let line = self.try_recv_text().await?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("server wrote a line that is not JSON ({e}): {line:?}")),
        )
    }

    /// The next line as written (every digit of a big id kept), or `None` at end of output.
    pub async fn try_recv_text(&mut self) -> Option<String> {
        loop {
            let line = tokio::time::timeout(HANG, self.lines.next_line())
                .await
                .expect("the server answers")
                .expect("read");
            match line? {
                Line::Complete(b) if b.is_empty() => continue,
                Line::Complete(b) => {
                    return Some(String::from_utf8(b).expect("the server writes UTF-8"));
                }
                Line::TooLong(n) => panic!("server wrote a {n}-byte line"),
            }
        }
    }

    /// The next message.
    pub async fn recv(&mut self) -> Value {
        self.try_recv()
            .await
            .expect("a message before end of output")
    }

    /// Reads until the response with `id`; returns it and the messages read before it.
    pub async fn recv_response(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let m = self.recv().await;
            if m.get("method").is_none() && &m["id"] == id {
                return (m, before);
            }
            before.push(m);
        }
    }

    /// Sends a request and returns its response.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params).await;
        self.recv_response(&id).await.0
    }

    /// Sends `tools/call` of `name` with `arguments` and returns the request's id.
    pub async fn request_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// Calls the tool `name` with `arguments` and returns the response.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        let id = self.request_tool(name, arguments).await;
        self.recv_response(&id).await.0
    }

    /// Sends `notifications/cancelled` for the request `id`, with `reason` when given.
    pub async fn cancel(&mut self, id: &Value, reason: Option<&str>) {
        let mut params = json!({"requestId": id});
        if let Some(reason) = reason {
            params["reason"] = reason.into();
        }
        self.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}),
        )
        .await;
    }

    /// Closes the server's input (end of file).
    pub async fn close_input(&mut self) {
        if let Some(mut w) = self.writer.take() {
            let _ = w.shutdown().await;
        }
    }

    /// Reads the rest of the output, then reports how the server ended: the exit code of the
    /// child, or 0 when `serve_io` returned `Ok`.
    pub async fn finish(mut self) -> (Vec<Value>, i32) {
        self.close_input().await;
        let mut rest = Vec::new();
        while let Some(m) = self.try_recv().await {
            rest.push(m);
        }
        let code = match self.end {
            End::Child(mut child) => tokio::time::timeout(HANG, child.wait())
                .await
                .expect("the server exits")
                .expect("wait")
                .code()
                .expect("an exit code"),
            End::Task(task) => match tokio::time::timeout(HANG, task)
                .await
                .expect("serve_io returns")
                .expect("join")
            {
                Ok(()) => 0,
                Err(e) => panic!("serve_io failed: {e}"),
            },
        };
        (rest, code)
    }

    /// [`RawPeer::finish`], asserting that the server ended cleanly (code 0); the rest of the
    /// output.
    pub async fn finish_ok(self) -> Vec<Value> {
        let (rest, code) = self.finish().await;
        assert_eq!(
            code, 0,
            "the server did not end cleanly; it wrote last: {rest:?}"
        );
        rest
    }
}

/// The stateless `_meta` envelope (2026-07-28, no capabilities).
pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    })
}
