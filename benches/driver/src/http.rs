//! The load driver over MCP Streamable HTTP: hyper's HTTP/1.1 client, one keep-alive connection
//! per concurrent client, each sending its next request when the previous answer has arrived
//! (closed loop), all on one current-thread tokio runtime (the driver takes at most one of the
//! machine's cores).
//!
//! Why not `wrk` or `oha`: neither can open a session per connection and carry its
//! `Mcp-Session-Id` on the connection's later requests, nor check that every answer is the
//! JSON-RPC answer to the request just sent (the id, and whether a call was rejected); a small
//! hyper client can, at a cost the driver pays on its own core.
//!
//! ```text
//! driver http  --peer "name|modes|command"... [--workloads valid,invalid,list,session]
//!              [--windows 1,32,256] [--repeat 3] [--warmup-ms 500] [--measure-ms 2000]
//!              [--sessions 10000] [--json results.json] [--count-failures]
//! driver http  --quick --peer "ours|stateless,session|target/release/tasks --http {addr}"
//! ```
//!
//! `modes` is `stateless` (2026-07-28 requests: no session, the `_meta` envelope and the
//! `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers), `session` (handshake era:
//! `initialize` once per connection at 2025-06-18, then calls carrying `Mcp-Session-Id`), or
//! both. `{addr}` in the command is replaced by a free loopback address the driver picked; the
//! driver waits until it accepts connections. The first peer is "ours"; a peer of the `floor`
//! or `bare` family (`floor`, `bare`: the name up to its first `-`) gets `FLOOR_RESPONSE_BYTES`
//! set to ours' mean body size for the workload.
//!
//! A call that fails (a transport error, or an answer that is not the request's) ends the run
//! with an error, unless `--count-failures` is given: then it is counted (the `failed` column and
//! JSON field; its time is not in the latencies), a broken connection is opened again, and the
//! run goes on. `benches/rolling.sh` uses it to measure calls through a rolling restart.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper_util::rt::TokioIo;

use crate::{
    RunResult, Spawned, Workload, cpu_ns, load_average, median, median_result, peak_rss_kib,
    percentile, status_kib, sys_share, user_sys_ticks,
};

const STATELESS: &str = "2026-07-28";
const HANDSHAKE: &str = "2025-06-18";
const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-bench-driver","version":"1.0.0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// What the HTTP benchmark measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum HttpWorkload {
    /// Stateless `tools/call`, valid arguments.
    Valid,
    /// Stateless `tools/call`, each breaking one published constraint.
    Invalid,
    /// Stateless `tools/list`.
    List,
    /// The valid calls on a handshake-era session (one `initialize` per connection).
    Session,
    /// Stateless `tools/call` of `step`, a tool that reports progress once (the request has a
    /// `progressToken`): answered as an event stream. Served by peers in mode `sse`.
    Sse,
}

impl HttpWorkload {
    fn parse(s: &str) -> Option<HttpWorkload> {
        Some(match s {
            "valid" => HttpWorkload::Valid,
            "invalid" => HttpWorkload::Invalid,
            "list" => HttpWorkload::List,
            "session" => HttpWorkload::Session,
            "sse" => HttpWorkload::Sse,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            HttpWorkload::Valid => "valid",
            HttpWorkload::Invalid => "invalid",
            HttpWorkload::List => "list",
            HttpWorkload::Session => "session",
            HttpWorkload::Sse => "sse",
        }
    }

    fn calls(self) -> Workload {
        match self {
            HttpWorkload::Valid | HttpWorkload::Session | HttpWorkload::Sse => Workload::Valid,
            HttpWorkload::Invalid => Workload::Invalid,
            HttpWorkload::List => Workload::List,
        }
    }

    fn session(self) -> bool {
        self == HttpWorkload::Session
    }
}

/// A server to measure: its name, the modes it serves and how to start it.
#[derive(Clone, Debug)]
pub(crate) struct Peer {
    name: String,
    stateless: bool,
    session: bool,
    sse: bool,
    command: String,
}

impl Peer {
    pub(crate) fn parse(spec: &str) -> Result<Peer, String> {
        let mut parts = spec.splitn(3, '|');
        let (Some(name), Some(modes), Some(command)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!("--peer takes name|modes|command, not {spec:?}"));
        };
        let modes: Vec<&str> = modes.split(',').collect();
        if let Some(bad) = modes
            .iter()
            .find(|m| !["stateless", "session", "sse"].contains(m))
        {
            return Err(format!("unknown mode {bad:?} (stateless, session, sse)"));
        }
        Ok(Peer {
            name: name.to_owned(),
            stateless: modes.contains(&"stateless"),
            session: modes.contains(&"session"),
            sse: modes.contains(&"sse"),
            command: command.to_owned(),
        })
    }

    fn serves(&self, w: HttpWorkload) -> bool {
        match w {
            HttpWorkload::Session => self.session,
            HttpWorkload::Sse => self.sse,
            _ => self.stateless,
        }
    }

    fn family(&self) -> &str {
        self.name.split('-').next().unwrap_or(&self.name)
    }
}

/// A running server: the process (killed when dropped) and the address it serves.
pub(crate) struct Running {
    spawned: Spawned,
    pub(crate) addr: SocketAddr,
}

impl Running {
    pub(crate) fn pid(&self) -> u32 {
        self.spawned.child.id()
    }
}

fn free_addr() -> Result<SocketAddr, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    l.local_addr().map_err(|e| e.to_string())
}

pub(crate) fn start(peer: &Peer, floor_bytes: Option<usize>) -> Result<Running, String> {
    let addr = free_addr()?;
    let command = peer.command.replace("{addr}", &addr.to_string());
    let mut words = command.split_whitespace();
    let program = words.next().ok_or("an empty command")?;
    let mut cmd = Command::new(program);
    cmd.args(words)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(bytes) = floor_bytes {
        cmd.env("FLOOR_RESPONSE_BYTES", bytes.to_string());
    }
    let child = cmd
        .spawn()
        .map_err(|e| format!("spawning {program}: {e}"))?;
    let mut spawned = Spawned { child, kill: true };
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(addr).is_err() {
        if let Ok(Some(status)) = spawned.child.try_wait() {
            return Err(format!("{} exited before serving: {status}", peer.name));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{} did not listen on {addr} within 30 s",
                peer.name
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Running { spawned, addr })
}

/// One keep-alive connection, and the session it opened, if any.
struct Conn {
    send: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    session: Option<HeaderValue>,
}

/// An answer: the status, the `Mcp-Session-Id` header, the content type and the body.
struct Answer {
    status: u16,
    session: Option<HeaderValue>,
    event_stream: bool,
    body: Bytes,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Result<Conn, String> {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Conn {
            send,
            host: HeaderValue::from_str(&addr.to_string()).map_err(|e| e.to_string())?,
            session: None,
        })
    }

    /// `POST /mcp` of `body`; stateless requests carry the 2026-07-28 headers for `call`.
    async fn post(
        &mut self,
        body: Bytes,
        stateless: Option<(&str, Option<&str>)>,
    ) -> Result<Answer, String> {
        let mut req = hyper::Request::post("/mcp")
            .header(HOST, self.host.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        if let Some((method, tool)) = stateless {
            req = req
                .header("mcp-protocol-version", STATELESS)
                .header("mcp-method", method);
            if let Some(tool) = tool {
                req = req.header("mcp-name", tool);
            }
        } else if let Some(session) = &self.session {
            req = req
                .header("mcp-protocol-version", HANDSHAKE)
                .header("mcp-session-id", session.clone());
        }
        let req = req.body(Full::new(body)).map_err(|e| e.to_string())?;
        self.send
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let response = self
            .send
            .send_request(req)
            .await
            .map_err(|e| format!("request: {e}"))?;
        let status = response.status().as_u16();
        let session = response.headers().get("mcp-session-id").cloned();
        let event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        Ok(Answer {
            status,
            session,
            event_stream,
            body,
        })
    }

    /// `initialize` and `notifications/initialized`: the connection's later requests carry the
    /// session's id.
    async fn open_session(&mut self) -> Result<(), String> {
        self.session = None;
        let init = self
            .post(Bytes::from_static(INITIALIZE.as_bytes()), None)
            .await?;
        let session = init.session.ok_or_else(|| {
            format!(
                "initialize answered {} without Mcp-Session-Id: {}",
                init.status,
                String::from_utf8_lossy(&init.body)
            )
        })?;
        if init.status != 200 || !crate::contains(&init.body, b"\"result\"") {
            return Err(format!("initialize answered {}", init.status));
        }
        self.session = Some(session);
        let ack = self
            .post(Bytes::from_static(INITIALIZED.as_bytes()), None)
            .await?;
        if !(200..300).contains(&ack.status) {
            return Err(format!("notifications/initialized answered {}", ack.status));
        }
        Ok(())
    }
}

/// The requests of a workload, each split around its id.
struct Plan {
    /// Per variant: the method, the tool, and the body after the id.
    variants: Vec<(&'static str, Option<&'static str>, String)>,
    stateless: bool,
}

impl Plan {
    fn new(w: HttpWorkload) -> Plan {
        if w == HttpWorkload::Sse {
            let meta = format!("{},\"progressToken\":1}}", &META[..META.len() - 1]);
            let body = format!(
                r#","method":"tools/call","params":{{"name":"step","arguments":{{}},"_meta":{meta}}}}}"#
            );
            return Plan {
                variants: vec![("tools/call", Some("step"), body)],
                stateless: true,
            };
        }
        let calls = w.calls();
        let meta = (!w.session()).then_some(META);
        let variants = (0..calls.variants())
            .map(|i| {
                let (method, tool, _) = calls.call(i);
                (method, tool, format!(",{}}}", calls.body(i, meta)))
            })
            .collect();
        Plan {
            variants,
            stateless: !w.session(),
        }
    }

    /// Request number `n`: its body and, when stateless, its method and tool for the headers.
    fn request(&self, n: usize) -> (Bytes, Option<(&'static str, Option<&'static str>)>) {
        let (method, tool, rest) = &self.variants[n % self.variants.len()];
        let body = format!(r#"{{"jsonrpc":"2.0","id":{n}{rest}"#);
        (
            Bytes::from(body),
            self.stateless.then_some((*method, *tool)),
        )
    }
}

/// True when `body` holds a JSON-RPC message whose `"id"` is `id` (the first `"id":` member
/// with digits; a result's own `"id"` members hold strings).
fn answers(body: &[u8], id: usize) -> bool {
    const KEY: &[u8] = b"\"id\":";
    let mut rest = body;
    while let Some(at) = rest.windows(KEY.len()).position(|w| w == KEY) {
        rest = &rest[at + KEY.len()..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 {
            return std::str::from_utf8(&rest[..digits])
                .ok()
                .and_then(|s| s.parse::<usize>().ok())
                == Some(id);
        }
    }
    false
}

const WARMING: u8 = 0;
const MEASURING: u8 = 1;
const STOPPED: u8 = 2;

/// What one connection saw while the clock ran.
#[derive(Default)]
struct ConnStats {
    latencies_ns: Vec<u64>,
    rejected: usize,
    body_bytes: usize,
    failed: usize,
}

async fn client(
    addr: SocketAddr,
    plan: Arc<Plan>,
    w: HttpWorkload,
    next: Arc<AtomicUsize>,
    phase: Arc<AtomicU8>,
    count_failures: bool,
) -> Result<ConnStats, String> {
    let (session, sse) = (w.session(), w == HttpWorkload::Sse);
    let open = || async move {
        let mut conn = Conn::open(addr).await?;
        if session {
            conn.open_session().await?;
        }
        Ok::<Conn, String>(conn)
    };
    let mut conn = open().await?;
    let mut stats = ConnStats::default();
    loop {
        if phase.load(Ordering::Relaxed) == STOPPED {
            return Ok(stats);
        }
        let n = next.fetch_add(1, Ordering::Relaxed) + 1;
        let (body, headers) = plan.request(n);
        let sent = Instant::now();
        // The failure, and whether the connection broke.
        let answer = match conn.post(body, headers).await {
            Ok(answer) if answers(&answer.body, n) && (!sse || answer.event_stream) => Ok(answer),
            Ok(answer) => Err((
                format!(
                    "status {}: not the answer to request {n}: {}",
                    answer.status,
                    String::from_utf8_lossy(&answer.body)
                ),
                false,
            )),
            Err(e) => Err((e, true)),
        };
        let took = sent.elapsed();
        let answer = match answer {
            Ok(answer) => answer,
            Err((why, _)) if !count_failures => return Err(why),
            Err((_, broken)) => {
                if phase.load(Ordering::Relaxed) == MEASURING {
                    stats.failed += 1;
                }
                if broken {
                    conn = open().await?;
                }
                continue;
            }
        };
        if phase.load(Ordering::Relaxed) == MEASURING {
            stats.latencies_ns.push(took.as_nanos() as u64);
            stats.body_bytes += answer.body.len();
            if crate::is_rejection(&answer.body) {
                stats.rejected += 1;
            }
        }
    }
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

fn run(
    peer: &Peer,
    w: HttpWorkload,
    window: usize,
    timing: (Duration, Duration),
    floor_bytes: Option<usize>,
    count_failures: bool,
) -> Result<RunResult, String> {
    let server = start(peer, floor_bytes)?;
    let pid = server.pid();
    let plan = Arc::new(Plan::new(w));
    let next = Arc::new(AtomicUsize::new(0));
    let phase = Arc::new(AtomicU8::new(WARMING));
    let load = load_average();
    runtime()?.block_on(async {
        let clients: Vec<_> = (0..window)
            .map(|_| {
                tokio::spawn(client(
                    server.addr,
                    plan.clone(),
                    w,
                    next.clone(),
                    phase.clone(),
                    count_failures,
                ))
            })
            .collect();
        tokio::time::sleep(timing.0).await;
        let ticks_before = user_sys_ticks(pid)?;
        let cpu_before = cpu_ns(pid)?;
        let t0 = Instant::now();
        phase.store(MEASURING, Ordering::Relaxed);
        tokio::time::sleep(timing.1).await;
        phase.store(STOPPED, Ordering::Relaxed);
        let cpu_after = cpu_ns(pid)?;
        let ticks_after = user_sys_ticks(pid)?;
        let elapsed = t0.elapsed();
        let rss = peak_rss_kib(pid)?;
        let mut all = ConnStats::default();
        for c in clients {
            let stats = c.await.map_err(|e| e.to_string())??;
            all.latencies_ns.extend(stats.latencies_ns);
            all.rejected += stats.rejected;
            all.body_bytes += stats.body_bytes;
            all.failed += stats.failed;
        }
        let calls = all.latencies_ns.len();
        if calls == 0 {
            return Err("no call completed while measuring".to_owned());
        }
        all.latencies_ns.sort_unstable();
        let p = |q| percentile(&all.latencies_ns, q) / 1e3;
        Ok(RunResult {
            calls_per_s: calls as f64 / elapsed.as_secs_f64(),
            p50_us: p(50.0),
            p99_us: p(99.0),
            p999_us: p(99.9),
            cpu_us_per_call: (cpu_after - cpu_before) as f64 / 1e3 / calls as f64,
            sys_share: sys_share(ticks_before, ticks_after),
            peak_rss_kib: rss as f64,
            rejected: all.rejected as f64 / calls as f64,
            mean_response_bytes: all.body_bytes as f64 / calls as f64,
            load,
            startup_ms: 0.0,
            failed: all.failed as f64,
        })
    })
}

/// Memory per idle session: `count` sessions opened over `conns` connections, the resident set
/// after them minus the resident set with one session open, divided by the sessions added.
fn idle_sessions(peer: &Peer, count: usize, conns: usize) -> Result<f64, String> {
    let server = start(peer, None)?;
    let pid = server.pid();
    runtime()?.block_on(async {
        let mut first = Conn::open(server.addr).await?;
        first.open_session().await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let before = status_kib(pid, "VmRSS")?;
        let per_conn = (count - 1).div_ceil(conns);
        let mut tasks = Vec::new();
        for c in 0..conns {
            let n = per_conn.min((count - 1).saturating_sub(c * per_conn));
            let addr = server.addr;
            tasks.push(tokio::spawn(async move {
                let mut conn = Conn::open(addr).await?;
                for _ in 0..n {
                    conn.open_session().await?;
                }
                Ok::<_, String>(())
            }));
        }
        for t in tasks {
            t.await.map_err(|e| e.to_string())??;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = status_kib(pid, "VmRSS")?;
        Ok((after as f64 - before as f64) * 1024.0 / (count - 1) as f64)
    })
}

/// The answers of a short exchange, checked in full (no timing): what CI runs against ours.
/// Every invalid call must be rejected by the first peer (ours); the others' count is printed.
fn quick(peer: &Peer, strict: bool) -> Result<(), String> {
    let server = start(peer, None)?;
    let workloads = [
        HttpWorkload::Valid,
        HttpWorkload::Invalid,
        HttpWorkload::List,
        HttpWorkload::Session,
        HttpWorkload::Sse,
    ];
    runtime()?.block_on(async {
        for w in workloads.into_iter().filter(|&w| peer.serves(w)) {
            let plan = Plan::new(w);
            let mut conn = Conn::open(server.addr).await?;
            if w.session() {
                conn.open_session().await?;
            }
            let total = 2 * plan.variants.len();
            let mut rejected = 0;
            for n in 1..=total {
                let (body, headers) = plan.request(n);
                let answer = conn.post(body, headers).await?;
                let fail = |e: String| {
                    let body = String::from_utf8_lossy(&answer.body);
                    format!("{} {}: request {n}: {e}: {body}", peer.name, w.name())
                };
                rejected += usize::from(check(w, n, &answer).map_err(fail)?);
            }
            if strict && w == HttpWorkload::Invalid && rejected != total {
                return Err(format!(
                    "{}: {rejected} of {total} invalid calls rejected",
                    peer.name
                ));
            }
            println!(
                "{} {}: {total} answers checked, {rejected} rejected",
                peer.name,
                w.name()
            );
        }
        Ok(())
    })
}

/// The JSON-RPC message in an answer: the body itself, or the event-stream `data` that carries
/// the response (the last one with an id).
fn message(answer: &Answer) -> Result<serde_json::Value, String> {
    if !answer.event_stream {
        return serde_json::from_slice(&answer.body).map_err(|e| format!("not JSON ({e})"));
    }
    let text = std::str::from_utf8(&answer.body).map_err(|e| e.to_string())?;
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d.trim()).ok())
        .rfind(|m| m.get("id").is_some())
        .ok_or_else(|| "no response in the event stream".to_owned())
}

/// Checks one answer; `true` when it rejects the call.
fn check(w: HttpWorkload, n: usize, answer: &Answer) -> Result<bool, String> {
    let m = message(answer)?;
    if m["id"].as_u64() != Some(n as u64) {
        return Err("a different id".into());
    }
    let result = &m["result"];
    match w {
        HttpWorkload::Valid | HttpWorkload::Session => {
            if answer.status != 200
                || result["isError"] == true
                || !result["structuredContent"].is_object()
            {
                return Err(format!("status {}, not a structured result", answer.status));
            }
        }
        HttpWorkload::Invalid => return Ok(result["isError"] == true || m["error"].is_object()),
        HttpWorkload::Sse => {
            let progress = std::str::from_utf8(&answer.body)
                .is_ok_and(|t| t.contains("notifications/progress"));
            if !answer.event_stream || !progress || result["isError"] == true {
                return Err("not an event stream with progress, then the result".into());
            }
        }
        HttpWorkload::List => {
            let mut names: Vec<&str> = result["tools"]
                .as_array()
                .ok_or("no tools")?
                .iter()
                .filter_map(|t| t["name"].as_str())
                .collect();
            names.sort_unstable();
            if names != ["add_task", "complete_task", "list_tasks"] {
                return Err(format!("tools {names:?}"));
            }
        }
    }
    Ok(false)
}

struct Args {
    peers: Vec<Peer>,
    workloads: Vec<HttpWorkload>,
    windows: Vec<usize>,
    repeat: usize,
    warmup: Duration,
    measure: Duration,
    sessions: usize,
    json: Option<String>,
    quick: bool,
    count_failures: bool,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut it = args;
    let mut a = Args {
        peers: Vec::new(),
        workloads: vec![
            HttpWorkload::Valid,
            HttpWorkload::Invalid,
            HttpWorkload::List,
            HttpWorkload::Session,
        ],
        windows: vec![1, 32, 256],
        repeat: 3,
        warmup: Duration::from_millis(500),
        measure: Duration::from_millis(2000),
        sessions: 10_000,
        json: None,
        quick: false,
        count_failures: false,
    };
    let num = |v: String, flag: &str| -> Result<u64, String> {
        v.parse().map_err(|_| format!("{flag} takes a number"))
    };
    while let Some(flag) = it.next() {
        if flag == "--quick" {
            a.quick = true;
            continue;
        }
        if flag == "--count-failures" {
            a.count_failures = true;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--peer" => a.peers.push(Peer::parse(&value)?),
            "--workloads" => {
                a.workloads = value
                    .split(',')
                    .map(|w| HttpWorkload::parse(w).ok_or(format!("unknown workload {w}")))
                    .collect::<Result<_, _>>()?
            }
            "--windows" => {
                a.windows = value
                    .split(',')
                    .map(|w| num(w.to_owned(), "--windows").map(|n| n as usize))
                    .collect::<Result<_, _>>()?
            }
            "--repeat" => a.repeat = num(value, &flag)? as usize,
            "--warmup-ms" => a.warmup = Duration::from_millis(num(value, &flag)?),
            "--measure-ms" => a.measure = Duration::from_millis(num(value, &flag)?),
            "--sessions" => a.sessions = num(value, &flag)? as usize,
            "--json" => a.json = Some(value),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if a.peers.is_empty() {
        return Err("http needs at least one --peer".into());
    }
    Ok(a)
}

type Key = (HttpWorkload, usize, String);

/// A target's peer family, the measure, and whether more is better.
type Target = (&'static str, fn(&RunResult) -> f64, bool);

/// `driver http ...`: the whole HTTP suite, or `--quick`.
pub(crate) fn main(args: impl Iterator<Item = String>) -> Result<(), String> {
    let a = parse_args(args)?;
    if a.quick {
        return a
            .peers
            .iter()
            .enumerate()
            .try_for_each(|(i, p)| quick(p, i == 0));
    }
    let ours = a.peers[0].clone();
    let mut results: BTreeMap<Key, Vec<RunResult>> = BTreeMap::new();
    let mut sessions: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut json = Vec::new();
    let mut floor_bytes: BTreeMap<HttpWorkload, usize> = BTreeMap::new();
    for rep in 0..a.repeat {
        for &w in &a.workloads {
            for &window in &a.windows {
                for peer in a.peers.iter().filter(|p| p.serves(w)) {
                    let bytes = matches!(peer.family(), "floor" | "bare")
                        .then(|| floor_bytes.get(&w).copied().unwrap_or(256));
                    let timing = (a.warmup, a.measure);
                    let r = run(peer, w, window, timing, bytes, a.count_failures)
                        .map_err(|e| format!("{} {} W={window}: {e}", peer.name, w.name()))?;
                    if peer.name == ours.name {
                        floor_bytes
                            .entry(w)
                            .or_insert(r.mean_response_bytes.round() as usize);
                    }
                    let failed = if a.count_failures {
                        format!(" failed {}", r.failed)
                    } else {
                        String::new()
                    };
                    eprintln!(
                        "{} #{rep} load {:.2}{failed}",
                        row(&peer.name, w, window, &r),
                        r.load
                    );
                    json.push(crate::record("http", w.name(), window, &peer.name, rep, &r));
                    results
                        .entry((w, window, peer.name.clone()))
                        .or_default()
                        .push(r);
                }
            }
        }
        if a.sessions > 1 {
            for peer in a.peers.iter().filter(|p| p.session && p.name != "floor") {
                let per = idle_sessions(peer, a.sessions, 32)
                    .map_err(|e| format!("{} idle sessions: {e}", peer.name))?;
                eprintln!("{}: {per:.0} bytes per idle session #{rep}", peer.name);
                json.push(serde_json::json!({
                    "transport": "http", "workload": "idle-sessions", "server": peer.name,
                    "repeat": rep, "sessions": a.sessions, "bytes_per_session": per,
                    "load1": load_average(),
                }));
                sessions.entry(peer.name.clone()).or_default().push(per);
            }
        }
    }
    if let Some(path) = &a.json {
        crate::write_json(path, &json)?;
    }
    report(&a, &results, &sessions);
    Ok(())
}

fn row(server: &str, w: HttpWorkload, window: usize, r: &RunResult) -> String {
    format!(
        "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.0}% | {:.0} | {:.2} |",
        w.name(),
        window,
        server,
        r.calls_per_s,
        r.p50_us,
        r.p99_us,
        r.p999_us,
        r.cpu_us_per_call,
        r.peak_rss_kib / 1024.0,
        r.rejected * 100.0,
        r.mean_response_bytes,
        r.load,
    )
}

/// The medians, and ours against the best peer of each family on each measure.
fn report(
    a: &Args,
    results: &BTreeMap<Key, Vec<RunResult>>,
    sessions: &BTreeMap<String, Vec<f64>>,
) {
    let medians: BTreeMap<&Key, RunResult> =
        results.iter().map(|(k, v)| (k, median_result(v))).collect();
    println!(
        "Medians of {} runs, {} ms measured after {} ms of warm-up.\n",
        a.repeat,
        a.measure.as_millis(),
        a.warmup.as_millis()
    );
    println!(
        "| workload | W | server | calls/s | p50 µs | p99 µs | p999 µs | server CPU µs/call | peak RSS MiB | rejected | bytes/resp | load |"
    );
    println!("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (k, r) in &medians {
        println!("{}", row(&k.2, k.0, k.1, r));
    }
    let ours = &a.peers[0].name;
    let best =
        |w: HttpWorkload, window: usize, family: &str, f: fn(&RunResult) -> f64, max: bool| {
            a.peers
                .iter()
                .filter(|p| p.family() == family && &p.name != ours)
                .filter_map(|p| medians.get(&(w, window, p.name.clone())).map(f))
                .reduce(|x, y| if max { x.max(y) } else { x.min(y) })
        };
    let ratio = |x: f64, y: Option<f64>| {
        y.filter(|y| *y > 0.0)
            .map_or("–".to_owned(), |y| format!("{:.3}", x / y))
    };
    println!("\nRatios, ours against the best of each family on that measure:\n");
    println!(
        "| workload | W | calls/s vs rmcp (≥ 2) | CPU/call vs rmcp (≤ 0.4) | p99 vs rmcp (≤ 0.5) | CPU/call vs python (≤ 0.025) | CPU/call vs floor (≤ 2) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &w in &a.workloads {
        for &window in &a.windows {
            let Some(o) = medians.get(&(w, window, ours.clone())) else {
                continue;
            };
            let targets: [Target; 5] = [
                ("rmcp", |r| r.calls_per_s, true),
                ("rmcp", |r| r.cpu_us_per_call, false),
                ("rmcp", |r| r.p99_us, false),
                ("python", |r| r.cpu_us_per_call, false),
                ("floor", |r| r.cpu_us_per_call, false),
            ];
            let cells: Vec<String> = targets
                .iter()
                .map(|&(family, f, max)| ratio(f(o), best(w, window, family, f, max)))
                .collect();
            println!("| {} | {window} | {} |", w.name(), cells.join(" | "));
        }
    }
    if !sessions.is_empty() {
        println!(
            "\nMemory per idle session ({} sessions, median bytes):\n",
            a.sessions
        );
        for (name, v) in sessions {
            println!("- {name}: {:.0}", median(v.clone()));
        }
    }
}
