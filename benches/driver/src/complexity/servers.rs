//! The servers the battery talks to: `complexity-server` on stdio (pipes of 1 MiB, a reader
//! thread) or over HTTP (one keep-alive connection and a session), each request timed by the
//! server's CPU time.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use super::rows::{Request, Transport};
use crate::{Spawned, cpu_ns};

/// The size the driver asks for the pipes to a stdio server.
const PIPE_BYTES: libc::c_int = 1 << 20;

/// A server on stdio: its stdin, and its stdout's lines from a reader thread.
pub(super) struct StdioServer {
    pid: u32,
    _spawned: Spawned,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Vec<u8>>,
}

impl StdioServer {
    fn start(program: &str, version: &str, timeout: Duration) -> Result<StdioServer, String> {
        let mut child = Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawning {program}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        // Pipes of 1 MiB (Linux's default limit for them) rather than 64 KiB: a request or an
        // answer of megabytes then crosses in a few wakeups of each side, not hundreds.
        for fd in [stdin.as_raw_fd(), stdout.as_raw_fd()] {
            // SAFETY: `fcntl` on a descriptor this process owns; it only sets the pipe's size.
            unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES) };
        }
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 20, stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(n) if n > 0 && tx.send(line).is_ok() => {}
                    _ => return,
                }
            }
        });
        let pid = child.id();
        let spawned = Spawned { child, kill: true };
        let mut server = StdioServer {
            pid,
            _spawned: spawned,
            stdin,
            lines,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "mcp-complexity-driver", "version": "1.0.0"}}});
        let (_, answer) = server.exchange(init.to_string().as_bytes(), timeout)?;
        if answer["result"]["protocolVersion"] != version {
            return Err(format!("initialize answered {answer}"));
        }
        server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
        Ok(server)
    }

    fn send(&mut self, line: &[u8]) -> Result<(), String> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        self.stdin
            .write_all(&bytes)
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("writing to the server: {e}"))
    }

    /// Sends `line` and waits for the answer (the next line that is not a notification): the
    /// server's CPU time meanwhile, and the answer.
    fn exchange(&mut self, line: &[u8], timeout: Duration) -> Result<(Duration, Value), String> {
        let cpu = cpu_ns(self.pid)?;
        let sent = Instant::now();
        self.send(line)?;
        loop {
            let left = timeout.saturating_sub(sent.elapsed());
            let answer = match self.lines.recv_timeout(left) {
                Ok(answer) => answer,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!("timed out after {} s", timeout.as_secs()));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err("the server closed stdout".into());
                }
            };
            let took = Duration::from_nanos(cpu_ns(self.pid)?.saturating_sub(cpu));
            let value: Value = serde_json::from_slice(&answer)
                .map_err(|e| format!("an answer that is not JSON ({e})"))?;
            if value.is_array() || value.get("id").is_some() {
                return Ok((took, value));
            }
        }
    }
}

/// A server over HTTP, one keep-alive connection, and the session it opened.
pub(super) struct HttpServer {
    running: crate::http::Running,
    rt: tokio::runtime::Runtime,
    send: SendRequest<Full<Bytes>>,
    session: String,
}

impl HttpServer {
    fn start(program: &str, timeout: Duration) -> Result<HttpServer, String> {
        let peer =
            crate::http::Peer::parse(&format!("complexity|session|{program} --http {{addr}}"))?;
        let running = crate::http::start(&peer, None)?;
        let rt = crate::http::runtime()?;
        let addr = running.addr;
        let send = rt.block_on(async move {
            let stream = tokio::net::TcpStream::connect(addr)
                .await
                .map_err(|e| e.to_string())?;
            let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|e| format!("handshake: {e}"))?;
            tokio::spawn(conn);
            Ok::<_, String>(send)
        })?;
        let mut server = HttpServer {
            running,
            rt,
            send,
            session: String::new(),
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "mcp-complexity-driver", "version": "1.0.0"}}});
        let json_post = |session: Option<&str>| {
            let mut h = vec![
                ("accept", "application/json, text/event-stream".to_owned()),
                ("content-type", "application/json".to_owned()),
            ];
            if let Some(s) = session {
                h.push(("mcp-session-id", s.to_owned()));
                h.push(("mcp-protocol-version", "2025-06-18".to_owned()));
            }
            h
        };
        let (_, answer, session) =
            server.exchange("POST", &json_post(None), &init.to_string(), timeout)?;
        server.session = session.ok_or_else(|| format!("initialize answered {answer}"))?;
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let headers = json_post(Some(&server.session.clone()));
        server.exchange("POST", &headers, initialized, timeout)?;
        Ok(server)
    }

    /// One request on the connection: the server's CPU time until its whole answer,
    /// `{status, body}`, and the session id it gave, if any. `GET`s carry the session.
    fn exchange(
        &mut self,
        method: &str,
        headers: &[(&'static str, String)],
        body: &str,
        timeout: Duration,
    ) -> Result<(Duration, Value, Option<String>), String> {
        let mut req = hyper::Request::builder()
            .method(method)
            .uri("/mcp")
            .header("host", self.running.addr.to_string());
        if method == "GET" {
            req = req
                .header("mcp-session-id", self.session.as_str())
                .header("mcp-protocol-version", "2025-06-18");
        }
        for (name, value) in headers {
            req = req.header(*name, value.as_str());
        }
        let req = req
            .body(Full::new(Bytes::from(body.to_owned())))
            .map_err(|e| e.to_string())?;
        let send = &mut self.send;
        let cpu = cpu_ns(self.running.pid())?;
        let exchange = async {
            send.ready().await.map_err(|e| format!("connection: {e}"))?;
            let response = send
                .send_request(req)
                .await
                .map_err(|e| format!("request: {e}"))?;
            let status = response.status().as_u16();
            let session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| format!("body: {e}"))?;
            Ok::<_, String>((status, session, body.to_bytes()))
        };
        let (status, session, bytes) = self
            .rt
            .block_on(async { tokio::time::timeout(timeout, exchange).await })
            .map_err(|_| format!("timed out after {} s", timeout.as_secs()))??;
        let took = Duration::from_nanos(cpu_ns(self.running.pid())?.saturating_sub(cpu));
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Ok((took, json!({"status": status, "body": body}), session))
    }
}

/// A server of either kind.
pub(super) enum Server {
    Stdio(StdioServer),
    Http(Box<HttpServer>),
}

impl Server {
    pub(super) fn start(
        program: &str,
        transport: Transport,
        timeout: Duration,
    ) -> Result<Server, String> {
        Ok(match transport {
            Transport::Stdio(version) => {
                Server::Stdio(StdioServer::start(program, version, timeout)?)
            }
            Transport::Http => Server::Http(Box::new(HttpServer::start(program, timeout)?)),
        })
    }

    pub(super) fn exchange(
        &mut self,
        request: &Request,
        timeout: Duration,
    ) -> Result<(Duration, Value), String> {
        match (self, request) {
            (Server::Stdio(s), Request::Line(line)) => s.exchange(line.as_bytes(), timeout),
            (Server::Http(s), Request::Http(method, headers, body)) => s
                .exchange(method, headers, body, timeout)
                .map(|(t, a, _)| (t, a)),
            _ => Err("a request of the other transport".into()),
        }
    }
}
