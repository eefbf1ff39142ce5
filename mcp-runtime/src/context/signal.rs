//! A one-way flag a request's code raises and the server waits on: set once, seen by every
//! waiter. Where a request needs only that (a stateless call that asks the client for input),
//! it replaces a `CancellationToken`, which allocates a node of a token tree when it is made and
//! locks it on every check; this one lives inline in its owner and allocates nothing.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

/// A flag that is raised once and stays raised.
#[derive(Debug, Default)]
pub(crate) struct Signal {
    raised: AtomicBool,
    notify: Notify,
}

impl Signal {
    /// Raises the flag and wakes every waiter (once: raising it again does nothing).
    pub(crate) fn raise(&self) {
        if !self.raised.swap(true, Ordering::AcqRel) {
            self.notify.notify_waiters();
        }
    }

    /// True once the flag was raised.
    pub(crate) fn is_raised(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    /// Resolves once the flag is raised (at once if it is already).
    pub(crate) async fn raised(&self) {
        loop {
            let notified = self.notify.notified();
            let mut notified = std::pin::pin!(notified);
            // Registered before the check: a raise between the two still wakes this waiter.
            notified.as_mut().enable();
            if self.is_raised() {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn a_waiter_wakes_when_the_flag_is_raised_and_a_late_one_at_once() {
        let signal = Arc::new(Signal::default());
        assert!(!signal.is_raised());
        let waiter = tokio::spawn({
            let signal = signal.clone();
            async move { signal.raised().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        signal.raise();
        signal.raise();
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the waiter woke")
            .unwrap();
        assert!(signal.is_raised());
        tokio::time::timeout(Duration::from_secs(5), signal.raised())
            .await
            .expect("a late waiter returns at once");
    }
}
