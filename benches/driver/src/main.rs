//! Load driver for MCP servers over stdio.
//!
//! It spawns a server, performs the 2025-06-18 `initialize` handshake, sends
//! `notifications/initialized`, then sends N requests with W in flight and reports calls/s,
//! p50/p99 latency, the server's CPU time per call (its CPU-time clock; utime + stime from
//! `/proc/<pid>/stat` where that clock is unavailable), its
//! peak RSS (`VmHWM`) and the time from spawn to the `initialize` response.
//!
//! ```text
//! driver run   --cmd "<program> [args]" [--workload valid|invalid|list] [--n 20000] [--window 32]
//! driver suite --server "name=<program> [args]"... [--floor "<program>"] [--n 20000]
//!              [--repeat 3] [--windows 1,32] [--workloads valid,invalid,list] [--raw results.tsv]
//!              [--json results.json]
//! driver http  ...   (Streamable HTTP: see `http.rs`)
//! driver complexity --server <complexity-server> [--quick]   (the complexity battery: see `complexity.rs`)
//! ```
//!
//! `suite` runs every workload at every window for every server, interleaving the servers
//! within each repeat so background noise spreads over all of them, and prints a markdown table
//! of medians and the ratios the performance targets are stated in. The first server is "ours";
//! the floor is started with `FLOOR_RESPONSE_BYTES` set to the mean response size ours produced
//! for the same workload, so it writes as many bytes, once flushing every response (`floor`) and
//! once flushing only when its input is drained (`floor-batch`).

mod complexity;
mod http;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Ids of load requests start here; the handshake uses id 0.
const FIRST_ID: usize = 1000;

/// How to start one server.
#[derive(Clone, Debug)]
struct ServerSpec {
    name: String,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl ServerSpec {
    fn parse(name: &str, command: &str) -> ServerSpec {
        let mut words = command.split_whitespace().map(str::to_owned);
        ServerSpec {
            name: name.to_owned(),
            program: words.next().unwrap_or_default(),
            args: words.collect(),
            env: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Workload {
    /// Valid calls with small responses: complete_task on existing ids, add_task.
    Valid,
    /// Calls that each break one published constraint.
    Invalid,
    /// tools/list.
    List,
}

impl Workload {
    fn parse(s: &str) -> Option<Workload> {
        Some(match s {
            "valid" => Workload::Valid,
            "invalid" => Workload::Invalid,
            "list" => Workload::List,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Workload::Valid => "valid",
            Workload::Invalid => "invalid",
            Workload::List => "list",
        }
    }

    /// Request `i`'s method, the tool it calls (for `tools/call`) and the arguments.
    pub(crate) fn call(self, i: usize) -> (&'static str, Option<&'static str>, String) {
        let call = |name, args: &str| ("tools/call", Some(name), args.to_owned());
        match self {
            Workload::Valid => match i % 4 {
                0 => call("complete_task", r#"{"task_id":"T-1"}"#),
                1 => call(
                    "add_task",
                    r#"{"title":"Tag the release","priority":"high"}"#,
                ),
                2 => call("complete_task", r#"{"task_id":"T-2"}"#),
                _ => call("add_task", r#"{"title":"Write the changelog"}"#),
            },
            Workload::Invalid => match i % 7 {
                // minLength
                0 => call("add_task", r#"{"title":"ab"}"#),
                // maxLength
                1 => call("add_task", &format!(r#"{{"title":"{}"}}"#, "x".repeat(81))),
                // enum
                2 => call(
                    "add_task",
                    r#"{"title":"Tag the release","priority":"urgent"}"#,
                ),
                // pattern
                3 => call("complete_task", r#"{"task_id":"X-1"}"#),
                // required
                4 => call("add_task", r#"{"priority":"low"}"#),
                // type
                5 => call("add_task", r#"{"title":42}"#),
                // additionalProperties: false
                _ => call("add_task", r#"{"title":"Tag the release","colour":"red"}"#),
            },
            Workload::List => ("tools/list", None, String::new()),
        }
    }

    /// How many distinct requests the workload cycles through.
    pub(crate) fn variants(self) -> usize {
        match self {
            Workload::Valid => 4,
            Workload::Invalid => 7,
            Workload::List => 1,
        }
    }

    /// The `method` and `params` members of request `i`; `meta`, when given, is added to the
    /// params as `_meta`.
    pub(crate) fn body(self, i: usize, meta: Option<&str>) -> String {
        let (method, tool, arguments) = self.call(i);
        let meta = meta.map(|m| format!(r#""_meta":{m}"#));
        let members: Vec<String> = tool
            .map(|name| format!(r#""name":"{name}","arguments":{arguments}"#))
            .into_iter()
            .chain(meta)
            .collect();
        format!(r#""method":"{method}","params":{{{}}}"#, members.join(","))
    }

    fn requests(self, n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{},{}}}\n",
                    FIRST_ID + i,
                    self.body(i, None)
                )
                .into_bytes()
            })
            .collect()
    }
}

/// The figures of one run.
#[derive(Clone, Debug, Default)]
struct RunResult {
    calls_per_s: f64,
    p50_us: f64,
    p99_us: f64,
    p999_us: f64,
    cpu_us_per_call: f64,
    /// The kernel's share of the server's CPU time over the measured window (system time over
    /// user + system, from `/proc/<pid>/stat` in clock ticks; NaN if no tick was counted).
    sys_share: f64,
    peak_rss_kib: f64,
    startup_ms: f64,
    /// The one-minute load average when the run started.
    load: f64,
    /// Share of responses that are `isError: true` results or JSON-RPC errors.
    rejected: f64,
    mean_response_bytes: f64,
    /// Calls that failed while measuring (a transport error, or an answer that is not the
    /// request's): counted by `driver http --count-failures` only (otherwise a failure ends the
    /// run), and left out of the latencies.
    failed: f64,
}

fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

/// CPU time of the whole process (live and exited threads), in nanoseconds: the process's
/// CPU-time clock (`clock_getcpuclockid`), which has nanosecond resolution, else utime + stime
/// from `/proc/<pid>/stat`, which counts in clock ticks (usually 10 ms).
fn cpu_ns(pid: u32) -> Result<u64, String> {
    if let Some(ns) = cpu_clock_ns(pid) {
        return Ok(ns);
    }
    Ok(cpu_ticks(pid)? * 1_000_000_000 / clock_ticks_per_second())
}

fn cpu_clock_ns(pid: u32) -> Option<u64> {
    let mut clock: libc::clockid_t = 0;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: both calls only write to the locals passed by pointer.
    unsafe {
        if libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) != 0 {
            return None;
        }
        if libc::clock_gettime(clock, &mut ts) != 0 {
            return None;
        }
    }
    Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// utime + stime of the whole process (live and exited threads), in clock ticks.
fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let (utime, stime) = user_sys_ticks(pid)?;
    Ok(utime + stime)
}

/// The share of system time in the CPU time between two `user_sys_ticks` readings.
fn sys_share(before: (u64, u64), after: (u64, u64)) -> f64 {
    let user = after.0.saturating_sub(before.0) as f64;
    let sys = after.1.saturating_sub(before.1) as f64;
    sys / (user + sys)
}

/// (utime, stime) of the whole process (live and exited threads), in clock ticks.
fn user_sys_ticks(pid: u32) -> Result<(u64, u64), String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("reading /proc/{pid}/stat: {e}"))?;
    // The command name may contain spaces; fields are counted after its closing parenthesis.
    let rest = &stat[stat.rfind(')').ok_or("malformed stat")? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // Fields 14 and 15 of stat(5) are utime and stime; `rest` starts at field 3.
    let utime: u64 = fields[11].parse().map_err(|_| "bad utime")?;
    let stime: u64 = fields[12].parse().map_err(|_| "bad stime")?;
    Ok((utime, stime))
}

/// Peak resident set size in KiB.
fn peak_rss_kib(pid: u32) -> Result<u64, String> {
    status_kib(pid, "VmHWM")
}

/// A size in KiB from `/proc/<pid>/status`: `VmHWM` (peak resident set), `VmRSS` (current).
fn status_kib(pid: u32, field: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("reading /proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {field}"))
}

/// The one-minute load average, from `/proc/loadavg`.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The id of a response line: a fast scan for `"id":<digits>`, else a full parse.
fn response_id(line: &[u8]) -> Option<usize> {
    const KEY: &[u8] = b"\"id\":";
    if let Some(at) = line.windows(KEY.len()).position(|w| w == KEY) {
        let digits = &line[at + KEY.len()..];
        let end = digits
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(digits.len());
        if end > 0
            && let Some(id) = std::str::from_utf8(&digits[..end])
                .ok()
                .and_then(|s| s.parse().ok())
        {
            return Some(id);
        }
    }
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    v.get("id")?.as_u64().map(|n| n as usize)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn is_rejection(line: &[u8]) -> bool {
    contains(line, b"\"isError\":true") || contains(line, b"\"error\":{")
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)] as f64
}

fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> Result<(), String> {
    line.clear();
    match reader.read_until(b'\n', line) {
        Ok(0) => Err("the server closed stdout".to_owned()),
        Ok(_) => Ok(()),
        Err(e) => Err(format!("reading the server: {e}")),
    }
}

struct Spawned {
    child: Child,
    /// Kill at once (a server that never exits by itself, such as an HTTP one).
    kill: bool,
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // Give the server a moment to exit on EOF, then make sure it is gone.
        let grace = if self.kill { 0 } else { 5 };
        let deadline = Instant::now() + Duration::from_secs(grace);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One run: spawn, handshake, a short warm-up, then `n` requests with `window` in flight.
fn run(
    spec: &ServerSpec,
    workload: Workload,
    n: usize,
    window: usize,
) -> Result<RunResult, String> {
    let requests = workload.requests(n);
    let warmup = workload.requests(n.min(200));
    let load = load_average();

    let spawned_at = Instant::now();
    let mut child = Command::new(&spec.program)
        .args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawning {}: {e}", spec.program))?;
    let pid = child.id();
    let mut stdin = BufWriter::with_capacity(64 * 1024, child.stdin.take().unwrap());
    let mut stdout = BufReader::with_capacity(256 * 1024, child.stdout.take().unwrap());
    let spawned = Spawned { child, kill: false };
    let mut line = Vec::with_capacity(64 * 1024);

    let write = |w: &mut BufWriter<_>, bytes: &[u8]| -> Result<(), String> {
        w.write_all(bytes)
            .and_then(|_| w.flush())
            .map_err(|e| format!("writing to the server: {e}"))
    };
    write(
        &mut stdin,
        br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-bench-driver","version":"1.0.0"}}}
"#,
    )?;
    read_line(&mut stdout, &mut line)?;
    let startup = spawned_at.elapsed();
    if response_id(&line) != Some(0) || !contains(&line, b"\"result\"") {
        return Err(format!(
            "unexpected initialize response: {}",
            String::from_utf8_lossy(&line)
        ));
    }
    write(
        &mut stdin,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    )?;

    // Warm-up, one at a time, not measured (ids reuse the load's; each is answered before the next).
    for request in &warmup {
        write(&mut stdin, request)?;
        read_line(&mut stdout, &mut line)?;
    }

    let sent: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
    let (tokens, token_rx) = mpsc::channel::<()>();
    for _ in 0..window {
        tokens.send(()).unwrap();
    }
    let ticks_before = user_sys_ticks(pid)?;
    let cpu_before = cpu_ns(pid)?;
    let t0 = Instant::now();
    let writer = {
        let sent = sent.clone();
        std::thread::spawn(move || -> Result<BufWriter<_>, String> {
            let mut i = 0;
            while i < n {
                if token_rx.recv().is_err() {
                    break;
                }
                loop {
                    sent[i].store(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
                    stdin
                        .write_all(&requests[i])
                        .map_err(|e| format!("writing to the server: {e}"))?;
                    i += 1;
                    if i >= n || token_rx.try_recv().is_err() {
                        break;
                    }
                }
                stdin
                    .flush()
                    .map_err(|e| format!("writing to the server: {e}"))?;
            }
            Ok(stdin)
        })
    };

    let mut latencies = Vec::with_capacity(n);
    let mut rejected = 0usize;
    let mut response_bytes = 0usize;
    let mut outcome = Ok(());
    for _ in 0..n {
        if let Err(e) = read_line(&mut stdout, &mut line) {
            outcome = Err(e);
            break;
        }
        let now = t0.elapsed().as_nanos() as u64;
        let Some(id) = response_id(&line).and_then(|id| id.checked_sub(FIRST_ID)) else {
            outcome = Err(format!(
                "a response without a load id: {}",
                String::from_utf8_lossy(&line)
            ));
            break;
        };
        let Some(at) = sent.get(id) else {
            outcome = Err(format!("a response to an unknown id {}", id + FIRST_ID));
            break;
        };
        latencies.push(now.saturating_sub(at.load(Ordering::Relaxed)));
        response_bytes += line.len();
        if is_rejection(&line) {
            rejected += 1;
        }
        let _ = tokens.send(());
    }
    let elapsed = t0.elapsed();
    let cpu_after = cpu_ns(pid);
    let ticks_after = user_sys_ticks(pid);
    let rss = peak_rss_kib(pid);
    drop(tokens);
    let stdin = writer
        .join()
        .map_err(|_| "the writer panicked".to_owned())?;
    drop(stdin); // EOF: the server exits
    drop(spawned);
    outcome?;
    let cpu_after = cpu_after?;
    let ticks_after = ticks_after?;

    latencies.sort_unstable();
    Ok(RunResult {
        calls_per_s: n as f64 / elapsed.as_secs_f64(),
        p50_us: percentile(&latencies, 50.0) / 1e3,
        p99_us: percentile(&latencies, 99.0) / 1e3,
        p999_us: percentile(&latencies, 99.9) / 1e3,
        cpu_us_per_call: (cpu_after - cpu_before) as f64 / 1e3 / n as f64,
        sys_share: sys_share(ticks_before, ticks_after),
        peak_rss_kib: rss? as f64,
        startup_ms: startup.as_secs_f64() * 1e3,
        load,
        rejected: rejected as f64 / n as f64,
        mean_response_bytes: response_bytes as f64 / n as f64,
        failed: 0.0,
    })
}

/// One run as a JSON object, the unit `benches/charts.py` reads.
fn record(
    transport: &str,
    workload: &str,
    window: usize,
    server: &str,
    repeat: usize,
    r: &RunResult,
) -> serde_json::Value {
    serde_json::json!({
        "transport": transport, "workload": workload, "window": window, "server": server,
        "repeat": repeat, "calls_per_s": r.calls_per_s, "p50_us": r.p50_us, "p99_us": r.p99_us,
        "p999_us": r.p999_us, "cpu_us_per_call": r.cpu_us_per_call, "sys_share": r.sys_share,
        "peak_rss_kib": r.peak_rss_kib, "rejected": r.rejected,
        "bytes": r.mean_response_bytes, "load1": r.load, "failed": r.failed,
    })
}

/// Writes the runs' records (one object per run) for `benches/charts.py`.
fn write_json(path: &str, records: &[serde_json::Value]) -> Result<(), String> {
    let text = serde_json::to_string_pretty(records).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("writing {path}: {e}"))
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

fn median_result(runs: &[RunResult]) -> RunResult {
    let m = |f: fn(&RunResult) -> f64| median(runs.iter().map(f).collect());
    RunResult {
        calls_per_s: m(|r| r.calls_per_s),
        p50_us: m(|r| r.p50_us),
        p99_us: m(|r| r.p99_us),
        p999_us: m(|r| r.p999_us),
        cpu_us_per_call: m(|r| r.cpu_us_per_call),
        sys_share: m(|r| r.sys_share),
        peak_rss_kib: m(|r| r.peak_rss_kib),
        startup_ms: m(|r| r.startup_ms),
        load: m(|r| r.load),
        rejected: m(|r| r.rejected),
        mean_response_bytes: m(|r| r.mean_response_bytes),
        failed: m(|r| r.failed),
    }
}

struct Args {
    mode: String,
    servers: Vec<ServerSpec>,
    floor: Option<String>,
    cmd: Option<String>,
    n: usize,
    repeat: usize,
    windows: Vec<usize>,
    workloads: Vec<Workload>,
    raw: Option<String>,
    json: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mode = it.next().ok_or("usage: driver run|suite [options]")?;
    let mut args = Args {
        mode,
        servers: Vec::new(),
        floor: None,
        cmd: None,
        n: 20_000,
        repeat: 3,
        windows: vec![1, 32],
        workloads: vec![Workload::Valid, Workload::Invalid, Workload::List],
        raw: None,
        json: None,
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--server" => {
                let v = value()?;
                let (name, cmd) = v.split_once('=').ok_or("--server takes name=command")?;
                args.servers.push(ServerSpec::parse(name, cmd));
            }
            "--floor" => args.floor = Some(value()?),
            "--cmd" => args.cmd = Some(value()?),
            "--n" => args.n = value()?.parse().map_err(|_| "--n takes a number")?,
            "--repeat" => args.repeat = value()?.parse().map_err(|_| "--repeat takes a number")?,
            "--window" | "--windows" => {
                args.windows = value()?
                    .split(',')
                    .map(|w| w.parse().map_err(|_| "--windows takes numbers".to_owned()))
                    .collect::<Result<_, _>>()?
            }
            "--workload" | "--workloads" => {
                args.workloads = value()?
                    .split(',')
                    .map(|w| Workload::parse(w).ok_or(format!("unknown workload {w}")))
                    .collect::<Result<_, _>>()?
            }
            "--raw" => args.raw = Some(value()?),
            "--json" => args.json = Some(value()?),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(args)
}

fn row(server: &str, workload: Workload, window: usize, r: &RunResult) -> String {
    format!(
        "| {} | {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0}% | {:.0} |",
        workload.name(),
        window,
        server,
        r.calls_per_s,
        r.p50_us,
        r.p99_us,
        r.cpu_us_per_call,
        r.peak_rss_kib / 1024.0,
        r.startup_ms,
        r.rejected * 100.0,
        r.mean_response_bytes,
    )
}

const HEADER: &str = "| workload | W | server | calls/s | p50 µs | p99 µs | server CPU µs/call | peak RSS MiB | startup ms | rejected | bytes/resp |\n\
                      | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";

fn suite(args: &Args) -> Result<(), String> {
    if args.servers.is_empty() {
        return Err("suite needs at least one --server".into());
    }
    let ours = args.servers[0].name.clone();
    let mut results: BTreeMap<(Workload, usize, String), Vec<RunResult>> = BTreeMap::new();
    let mut raw = String::from(
        "workload\twindow\tserver\trepeat\tcalls_per_s\tp50_us\tp99_us\tcpu_us_per_call\tpeak_rss_kib\tstartup_ms\trejected\tbytes\n",
    );
    let mut json = Vec::new();
    let mut order: Vec<String> = args.servers.iter().map(|s| s.name.clone()).collect();
    if args.floor.is_some() {
        order.push("floor".into());
        order.push("floor-batch".into());
    }
    for &workload in &args.workloads {
        let mut floor_bytes: Option<usize> = None;
        for &window in &args.windows {
            for rep in 0..args.repeat {
                let mut specs = args.servers.clone();
                if let Some(floor) = &args.floor {
                    for (name, flush) in [("floor", "each"), ("floor-batch", "batch")] {
                        let mut spec = ServerSpec::parse(name, floor);
                        spec.env.push((
                            "FLOOR_RESPONSE_BYTES".into(),
                            floor_bytes.unwrap_or(256).to_string(),
                        ));
                        spec.env.push(("FLOOR_FLUSH".into(), flush.into()));
                        specs.push(spec);
                    }
                }
                for spec in &specs {
                    let r = run(spec, workload, args.n, window).map_err(|e| {
                        format!("{} {} W={window}: {e}", spec.name, workload.name())
                    })?;
                    if spec.name == ours && floor_bytes.is_none() {
                        floor_bytes = Some(r.mean_response_bytes.round() as usize);
                    }
                    eprintln!("{} #{rep}", row(&spec.name, workload, window, &r));
                    raw.push_str(&format!(
                        "{}\t{}\t{}\t{}\t{:.1}\t{:.2}\t{:.2}\t{:.2}\t{:.0}\t{:.2}\t{:.3}\t{:.0}\n",
                        workload.name(),
                        window,
                        spec.name,
                        rep,
                        r.calls_per_s,
                        r.p50_us,
                        r.p99_us,
                        r.cpu_us_per_call,
                        r.peak_rss_kib,
                        r.startup_ms,
                        r.rejected,
                        r.mean_response_bytes
                    ));
                    json.push(record(
                        "stdio",
                        workload.name(),
                        window,
                        &spec.name,
                        rep,
                        &r,
                    ));
                    results
                        .entry((workload, window, spec.name.clone()))
                        .or_default()
                        .push(r);
                }
            }
        }
    }
    if let Some(path) = &args.raw {
        std::fs::write(path, &raw).map_err(|e| format!("writing {path}: {e}"))?;
    }
    if let Some(path) = &args.json {
        write_json(path, &json)?;
    }

    let medians: BTreeMap<(Workload, usize, String), RunResult> = results
        .iter()
        .map(|(k, runs)| (k.clone(), median_result(runs)))
        .collect();
    println!(
        "Medians of {} runs, N = {} calls per run.\n",
        args.repeat, args.n
    );
    println!("{HEADER}");
    for &workload in &args.workloads {
        for &window in &args.windows {
            for name in &order {
                if let Some(r) = medians.get(&(workload, window, name.clone())) {
                    println!("{}", row(name, workload, window, r));
                }
            }
        }
    }

    // Ratios against the targets: ours against the better rmcp transport and the floor.
    let get = |w: Workload, win: usize, name: &str| medians.get(&(w, win, name.to_owned()));
    // Variants of ours (`ours-...`, such as a build with a cache) are not "others".
    let others: Vec<&str> = args.servers[1..]
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| !n.starts_with(&format!("{ours}-")))
        .collect();
    if others.is_empty() {
        return Ok(());
    }
    println!(
        "\nRatios (ours = `{ours}`; \"best other\" = the faster / leaner of {}):\n",
        others.join(", ")
    );
    println!(
        "| workload | W | calls/s vs best other (≥ 2) | CPU/call vs best other (≤ 0.5) | CPU/call vs floor (≤ 3) | CPU/call vs floor-batch | peak RSS vs best other (≤ 1) | startup vs best other (≤ 1) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &workload in &args.workloads {
        for &window in &args.windows {
            let Some(o) = get(workload, window, &ours) else {
                continue;
            };
            let best = |f: fn(&RunResult) -> f64, higher_is_better: bool| {
                others
                    .iter()
                    .filter_map(|n| get(workload, window, n).map(f))
                    .reduce(|a, b| if higher_is_better { a.max(b) } else { a.min(b) })
            };
            let ratio = |x: f64, y: Option<f64>| match y {
                Some(y) if y > 0.0 => format!("{:.2}", x / y),
                _ => "–".to_owned(),
            };
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                workload.name(),
                window,
                ratio(o.calls_per_s, best(|r| r.calls_per_s, true)),
                ratio(o.cpu_us_per_call, best(|r| r.cpu_us_per_call, false)),
                ratio(
                    o.cpu_us_per_call,
                    get(workload, window, "floor").map(|f| f.cpu_us_per_call)
                ),
                ratio(
                    o.cpu_us_per_call,
                    get(workload, window, "floor-batch").map(|f| f.cpu_us_per_call)
                ),
                ratio(o.peak_rss_kib, best(|r| r.peak_rss_kib, false)),
                ratio(o.startup_ms, best(|r| r.startup_ms, false)),
            );
        }
    }
    if let (Some(valid), Some(invalid)) = (
        args.windows
            .iter()
            .rev()
            .find_map(|&w| get(Workload::Valid, w, &ours).map(|r| (w, r))),
        args.windows
            .iter()
            .rev()
            .find_map(|&w| get(Workload::Invalid, w, &ours)),
    ) {
        println!(
            "\nOurs, invalid vs valid CPU per call at W={}: {:.2} (target ≤ 1)",
            valid.0,
            invalid.cpu_us_per_call / valid.1.cpu_us_per_call
        );
    }
    Ok(())
}

fn main() {
    type Subcommand = fn(std::iter::Skip<std::env::Args>) -> Result<(), String>;
    let sub: Option<Subcommand> = match std::env::args().nth(1).as_deref() {
        Some("http") => Some(http::main),
        Some("complexity") => Some(complexity::main),
        _ => None,
    };
    if let Some(sub) = sub {
        if let Err(e) = sub(std::env::args().skip(2)) {
            eprintln!("driver: {e}");
            std::process::exit(1);
        }
        return;
    }
    let result = parse_args().and_then(|args| match args.mode.as_str() {
        "suite" => suite(&args),
        "run" => {
            let cmd = args.cmd.clone().ok_or("run needs --cmd")?;
            let spec = ServerSpec::parse("server", &cmd);
            println!("{HEADER}");
            for &workload in &args.workloads {
                for &window in &args.windows {
                    let r = run(&spec, workload, args.n, window)?;
                    println!("{}", row("server", workload, window, &r));
                }
            }
            Ok(())
        }
        other => Err(format!(
            "unknown mode {other}; use run, suite, http or complexity"
        )),
    });
    if let Err(e) = result {
        eprintln!("driver: {e}");
        std::process::exit(1);
    }
}
