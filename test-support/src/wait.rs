//! Polling: ask again until the answer is the one awaited, within [`HANG`](crate::HANG).

use std::fmt::Debug;
use std::time::Duration;

use crate::HANG;

/// How long to pause between two polls.
pub const POLL: Duration = Duration::from_millis(5);

/// Calls `probe` until `done` holds for what it returns, and returns that; panics naming `what`
/// and the last value seen once [`HANG`] has passed.
pub async fn until<T, F>(what: &str, probe: F, done: impl Fn(&T) -> bool) -> T
where
    T: Debug,
    F: AsyncFnMut() -> T,
{
    until_within(what, HANG, POLL, probe, done).await
}

/// [`until`] with `pause` between two polls.
pub async fn until_every<T, F>(
    what: &str,
    pause: Duration,
    probe: F,
    done: impl Fn(&T) -> bool,
) -> T
where
    T: Debug,
    F: AsyncFnMut() -> T,
{
    until_within(what, HANG, pause, probe, done).await
}

/// [`until`] giving up after `limit`, with `pause` between two polls.
pub async fn until_within<T, F>(
    what: &str,
    limit: Duration,
    pause: Duration,
    mut probe: F,
    done: impl Fn(&T) -> bool,
) -> T
where
    T: Debug,
    F: AsyncFnMut() -> T,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let seen = probe().await;
        if done(&seen) {
            return seen;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not within {limit:?}; last seen {seen:?}"
        );
        tokio::time::sleep(pause).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn until_polls_until_the_condition_holds() {
        let n = AtomicUsize::new(0);
        let got = until(
            "the count",
            || async { n.fetch_add(1, Ordering::SeqCst) },
            |v| *v == 3,
        )
        .await;
        assert_eq!(got, 3);
        assert_eq!(n.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    #[should_panic(expected = "never true: not within 50ms; last seen false")]
    async fn until_gives_up_after_its_limit() {
        let limit = Duration::from_millis(50);
        until_within("never true", limit, POLL, async || false, |v| *v).await;
    }
}
