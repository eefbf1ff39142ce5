//! Panics contained: a future polled through [`catch`] that panics ends with a [`Panicked`]
//! (message and location, for the log) instead of unwinding into the task that runs it. Tool
//! bodies run through it, and so does the handling of every request, so that no panic in a
//! request path can take down a connection or a server.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use futures_util::FutureExt;

/// What a contained panic left for the log.
#[derive(Debug)]
pub(crate) struct Panicked {
    pub(crate) message: String,
    pub(crate) location: String,
}

/// Polls `fut` to its end; a panic while polling it becomes `Err(Panicked)`.
pub(crate) async fn catch<F: Future + Unpin>(fut: F) -> Result<F::Output, Panicked> {
    install_panic_hook();
    AssertUnwindSafe(Contained { inner: fut })
        .catch_unwind()
        .await
        .map_err(|payload| match payload.downcast::<Panicked>() {
            // Caught on another thread (a synchronous body on the blocking pool) and carried here.
            Ok(panicked) => *panicked,
            Err(payload) => Panicked {
                message: panic_message(&*payload),
                location: LAST_PANIC
                    .with(|p| p.borrow_mut().take())
                    .unwrap_or_else(|| "unknown location".into()),
            },
        })
}

/// Runs `f`; a panic becomes `Err(Panicked)`. For the synchronous steps of a request.
pub(crate) fn catch_sync<T>(f: impl FnOnce() -> T) -> Result<T, Panicked> {
    install_panic_hook();
    IN_CONTAINED.with(|c| c.set(c.get() + 1));
    let out = std::panic::catch_unwind(AssertUnwindSafe(f));
    IN_CONTAINED.with(|c| c.set(c.get() - 1));
    out.map_err(|payload| Panicked {
        message: panic_message(&*payload),
        location: LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "unknown location".into()),
    })
}

/// A unique id for a hidden failure, carried in the result's `_meta.errorId` (or the error's
/// `data.errorId`) and in the log.
pub(crate) fn next_error_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    format!("err-{:08x}-{n}", (t ^ (t >> 29)) as u32)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

thread_local! {
    static IN_CONTAINED: Cell<u32> = const { Cell::new(0) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Marks the thread as running contained code while the inner future is polled, so the panic
/// hook records the location for our log instead of printing its own report.
struct Contained<F> {
    inner: F,
}

impl<F: Future + Unpin> Future for Contained<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        struct Guard;
        impl Drop for Guard {
            fn drop(&mut self) {
                IN_CONTAINED.with(|c| c.set(c.get() - 1));
            }
        }
        IN_CONTAINED.with(|c| c.set(c.get() + 1));
        let _guard = Guard;
        Pin::new(&mut self.inner).poll(cx)
    }
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CONTAINED.with(|c| c.get()) > 0 {
                let location = info
                    .location()
                    .map(|l| l.to_string())
                    .unwrap_or_else(|| "unknown location".into());
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(location));
            } else {
                previous(info);
            }
        }));
    });
}
