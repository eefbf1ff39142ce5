//! The instruments of one server, made once from the [`Meter`] it was given, and what records
//! into them: a request's time ([`Timing`], then `Recorder::operation`), a session's life
//! ([`SessionClock`]), the gauges read when the meter's reader collects (counters kept here as
//! atomics, so that a request pays two atomic additions for them, not an instrument's lookup).

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{
    BoundHistogram, Histogram, Meter, ObservableCounter, ObservableUpDownCounter,
};

use super::names::{
    ACTIVE_REQUESTS, ACTIVE_SESSIONS, ACTIVE_STREAMS, ACTIVE_TASKS, ERROR_TYPE, FINISHED_TASKS,
    METHOD_NAME, METHODS, NETWORK_TRANSPORT, OPERATION_DURATION, OPERATION_NAME, PROTOCOL_VERSION,
    SESSION_DURATION, STATUS_CODE, TASK_STATUS, TOOL_NAME, error_code, method_name,
};

/// The histograms' bucket boundaries, in seconds: from a millisecond (most calls answer within
/// it) to five minutes (a long tool, a session). OpenTelemetry's default boundaries (0 to 10,000)
/// are meant for milliseconds.
pub const DURATION_BOUNDARIES: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    120.0, 300.0,
];

/// How a request ended, as the operation histogram's `error.type` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Answered with a result.
    Ok,
    /// Answered with a tool result that has `isError: true`.
    ToolError,
    /// Answered with a JSON-RPC error of this code.
    Error(i64),
    /// Cancelled before its answer (no response).
    Cancelled,
}

/// What the operation histogram records about one request besides its time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Operation {
    pub(crate) tool: Option<&'static str>,
    pub(crate) version: Option<&'static str>,
    pub(crate) tcp: bool,
    pub(crate) ended: Ended,
}

/// The counts the task gauges read, filled by the server's task runner.
#[derive(Debug, Default)]
pub(crate) struct TaskCounts {
    pub(crate) working: u64,
    pub(crate) input_required: u64,
}

/// The tasks that ended, by final status: kept by the task runner, read by the counter.
#[derive(Debug, Default)]
pub(crate) struct TaskEnds {
    pub(crate) completed: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) cancelled: AtomicU64,
}

type TaskSource = Box<dyn Fn() -> (TaskCounts, [u64; 3]) + Send + Sync>;

/// The gauges' counts.
#[derive(Default)]
struct Live {
    /// Requests in flight, by method index (the last: any other method).
    requests: [AtomicI64; METHODS.len() + 1],
    /// Whether a method was seen: its gauge is reported from then on (at 0 too).
    seen: [AtomicBool; METHODS.len() + 1],
    /// Sessions open, over a pipe and over TCP.
    sessions: [AtomicI64; 2],
    /// Where the task gauges read, replaced when the server's task runner is.
    tasks: Mutex<Option<TaskSource>>,
}

impl Live {
    fn task_counts(&self) -> Option<(TaskCounts, [u64; 3])> {
        let tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        tasks.as_ref().map(|source| source())
    }
}

/// The HTTP event streams open in the process (one counter: the streams are made where no
/// server is at hand).
static STREAMS: AtomicI64 = AtomicI64::new(0);

/// The most attribute sets of the operation histogram bound at once; a request of any other set
/// is recorded with its attributes (hashed by the SDK), as without binding.
const MAX_BOUND: usize = 1024;

/// What an operation's attribute set is made of, as a cheap key: the static strings by address.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct SetKey {
    tool: usize,
    version: usize,
    code: i64,
    /// The method's index, the transport and how it ended.
    bits: u32,
}

/// A multiply-rotate hash of a few words (the key's fields are addresses and small numbers
/// already spread enough): SipHash of the same key costs ten times as much.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type Bound = HashMap<SetKey, BoundHistogram<f64>, BuildHasherDefault<WordHasher>>;

/// One server's instruments.
pub(crate) struct Recorder {
    operation: Histogram<f64>,
    /// The operation histogram bound to each attribute set seen: a request's record is then a
    /// lookup of its [`SetKey`] and a direct write, with no attribute hashed.
    bound: RwLock<Bound>,
    session: Histogram<f64>,
    live: Arc<Live>,
    /// The observed instruments, kept for as long as the server: requests, sessions, streams
    /// and tasks in flight; tasks finished.
    _gauges: ([ObservableUpDownCounter<i64>; 4], ObservableCounter<u64>),
}

// A panic while recording leaves nothing half-done that another caller could see broken: the
// counts are atomics and every lock here is read through its poison. The instruments are trait
// objects (not `RefUnwindSafe` by themselves); said here so that `ServerOptions`, which holds the
// recorder, stays `UnwindSafe` and `RefUnwindSafe` as it was before it could.
impl std::panic::UnwindSafe for Recorder {}
impl std::panic::RefUnwindSafe for Recorder {}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

fn transport(tcp: bool) -> &'static str {
    if tcp { "tcp" } else { "pipe" }
}

impl Recorder {
    /// Every instrument, made on `meter` once.
    pub(crate) fn new(meter: &Meter) -> Recorder {
        let boundaries = DURATION_BOUNDARIES.to_vec();
        let operation = meter
            .f64_histogram(OPERATION_DURATION)
            .with_unit("s")
            .with_description("MCP request duration as observed by the server, from its arrival until its answer is ready")
            .with_boundaries(boundaries.clone())
            .build();
        let session = meter
            .f64_histogram(SESSION_DURATION)
            .with_unit("s")
            .with_description("The duration of the MCP session as observed on the MCP server")
            .with_boundaries(boundaries)
            .build();
        let live = Arc::new(Live::default());
        let l = live.clone();
        let requests = meter
            .i64_observable_up_down_counter(ACTIVE_REQUESTS)
            .with_unit("{request}")
            .with_description("MCP requests in flight")
            .with_callback(move |observer| {
                for (i, count) in l.requests.iter().enumerate() {
                    if l.seen[i].load(Ordering::Relaxed) {
                        let method = KeyValue::new(METHOD_NAME, method_name(i));
                        observer.observe(count.load(Ordering::Relaxed), &[method]);
                    }
                }
            })
            .build();
        let l = live.clone();
        let sessions = meter
            .i64_observable_up_down_counter(ACTIVE_SESSIONS)
            .with_unit("{session}")
            .with_description("Handshake-era MCP sessions open on this server")
            .with_callback(move |observer| {
                for (i, count) in l.sessions.iter().enumerate() {
                    let kv = KeyValue::new(NETWORK_TRANSPORT, transport(i == 1));
                    observer.observe(count.load(Ordering::Relaxed), &[kv]);
                }
            })
            .build();
        let streams = meter
            .i64_observable_up_down_counter(ACTIVE_STREAMS)
            .with_unit("{stream}")
            .with_description("HTTP event streams open in this process")
            .with_callback(|observer| observer.observe(STREAMS.load(Ordering::Relaxed), &[]))
            .build();
        let l = live.clone();
        let tasks = meter
            .i64_observable_up_down_counter(ACTIVE_TASKS)
            .with_unit("{task}")
            .with_description("Tasks this server runs, by status")
            .with_callback(move |observer| {
                if let Some((counts, _)) = l.task_counts() {
                    let status = |s: &'static str| [KeyValue::new(TASK_STATUS, s)];
                    observer.observe(counts.working as i64, &status("working"));
                    observer.observe(counts.input_required as i64, &status("input_required"));
                }
            })
            .build();
        let l = live.clone();
        let finished = meter
            .u64_observable_counter(FINISHED_TASKS)
            .with_unit("{task}")
            .with_description("Tasks this server ran that ended, by final status")
            .with_callback(move |observer| {
                if let Some((_, ends)) = l.task_counts() {
                    for (n, s) in ends.into_iter().zip(["completed", "failed", "cancelled"]) {
                        observer.observe(n, &[KeyValue::new(TASK_STATUS, s)]);
                    }
                }
            })
            .build();
        Recorder {
            operation,
            bound: RwLock::new(Bound::default()),
            session,
            live,
            _gauges: ([requests, sessions, streams, tasks], finished),
        }
    }

    /// Where the task gauges read their counts: the server's task runner (the last one given).
    pub(crate) fn watch_tasks(
        &self,
        source: impl Fn() -> (TaskCounts, [u64; 3]) + Send + Sync + 'static,
    ) {
        let mut tasks = self.live.tasks.lock().unwrap_or_else(|p| p.into_inner());
        *tasks = Some(Box::new(source));
    }

    /// A request of the method at `method` (a [`super::names::method_index`]) begins: counted
    /// in flight until the returned timing is dropped.
    pub(crate) fn begin(self: &Arc<Self>, method: usize) -> Timing {
        let live = &self.live;
        if !live.seen[method].load(Ordering::Relaxed) {
            live.seen[method].store(true, Ordering::Relaxed);
        }
        live.requests[method].fetch_add(1, Ordering::Relaxed);
        Timing {
            recorder: self.clone(),
            method: method as u8,
            start: Instant::now(),
        }
    }

    /// Records the request `timing` began, ended as `op` says: through the histogram bound to
    /// its attribute set (bound the first time the set is seen).
    fn operation(&self, timing: &Timing, op: Operation) {
        let seconds = timing.start.elapsed().as_secs_f64();
        let (kind, code) = match op.ended {
            Ended::Ok => (0, 0),
            Ended::ToolError => (1, 0),
            Ended::Cancelled => (2, 0),
            Ended::Error(code) => (3, code),
        };
        let key = SetKey {
            tool: op.tool.map_or(0, |t| t.as_ptr() as usize),
            version: op.version.map_or(0, |v| v.as_ptr() as usize),
            code,
            bits: u32::from(timing.method) | u32::from(op.tcp) << 8 | kind << 9,
        };
        let read = self.bound.read().unwrap_or_else(|p| p.into_inner());
        if let Some(bound) = read.get(&key) {
            bound.record(seconds);
            return;
        }
        let full = read.len() >= MAX_BOUND;
        drop(read);
        Self::with_attributes(timing.method, op, |attrs| {
            if full {
                self.operation.record(seconds, attrs);
                return;
            }
            let mut bound = self.bound.write().unwrap_or_else(|p| p.into_inner());
            let histogram = bound
                .entry(key)
                .or_insert_with(|| self.operation.bind(attrs));
            histogram.record(seconds);
        });
    }

    /// The attributes of an operation of the method at `method` that ended as `op` says.
    fn with_attributes(method: u8, op: Operation, f: impl FnOnce(&[KeyValue])) {
        // The attributes in a fixed array, the unused slots after `n`.
        let mut attrs: [KeyValue; 7] = [
            KeyValue::new(METHOD_NAME, method_name(method as usize)),
            KeyValue::new(NETWORK_TRANSPORT, transport(op.tcp)),
            KeyValue::new(PROTOCOL_VERSION, ""),
            KeyValue::new(TOOL_NAME, ""),
            KeyValue::new(OPERATION_NAME, ""),
            KeyValue::new(ERROR_TYPE, ""),
            KeyValue::new(STATUS_CODE, ""),
        ];
        let mut n = 2;
        let mut put = |kv: KeyValue| {
            attrs[n] = kv;
            n += 1;
        };
        if let Some(version) = op.version {
            put(KeyValue::new(PROTOCOL_VERSION, version));
        }
        if let Some(tool) = op.tool {
            put(KeyValue::new(TOOL_NAME, tool));
            put(KeyValue::new(OPERATION_NAME, "execute_tool"));
        }
        match op.ended {
            Ended::Ok => {}
            Ended::ToolError => put(KeyValue::new(ERROR_TYPE, "tool_error")),
            Ended::Cancelled => put(KeyValue::new(ERROR_TYPE, "cancelled")),
            Ended::Error(code) => {
                let code = error_code(code);
                put(KeyValue::new(ERROR_TYPE, code.clone()));
                put(KeyValue::new(STATUS_CODE, code));
            }
        }
        f(&attrs[..n]);
    }

    fn session_ended(&self, clock: &SessionClock) {
        self.live.sessions[clock.tcp as usize].fetch_sub(1, Ordering::Relaxed);
        let attrs = [
            KeyValue::new(PROTOCOL_VERSION, clock.version),
            KeyValue::new(NETWORK_TRANSPORT, transport(clock.tcp)),
        ];
        let seconds = clock.start.elapsed().as_secs_f64();
        self.session.record(seconds, &attrs);
    }
}

/// A request in flight: counted until dropped, however its handling ends.
pub(crate) struct Timing {
    recorder: Arc<Recorder>,
    method: u8,
    start: Instant,
}

impl Timing {
    /// The request ended as `op` says: its duration recorded.
    pub(crate) fn finish(self, op: Operation) {
        self.recorder.operation(&self, op);
    }
}

impl Drop for Timing {
    fn drop(&mut self) {
        self.recorder.live.requests[self.method as usize].fetch_sub(1, Ordering::Relaxed);
    }
}

/// A handshake-era session's life on this server: counted open from its `initialize` until
/// this is dropped, when its duration is recorded (its connection closed or gone).
pub(crate) struct SessionClock {
    recorder: Arc<Recorder>,
    start: Instant,
    version: &'static str,
    tcp: bool,
}

impl SessionClock {
    /// A session of `version` opened now, over TCP or not.
    pub(crate) fn start(recorder: &Arc<Recorder>, version: &'static str, tcp: bool) -> Self {
        recorder.live.sessions[tcp as usize].fetch_add(1, Ordering::Relaxed);
        SessionClock {
            recorder: recorder.clone(),
            start: Instant::now(),
            version,
            tcp,
        }
    }
}

impl fmt::Debug for SessionClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionClock")
            .field("version", &self.version)
            .field("tcp", &self.tcp)
            .finish_non_exhaustive()
    }
}

impl Drop for SessionClock {
    fn drop(&mut self) {
        self.recorder.session_ended(self);
    }
}

/// An HTTP event stream being written: counted open until dropped.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) struct OpenStream(());

#[cfg(feature = "http")]
impl OpenStream {
    pub(crate) fn new() -> Self {
        STREAMS.fetch_add(1, Ordering::Relaxed);
        OpenStream(())
    }
}

#[cfg(feature = "http")]
impl Drop for OpenStream {
    fn drop(&mut self) {
        STREAMS.fetch_sub(1, Ordering::Relaxed);
    }
}
