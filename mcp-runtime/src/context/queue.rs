//! An unbounded single-producer, single-consumer queue that holds no buffer until something is
//! queued: the outgoing messages of a connection, and the messages routed to one HTTP request.
//!
//! Why not `tokio::sync::mpsc::unbounded_channel`: it allocates its first block of 32 slots when
//! it is made (2,312 bytes for `serde_json::Value` with `preserve_order`) plus a cache-padded
//! channel (about 500 bytes). Every idle session holds one and every HTTP request made one, most
//! of them never carrying a message: profiled with massif, that was 2.8 KB of the 4.5 KB an idle
//! session cost (BENCHMARKS.md, "Memory per idle session"). Here an idle queue is one small
//! allocation, and the buffer grows (and is given back) with use.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// A queue's sending half; dropping it ends the queue once what it sent has been received.
pub struct Sender<T> {
    shared: Arc<Mutex<State<T>>>,
}

/// A queue's receiving half: items in the order they were sent, then `None` once the sender is
/// gone.
pub struct Receiver<T> {
    shared: Arc<Mutex<State<T>>>,
}

struct State<T> {
    items: VecDeque<T>,
    waker: Option<Waker>,
    sender_gone: bool,
    receiver_gone: bool,
}

/// A buffer above this many slots is given back when the queue empties: a burst of messages on
/// one session does not pin its buffer for the session's life.
const KEEP_CAPACITY: usize = 64;

/// A new, empty queue.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Mutex::new(State {
        items: VecDeque::new(),
        waker: None,
        sender_gone: false,
        receiver_gone: false,
    }));
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

fn lock<T>(shared: &Mutex<State<T>>) -> std::sync::MutexGuard<'_, State<T>> {
    // Every critical section leaves the state consistent; a panic elsewhere cannot poison it
    // half-way.
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

impl<T> Sender<T> {
    /// Queues `item`; gives it back when the receiver is gone.
    pub fn send(&self, item: T) -> Result<(), T> {
        let mut state = lock(&self.shared);
        if state.receiver_gone {
            return Err(item);
        }
        state.items.push_back(item);
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.sender_gone = true;
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// The next item; `None` once the sender is gone and everything it sent was received.
    /// Cancel-safe: an item is taken only when it is returned.
    pub async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// [`Receiver::recv`] as a poll: registers `cx`'s waker when nothing is queued.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut state = lock(&self.shared);
        if let Some(item) = state.items.pop_front() {
            if state.items.is_empty() && state.items.capacity() > KEEP_CAPACITY {
                state.items = VecDeque::new();
            }
            return Poll::Ready(Some(item));
        }
        if state.sender_gone {
            return Poll::Ready(None);
        }
        match &mut state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The next item if one is queued now.
    pub fn try_recv(&mut self) -> Option<T> {
        lock(&self.shared).items.pop_front()
    }

    /// True when nothing is queued now.
    pub fn is_empty(&self) -> bool {
        lock(&self.shared).items.is_empty()
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.receiver_gone = true;
        let items = std::mem::take(&mut state.items);
        drop(state);
        // Dropped outside the lock: an item's own drop may do anything.
        drop(items);
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;

    #[tokio::test]
    async fn items_arrive_in_order_then_the_end() {
        let (tx, mut rx) = channel();
        assert!(rx.is_empty());
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        assert!(!rx.is_empty());
        assert_eq!(rx.try_recv(), Some(1));
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.try_recv(), None);
        tx.send(3).unwrap();
        drop(tx);
        assert_eq!(
            rx.recv().await,
            Some(3),
            "queued before the end: still delivered"
        );
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn a_waiting_receiver_wakes_for_an_item_and_for_the_end() {
        let (tx, mut rx) = channel::<u32>();
        let waiter = tokio::spawn(async move {
            let first = rx.recv().await;
            let second = rx.recv().await;
            (first, second)
        });
        tokio::task::yield_now().await;
        tx.send(7).unwrap();
        tokio::task::yield_now().await;
        drop(tx);
        assert_eq!(waiter.await.unwrap(), (Some(7), None));
    }

    #[test]
    fn a_gone_receiver_refuses_and_drops_what_was_queued() {
        let (tx, rx) = channel();
        let held = Arc::new(());
        tx.send(held.clone()).unwrap();
        assert_eq!(Arc::strong_count(&held), 2);
        drop(rx);
        assert_eq!(
            Arc::strong_count(&held),
            1,
            "the queued item was dropped with the receiver"
        );
        assert!(tx.send(held.clone()).is_err());
    }

    #[test]
    fn an_idle_queue_holds_no_buffer_and_gives_a_large_one_back() {
        let (tx, mut rx) = channel();
        assert_eq!(lock(&rx.shared).items.capacity(), 0);
        for i in 0..1000 {
            tx.send(i).unwrap();
        }
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        for i in 0..1000 {
            assert_eq!(rx.poll_recv(&mut cx), Poll::Ready(Some(i)));
        }
        assert_eq!(lock(&rx.shared).items.capacity(), 0);
        assert!(rx.poll_recv(&mut cx).is_pending());
    }

    #[test]
    fn a_cancelled_recv_loses_nothing() {
        let (tx, mut rx) = channel();
        {
            let waker = Waker::noop();
            let mut cx = Context::from_waker(waker);
            let mut pending = std::pin::pin!(rx.recv());
            assert!(pending.as_mut().poll(&mut cx).is_pending());
        }
        tx.send("kept").unwrap();
        assert_eq!(rx.try_recv(), Some("kept"));
    }
}
