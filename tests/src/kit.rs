//! Test tools, one per behaviour the server must show: plain results, failures, panics, progress,
//! logging, slow calls (cancellation, timeouts, the concurrency cap) and elicitation.
//!
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::ElicitError;
use mcp_runtime::prelude::*;
use mcp_runtime::server::ServerBuilder;
use serde_json::Value;

/// Counters the tools update, readable through the `stats` tool (also across a process boundary).
#[derive(Default)]
pub struct Probe {
    /// `slow` calls started.
    pub started: AtomicUsize,
    /// `slow` calls that ran to the end.
    pub finished: AtomicUsize,
    /// `slow` calls whose future was dropped before the end (cancelled or timed out).
    pub dropped: AtomicUsize,
    /// `slow` calls running now.
    pub running: AtomicUsize,
    /// The most `slow` calls seen running at once.
    pub max_running: AtomicUsize,
    /// Cancellations `watch_cancel` saw through `Context::cancelled`.
    pub saw_cancel: std::sync::Arc<AtomicUsize>,
    /// The late reports of `count` calls, each waiting for the next `slow` call to start.
    pub late_reports: Mutex<Vec<tokio::sync::oneshot::Sender<()>>>,
}

/// Return the text unchanged.
#[tool]
pub fn echo(text: String) -> String {
    text
}

/// Add two integers.
#[tool]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Fail with the given message.
#[tool]
pub fn fail(message: String) -> Result<String, ToolError> {
    Err(ToolError::new(message))
}

/// Panic with a text the client must never see.
#[tool]
pub fn explode() -> String {
    if std::hint::black_box(true) {
        panic!("secret panic text");
    }
    "unreachable".into()
}

/// Sleep for `ms` milliseconds, counting starts, ends and drops in the probe.
#[tool]
pub async fn slow(probe: &Probe, ms: u64) -> String {
    struct Running<'a>(&'a Probe, bool);
    impl Drop for Running<'_> {
        fn drop(&mut self) {
            self.0.running.fetch_sub(1, Ordering::SeqCst);
            if !self.1 {
                self.0.dropped.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
    for release in std::mem::take(&mut *probe.late_reports.lock().unwrap()) {
        let _ = release.send(());
    }
    probe.started.fetch_add(1, Ordering::SeqCst);
    let now = probe.running.fetch_add(1, Ordering::SeqCst) + 1;
    probe.max_running.fetch_max(now, Ordering::SeqCst);
    let mut running = Running(probe, false);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    running.1 = true;
    probe.finished.fetch_add(1, Ordering::SeqCst);
    drop(running);
    format!("slept {ms}ms")
}

/// The counters of the slow tool.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Stats {
    /// `slow` calls started.
    pub started: usize,
    /// `slow` calls that ran to the end.
    pub finished: usize,
    /// `slow` calls dropped before the end.
    pub dropped: usize,
    /// `slow` calls running now.
    pub running: usize,
    /// The most `slow` calls seen running at once.
    pub max_running: usize,
    /// Cancellations `watch_cancel` saw.
    pub saw_cancel: usize,
}

/// The counters of the slow tool.
#[tool]
pub fn stats(probe: &Probe) -> Stats {
    Stats {
        started: probe.started.load(Ordering::SeqCst),
        finished: probe.finished.load(Ordering::SeqCst),
        dropped: probe.dropped.load(Ordering::SeqCst),
        running: probe.running.load(Ordering::SeqCst),
        max_running: probe.max_running.load(Ordering::SeqCst),
        saw_cancel: probe.saw_cancel.load(Ordering::SeqCst),
    }
}

/// Wait until cancelled; a helper task watches `Context::cancelled` and counts what it saw.
#[tool]
pub async fn watch_cancel(ctx: &Context, probe: &Probe) -> String {
    let watcher = ctx.clone();
    let saw = probe.saw_cancel.clone();
    tokio::spawn(async move {
        watcher.cancelled().await;
        if watcher.is_cancelled() {
            saw.fetch_add(1, Ordering::SeqCst);
        }
    });
    std::future::pending::<()>().await;
    "never".into()
}

/// Count to `steps`, reporting progress `1..=steps` of `steps`; then a report that does not grow
/// and one from a task that outlives the call, both of which must be dropped. The late report is
/// made when the next `slow` call starts: after this call's answer, whatever the machine's load
/// (a timer would race the answer on a loaded machine).
#[tool]
pub async fn count(ctx: &Context, probe: &Probe, steps: u32) -> String {
    for i in 1..=steps {
        ctx.progress(
            f64::from(i),
            Some(f64::from(steps)),
            Some(&format!("step {i}")),
        );
        tokio::task::yield_now().await;
    }
    ctx.progress(f64::from(steps), Some(f64::from(steps)), Some("again"));
    let (release, released) = tokio::sync::oneshot::channel();
    probe.late_reports.lock().unwrap().push(release);
    let late = ctx.clone();
    tokio::spawn(async move {
        if released.await.is_ok() {
            late.progress(1e9, None, Some("late"));
        }
    });
    format!("counted to {steps}")
}

/// Report progress 1 and 2 of 2 with an info log message between them, then answer. Not in
/// [`table`]: the HTTP tests and the `http_replica` binary serve it.
#[tool]
pub async fn steps(ctx: &Context) -> String {
    ctx.progress(1.0, Some(2.0), Some("first"));
    ctx.log(LogLevel::Info, "halfway");
    tokio::task::yield_now().await;
    ctx.progress(2.0, Some(2.0), Some("second"));
    "two steps".into()
}

/// Log one message at each of debug, info, warning and error.
#[tool]
pub fn chatty(ctx: &Context) -> String {
    for level in [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warning,
        LogLevel::Error,
    ] {
        ctx.log(level, format!("a {level} message"));
    }
    "logged".into()
}

/// The caller as the context sees it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Caller {
    /// The tool's name.
    pub tool: String,
    /// The request id.
    pub request_id: Value,
    /// The client's name.
    pub client: Option<String>,
    /// The protocol version of the request.
    pub protocol_version: Option<String>,
    /// Whether the client can be asked questions.
    pub elicitation: bool,
}

/// Describe the caller as the context sees it.
#[tool]
pub fn whoami(ctx: &Context) -> Caller {
    Caller {
        tool: ctx.tool_name().to_owned(),
        request_id: ctx.request_id().clone(),
        client: ctx.client_info().map(|c| c.name.clone()),
        protocol_version: ctx.protocol_version().map(str::to_owned),
        elicitation: ctx.client_capabilities().elicitation(),
    }
}

/// The form `pick_color` asks for.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ColorChoice {
    /// The color.
    pub color: Color,
    /// How sure the user is.
    pub sure: Option<bool>,
}

/// A color.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Red.
    Red,
    /// Green.
    Green,
}

/// Ask the user for a color (elicitation).
#[tool]
pub async fn pick_color(ctx: &Context, prompt: Option<String>) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<ColorChoice>(prompt.unwrap_or_else(|| "Which color?".into()))
        .await;
    Ok(match answer {
        Ok(Elicitation::Accept(c)) => format!("picked {:?} (sure: {:?})", c.color, c.sure),
        Ok(Elicitation::Decline) => "declined".into(),
        Ok(Elicitation::Cancel) => "cancelled".into(),
        Err(e @ ElicitError::Unsupported) => {
            return Err(e.into_tool_error(
                "This client cannot ask the user; call pick_color again after choosing a color.",
            ));
        }
        Err(e) => return Err(ToolError::internal(e)),
    })
}

/// A ledger whose methods are tools (`#[toolbox]`), served as a second table beside the free
/// functions: one struct as the input, a tagged union, camelCase names, an `anyhow` error.
#[derive(Default)]
pub struct Ledger(Mutex<i64>);

/// A ledger entry, tagged by `kind`.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    Credit { amount: u32 },
    Debit { amount: u32, memo: String },
}

/// What `post` is given: its fields are the tool's arguments.
#[derive(Deserialize, JsonSchema)]
pub struct Posting {
    /// Who posts the entry.
    #[schemars(length(min = 1))]
    pub by: String,
    pub entry: Entry,
}

#[toolbox(rename_all = "camelCase")]
impl Ledger {
    /// Post an entry; returns the balance.
    #[tool]
    fn post(&self, #[arg(flatten)] posting: Posting, dry_run: Option<bool>) -> i64 {
        let mut balance = self.0.lock().unwrap();
        let change = match posting.entry {
            Entry::Credit { amount } => i64::from(amount),
            Entry::Debit { amount, .. } => -i64::from(amount),
        };
        if dry_run == Some(true) {
            return *balance + change;
        }
        *balance += change;
        *balance
    }

    /// Load a ledger file; returns its size in bytes.
    #[tool(read_only)]
    fn load(&self, file_path: String) -> anyhow::Result<usize> {
        use anyhow::Context as _;
        let text = std::fs::read_to_string(&file_path).context("reading the ledger")?;
        Ok(text.len())
    }
}

/// Every kit tool, in listing order.
pub fn table() -> ToolTable {
    tools![
        echo,
        add,
        fail,
        explode,
        slow,
        stats,
        count,
        chatty,
        whoami,
        pick_color,
        watch_cancel
    ]
}

/// The names of the kit's tools in listing order: [`table`], then `Ledger`'s.
pub const NAMES: &[&str] = &[
    "echo",
    "add",
    "fail",
    "explode",
    "slow",
    "stats",
    "count",
    "chatty",
    "whoami",
    "pick_color",
    "watch_cancel",
    "post",
    "load",
];

/// The kit server's builder: tools, state, identity and instructions; options left default.
pub fn builder() -> ServerBuilder {
    Server::builder("kit", "0.3.1")
        .title("Test kit")
        .instructions("Tools that exercise the runtime.")
        .tools(table())
        .tools(tools![Ledger])
        .state(Probe::default())
        .state(Ledger::default())
}

/// Options of a kit server, as command-line flags of the `kit_server` binary too.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KitOptions {
    /// `--page-size N`
    pub page_size: Option<usize>,
    /// `--max-concurrent N`
    pub max_concurrent: Option<usize>,
    /// `--timeout-ms N`
    pub timeout_ms: Option<u64>,
    /// `--max-message-bytes N`
    pub max_message_bytes: Option<usize>,
    /// `--unknown-tool-error`
    pub unknown_tool_error: bool,
}

impl KitOptions {
    /// The flags for the `kit_server` binary.
    pub fn to_args(&self) -> Vec<String> {
        let mut a = Vec::new();
        let mut push = |flag: &str, v: Option<String>| {
            if let Some(v) = v {
                a.push(flag.to_owned());
                a.push(v);
            }
        };
        push("--page-size", self.page_size.map(|v| v.to_string()));
        push(
            "--max-concurrent",
            self.max_concurrent.map(|v| v.to_string()),
        );
        push("--timeout-ms", self.timeout_ms.map(|v| v.to_string()));
        push(
            "--max-message-bytes",
            self.max_message_bytes.map(|v| v.to_string()),
        );
        if self.unknown_tool_error {
            a.push("--unknown-tool-error".into());
        }
        a
    }

    /// Reads the flags [`KitOptions::to_args`] writes.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut o = KitOptions::default();
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            if flag == "--unknown-tool-error" {
                o.unknown_tool_error = true;
                continue;
            }
            let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let n = |v: &str| v.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
            match flag.as_str() {
                "--page-size" => o.page_size = Some(n(&value)? as usize),
                "--max-concurrent" => o.max_concurrent = Some(n(&value)? as usize),
                "--timeout-ms" => o.timeout_ms = Some(n(&value)?),
                "--max-message-bytes" => o.max_message_bytes = Some(n(&value)? as usize),
                other => return Err(format!("unknown flag {other}")),
            }
        }
        Ok(o)
    }

    /// The kit server with these options.
    pub fn server(&self) -> Server {
        let mut b = builder();
        if let Some(n) = self.page_size {
            b = b.page_size(n);
        }
        if let Some(n) = self.max_concurrent {
            b = b.max_concurrent_calls(n);
        }
        if let Some(ms) = self.timeout_ms {
            b = b.call_timeout(Duration::from_millis(ms));
        }
        if let Some(n) = self.max_message_bytes {
            b = b.max_message_bytes(n);
        }
        if self.unknown_tool_error {
            b = b.unknown_tool(mcp_runtime::UnknownToolPolicy::ProtocolError);
        }
        b.build().expect("the kit server builds")
    }
}

/// The value of a structured result, for assertions.
pub fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or(Value::Null)
}
