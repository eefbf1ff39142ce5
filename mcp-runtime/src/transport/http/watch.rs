//! The head deadline of the listener's connections ([`HttpOptions::header_read_timeout`]), kept
//! without a timer per request: a client has the timeout, from the connection's start or from the
//! end of its previous response, to send a request's headers; past it, the connection closes.
//!
//! hyper's own `header_read_timeout` arms a timer for each request (a boxed `Sleep`, entered in
//! and removed from tokio's timer wheel), and to arm it makes one more pass of its connection
//! loop after every response: 1,000-2,400 instructions per stateless call of the tasks example
//! (callgrind), and 4-16 % of the CPU per call at 32 clients (BENCHMARKS.md, the A/B run of
//! this change). Here a connection only notes when a request comes into hand and when its
//! response ends (an atomic count and a timestamp); one task per listener sweeps the connections
//! every eighth of the timeout (at least every second, at most every 5 ms) and closes those idle
//! past it, so a connection closes between the timeout and one sweep after it.
//!
//! A connection with a request in hand (its tool running, its event stream open) is never
//! closed by this: that is the body read timeout's and the tool's own business.
//!
//! [`HttpOptions::header_read_timeout`]: super::HttpOptions::header_read_timeout

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use bytes::Bytes;
use futures_util::task::AtomicWaker;
use hyper::body::{Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The sweeps of the shortest timeouts (tests) are at most this frequent.
const MIN_TICK: Duration = Duration::from_millis(5);
/// ... and those of long ones at least this frequent.
const MAX_TICK: Duration = Duration::from_secs(1);

/// The connections of one listener, and the task that sweeps them.
pub(super) struct Watchdog {
    shared: Arc<Shared>,
}

struct Shared {
    epoch: Instant,
    /// The timeout in microseconds.
    timeout: u64,
    watches: Mutex<Vec<Weak<Watch>>>,
}

/// One connection's state, shared by its socket, its service and the sweeper.
pub(super) struct Watch {
    /// Keeps the sweeper running as long as a connection needs it.
    shared: Arc<Shared>,
    /// Requests in hand: from the service's call to the end of the response body.
    in_hand: AtomicUsize,
    /// Microseconds after `epoch` at which the connection last had nothing in hand.
    idle_since: AtomicU64,
    expired: AtomicBool,
    /// The connection's task, when its socket last found nothing to read or no room to write.
    waker: AtomicWaker,
}

impl Watchdog {
    /// Starts the sweeper on the current runtime. It ends once the watchdog and every connection
    /// it watched are gone.
    pub(super) fn start(timeout: Duration) -> Watchdog {
        let shared = Arc::new(Shared {
            epoch: Instant::now(),
            timeout: micros(timeout),
            watches: Mutex::new(Vec::new()),
        });
        let tick = (timeout / 8).clamp(MIN_TICK, MAX_TICK);
        let weak = Arc::downgrade(&shared);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(tick);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(shared) = weak.upgrade() else {
                    return;
                };
                shared.sweep();
            }
        });
        Watchdog { shared }
    }

    /// Watches a new connection: its client has the timeout from now to send a request's head.
    pub(super) fn watch(&self) -> Arc<Watch> {
        let watch = Arc::new(Watch {
            shared: self.shared.clone(),
            in_hand: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.shared.now()),
            expired: AtomicBool::new(false),
            waker: AtomicWaker::new(),
        });
        self.shared.lock().push(Arc::downgrade(&watch));
        watch
    }
}

impl Shared {
    fn now(&self) -> u64 {
        micros(self.epoch.elapsed())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Weak<Watch>>> {
        // A panic elsewhere while holding the list leaves it usable: it only holds weak refs.
        self.watches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes the connections idle past the timeout, and forgets the closed ones.
    fn sweep(&self) {
        let now = self.now();
        self.lock().retain(|weak| {
            let Some(watch) = weak.upgrade() else {
                return false;
            };
            let idle = watch.in_hand.load(Ordering::Acquire) == 0
                && now.saturating_sub(watch.idle_since.load(Ordering::Acquire)) >= self.timeout;
            if idle && !watch.expired.swap(true, Ordering::AcqRel) {
                tracing::debug!("closing a connection that sent no request head in time");
                watch.waker.wake();
            }
            true
        });
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Watch {
    /// A request comes into hand; it leaves when the returned guard drops (with the response's
    /// body, or with the call if the connection closes first).
    pub(super) fn begin(self: &Arc<Self>) -> InHand {
        self.in_hand.fetch_add(1, Ordering::AcqRel);
        InHand(self.clone())
    }

    /// The error a socket operation gets once the connection is closed for idling.
    fn check(&self) -> io::Result<()> {
        if self.expired.load(Ordering::Acquire) {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no request head within the header read timeout",
            ));
        }
        Ok(())
    }

    /// After an operation that would block: the sweeper can wake the connection from now on.
    fn waiting(&self, cx: &Context<'_>) -> io::Result<()> {
        self.waker.register(cx.waker());
        self.check()
    }
}

/// A request in hand (see [`Watch::begin`]).
pub(super) struct InHand(Arc<Watch>);

impl Drop for InHand {
    fn drop(&mut self) {
        let watch = &self.0;
        watch
            .idle_since
            .store(watch.shared.now(), Ordering::Release);
        watch.in_hand.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that holds its request in hand until it ends.
pub(super) struct WatchedBody {
    pub(super) body: Body,
    pub(super) _in_hand: InHand,
}

impl hyper::body::Body for WatchedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A connection's socket: every operation fails once the sweeper closed the connection, and one
/// that would block lets the sweeper wake the connection's task.
pub(super) struct WatchedStream {
    pub(super) stream: TcpStream,
    pub(super) watch: Arc<Watch>,
}

/// Passes a pending operation's waker to the watch, and fails it once the connection expired.
fn watched<T>(watch: &Watch, cx: &Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
    match poll {
        Poll::Pending => match watch.waiting(cx) {
            Ok(()) => Poll::Pending,
            Err(e) => Poll::Ready(Err(e)),
        },
        ready => ready,
    }
}

impl AsyncRead for WatchedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        // Checked first too: a client trickling a head a byte at a time never blocks a read.
        this.watch.check()?;
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        watched(&this.watch, cx, poll)
    }
}

impl AsyncWrite for WatchedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write(cx, buf);
        watched(&this.watch, cx, poll)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        watched(&this.watch, cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_flush(cx);
        watched(&this.watch, cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
