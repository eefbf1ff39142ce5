//! Graceful drain: how a serve call stops without failing the calls it is running.
//!
//! A serve call given a shutdown future ([`Server::serve_http_until`], [`Server::serve_stdio_until`];
//! a [`Shutdown`] handle is one such future's trigger) drains once that future resolves:
//!
//! 1. **Draining** (at once): readiness answers `503`; new requests are refused before any work
//!    (HTTP: `503` with `Retry-After`, which a proxy may retry on another replica since nothing
//!    ran; stdio: nothing more is read); the event streams that a client resumes elsewhere end
//!    with an SSE `retry` field. Calls in flight and running tasks go on, and the messages that
//!    let them finish (a client's answer to an elicitation, a cancellation) are still taken.
//! 2. **Deadline** ([`ServerOptions::drain_timeout`] after the drain began, default 30 s): calls
//!    still in flight are cancelled and answered with a JSON-RPC error a client may retry
//!    ([`SERVER_SHUTTING_DOWN`], `data.retryable: true`); tasks still running end `failed` with a
//!    retryable message in the task store.
//! 3. **Closing**: once nothing runs (or a short grace after the deadline, for the errors to be
//!    written), connections close and the serve call returns `Ok(())`.
//!
//! The state is a few cancellation tokens and a counter of calls in flight: a call that answers
//! before it first waits (most tool calls) is never counted and costs nothing here.
//!
//! The serve calls (in `transport/`) drive it; the server's side is here too: the drain timeout
//! set after building ([`Server::with_drain_timeout`]) and the running tasks, counted and failed.
//!
//! [`Server::serve_http_until`]: crate::Server::serve_http_until
//! [`Server::serve_stdio_until`]: crate::Server::serve_stdio_until
//! [`ServerOptions::drain_timeout`]: super::ServerOptions::drain_timeout

// Without `http`, only stdio drains: it begins a drain and bounds its calls; the rest (the
// listener's phases, probes, tasks failed at the deadline) is the HTTP listener's.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde_json::json;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::{Reply, Server};
use crate::context::connection::lock;
use crate::error::ProtocolError;
use crate::protocol::RequestId;

/// The JSON-RPC error code of a call cut short by a drain, and of a request a draining server
/// refuses: the implementation-defined server error JSON-RPC reserves, the same code a server
/// over its load caps answers (`SERVER_BUSY` of the HTTP transport). Its `data` says
/// `{"retryable": true}`: nothing of the call's effect is promised, and another replica can
/// take the retry.
pub const SERVER_SHUTTING_DOWN: i64 = -32000;

/// How often a drain looks whether everything has finished.
const SETTLE_POLL: Duration = Duration::from_millis(20);

/// A trigger for a serve call's drain: clone it, pass [`Shutdown::triggered`] as the serve
/// call's shutdown future, and call [`Shutdown::trigger`] from anywhere (a signal handler, an
/// admin endpoint, a test).
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    token: CancellationToken,
}

impl Shutdown {
    /// A trigger not pulled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts the drain of every serve call waiting on [`Shutdown::triggered`]; idempotent.
    pub fn trigger(&self) {
        self.token.cancel();
    }

    /// True once [`Shutdown::trigger`] was called.
    pub fn is_triggered(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Resolves once [`Shutdown::trigger`] is called: the shutdown future of a serve call.
    pub fn triggered(&self) -> impl Future<Output = ()> + Send + 'static {
        self.token.clone().cancelled_owned()
    }
}

/// The error a call cut short by the drain's deadline gets, and the error of a request a
/// draining server refuses.
pub(crate) fn shutting_down(what: &str) -> ProtocolError {
    ProtocolError::new(
        SERVER_SHUTTING_DOWN,
        format!("Server shutting down: {what}; retry the request (on another replica)"),
    )
    .with_data(json!({ "retryable": true }))
}

/// The drain of one serve call: its phases as tokens, and the calls in flight.
#[derive(Debug)]
pub(crate) struct Drain {
    timeout: Duration,
    draining: CancellationToken,
    deadline: CancellationToken,
    closed: AtomicBool,
    /// `draining` as a flag: what every request reads (a token's check takes a lock).
    began: AtomicBool,
    /// The connections waiting for the close, each registered once (and removed when it ends),
    /// under a number of its own.
    closers: Mutex<(u64, HashMap<u64, Waker>)>,
    in_flight: AtomicUsize,
}

/// Resolves when [`Drain::close`] is called.
pub(crate) struct Closing {
    drain: Arc<Drain>,
    registered: Option<u64>,
}

impl Drop for Closing {
    fn drop(&mut self) {
        if let Some(n) = self.registered {
            lock(&self.drain.closers).1.remove(&n);
        }
    }
}

impl Future for Closing {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.drain.closed.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        if self.registered.is_none() {
            // The connection's task polls it, always with that task's waker: registered once.
            let mut closers = lock(&self.drain.closers);
            let n = closers.0;
            closers.0 += 1;
            closers.1.insert(n, cx.waker().clone());
            drop(closers);
            self.registered = Some(n);
            // Closed between the load and the registration: `close` may have missed the waker.
            if self.drain.closed.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
        }
        Poll::Pending
    }
}

/// One call in flight, counted until it is dropped.
pub(crate) struct InFlight(Arc<Drain>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Drain {
    /// A drain not begun, whose deadline will be `timeout` after it begins.
    pub(crate) fn new(timeout: Duration) -> Arc<Drain> {
        Arc::new(Drain {
            timeout,
            draining: CancellationToken::new(),
            deadline: CancellationToken::new(),
            closed: AtomicBool::new(false),
            began: AtomicBool::new(false),
            closers: Mutex::new((0, HashMap::new())),
            in_flight: AtomicUsize::new(0),
        })
    }

    /// Begins the drain (idempotent): new work is refused from now on, and the deadline is
    /// armed. Must run on a tokio runtime.
    pub(crate) fn begin(self: &Arc<Self>) {
        if self.began.swap(true, Ordering::AcqRel) {
            return;
        }
        self.draining.cancel();
        tracing::info!(timeout = ?self.timeout, "draining: new requests are refused; calls in flight finish");
        let deadline = self.deadline.clone();
        let timeout = self.timeout;
        tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            deadline.cancel();
        });
    }

    /// True once the drain began.
    pub(crate) fn is_draining(&self) -> bool {
        self.began.load(Ordering::Acquire)
    }

    /// Resolves when the drain begins.
    pub(crate) fn draining(&self) -> WaitForCancellationFutureOwned {
        self.draining.clone().cancelled_owned()
    }

    /// True once the deadline passed.
    pub(crate) fn past_deadline(&self) -> bool {
        self.deadline.is_cancelled()
    }

    /// Resolves when connections should close (everything finished, or the deadline's grace is
    /// over).
    ///
    /// A connection polls this at each of its wake-ups: after its first poll it costs one atomic
    /// load (a cancellation token's future takes a lock at each poll, about 1,000 instructions
    /// a call over a keep-alive connection by callgrind).
    pub(crate) fn closing(self: &Arc<Self>) -> Closing {
        Closing {
            drain: self.clone(),
            registered: None,
        }
    }

    /// Counts one call in flight until the guard drops.
    pub(crate) fn enter(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(self.clone())
    }

    /// The calls in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// `work` counted as in flight, cut at the deadline: it is then dropped (cancelled) and
    /// `at_deadline` gives the result instead.
    pub(crate) fn bound<T, F>(
        self: &Arc<Self>,
        work: F,
        at_deadline: impl FnOnce() -> T + Send + 'static,
    ) -> impl Future<Output = T> + Send + 'static
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let counted = self.enter();
        async move {
            let deadline = counted.0.deadline.clone();
            let result = tokio::select! {
                biased;
                result = work => result,
                () = deadline.cancelled() => at_deadline(),
            };
            drop(counted);
            result
        }
    }

    /// A request's answer bounded by the deadline: past it, the retryable error for `id`.
    pub(crate) fn bound_request<F>(
        self: &Arc<Self>,
        id: RequestId,
        answer: F,
    ) -> impl Future<Output = Option<Reply>> + Send + 'static
    where
        F: Future<Output = Option<Reply>> + Send + 'static,
    {
        self.bound(answer, move || {
            tracing::warn!(
                ?id,
                "the drain's deadline passed; a call in flight was cancelled"
            );
            let error = shutting_down("the call did not finish within the drain timeout");
            Some(Reply::error(Some(id), error))
        })
    }

    /// Waits until no call is in flight and `busy` says nothing else runs, or until the
    /// deadline; true when everything finished in time.
    pub(crate) async fn settle(&self, mut busy: impl FnMut() -> bool) -> bool {
        loop {
            if self.past_deadline() {
                return false;
            }
            if self.in_flight() == 0 && !busy() {
                return true;
            }
            tokio::select! {
                () = tokio::time::sleep(SETTLE_POLL) => {}
                () = self.deadline.cancelled() => {}
            }
        }
    }

    /// After the deadline: waits up to `grace` for the calls cut short to write their errors.
    pub(crate) async fn after_deadline(&self, grace: Duration) {
        let _ = tokio::time::timeout(grace, async {
            while self.in_flight() > 0 {
                tokio::time::sleep(SETTLE_POLL).await;
            }
        })
        .await;
    }

    /// Tells connections to close.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        for (_, waker) in lock(&self.closers).1.drain() {
            waker.wake();
        }
    }
}

impl Server {
    /// This server with `timeout` as its [drain timeout](crate::server::ServerOptions::drain_timeout)
    /// (the same tools, state, stores and other options): how a binary that reads it from its
    /// command line (`--drain-timeout SECS`) sets it after building.
    pub fn with_drain_timeout(&self, timeout: Duration) -> Server {
        let mut inner = (*self.inner).clone();
        inner.options.drain_timeout = timeout;
        Server {
            inner: Arc::new(inner),
        }
    }

    /// The tasks this process runs now.
    pub(crate) fn running_tasks(&self) -> usize {
        self.inner.tasks.as_ref().map_or(0, |t| t.running())
    }

    /// Whether the task store answers (a readiness probe): a read of a record that does not
    /// exist. A server without task tools has no store to ask.
    pub(crate) async fn task_store_answers(&self) -> Result<(), String> {
        match &self.inner.tasks {
            Some(tasks) => tasks
                .store
                .get("readyz")
                .await
                .map(|_| ())
                .map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    /// Ends every task still running as `failed`, with a retryable message in the task store.
    pub(crate) async fn fail_running_tasks(&self) {
        if let Some(tasks) = &self.inner.tasks {
            let n = tasks.running();
            if n > 0 {
                tracing::warn!(
                    tasks = n,
                    "the drain's deadline passed; running tasks end failed"
                );
            }
            let error = shutting_down("the task did not finish within the drain timeout");
            tasks.fail_running(&error).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::{Drain, ProtocolError, Reply, RequestId, SERVER_SHUTTING_DOWN};

    #[tokio::test]
    async fn a_call_past_the_deadline_gets_the_retryable_error() {
        let drain = Drain::new(Duration::from_millis(300));
        let quick = drain.bound_request(RequestId::Number(1.into()), async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            Some(Reply::error(None, ProtocolError::new(1, "done")))
        });
        let slow = drain.bound_request(RequestId::Number(2.into()), async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            None
        });
        assert_eq!(drain.in_flight(), 2);
        let quick = tokio::spawn(quick);
        let slow = tokio::spawn(slow);
        drain.begin();
        assert!(drain.is_draining());
        let quick = quick.await.unwrap().unwrap();
        assert_eq!(quick.protocol_error().unwrap().message, "done");
        assert!(
            !drain.settle(|| false).await,
            "the slow call outlives the deadline"
        );
        let slow = slow.await.unwrap().unwrap();
        let error = slow.protocol_error().unwrap();
        assert_eq!(error.code, SERVER_SHUTTING_DOWN);
        assert_eq!(error.data, Some(json!({"retryable": true})));
        assert_eq!(drain.in_flight(), 0);
    }

    #[tokio::test]
    async fn settle_returns_once_nothing_runs() {
        let drain = Drain::new(Duration::from_secs(30));
        drain.begin();
        let started = std::time::Instant::now();
        let mut polls = 0;
        assert!(
            drain
                .settle(|| {
                    polls += 1;
                    polls < 3
                })
                .await
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(!drain.past_deadline());
    }
}
