//! A call's response stream: the messages the call sends before its answer, then the answer
//! (`Frames`), and the task running the call, which the stateless era cancels when the stream
//! goes away (`CallTask`).

use std::fmt;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::context::outgoing::Outgoing;
use crate::context::queue;
use crate::server::{Reply, WriteJson};

/// What happens to a call when its response stream goes away.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lifetime {
    /// Stateless era: the call is cancelled.
    Request,
    /// Handshake era: the call runs on (the client cancels with `notifications/cancelled`).
    Detached,
}

/// One message of a call's response stream: what the call sends before its answer (progress, log
/// messages, requests to the client), then the answer, kept typed so that its id stays exact.
pub(super) enum Frame {
    Message(Outgoing),
    Answer(Reply),
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Frame::Message(m) => m.fmt(f),
            Frame::Answer(r) => r.fmt(f),
        }
    }
}

impl WriteJson for Frame {
    fn write_json(&self, buf: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Frame::Message(m) => serde_json::to_writer(buf, m),
            Frame::Answer(r) => r.write_json(buf),
        }
    }
}

/// The messages routed to one call, then its answer.
pub(super) struct Frames {
    events: queue::Receiver<Outgoing>,
    /// The answer, until it has come.
    answer: Option<oneshot::Receiver<Option<Reply>>>,
    /// The answer once it has come, until the messages queued before it are out.
    answered: Option<Reply>,
    /// The answer was returned (or the call ended without one): nothing follows.
    done: bool,
}

impl Frames {
    /// The messages routed to a call, then the answer `answer` brings.
    pub(super) fn new(
        events: queue::Receiver<Outgoing>,
        answer: oneshot::Receiver<Option<Reply>>,
    ) -> Frames {
        Frames {
            events,
            answer: Some(answer),
            answered: None,
            done: false,
        }
    }

    /// The next message; `None` after the answer, or when the call ended without one.
    pub(super) async fn next(&mut self) -> Option<Frame> {
        if self.done {
            return None;
        }
        if let Some(answer) = self.answer.as_mut() {
            tokio::select! {
                // What the call sent before it answered is queued before the answer is: it goes first.
                biased;
                Some(message) = self.events.recv() => return Some(Frame::Message(message)),
                answered = answer => {
                    self.answer = None;
                    self.answered = answered.ok().flatten();
                }
            }
        }
        // The call can queue messages and answer between the two polls above; once the answer
        // is in, they are visible, and they still go before it.
        if let Some(message) = self.events.try_recv() {
            return Some(Frame::Message(message));
        }
        self.done = true;
        self.answered.take().map(Frame::Answer)
    }
}

/// The task running one call. In the stateless era dropping it (the client closed the stream)
/// aborts the call, which drops the tool's future.
pub(super) struct CallTask {
    handle: Option<JoinHandle<()>>,
    lifetime: Lifetime,
}

impl CallTask {
    /// The task running a call (`None` when it answered at once), living as `lifetime` says.
    pub(super) fn new(handle: Option<JoinHandle<()>>, lifetime: Lifetime) -> CallTask {
        CallTask { handle, lifetime }
    }
}

impl Drop for CallTask {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take()
            && self.lifetime == Lifetime::Request
            && !handle.is_finished()
        {
            tracing::info!("the response stream closed; cancelling the call");
            handle.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use serde_json::json;

    use super::*;
    use crate::server::ReplyBody;

    /// What a call queues just before it answers goes out before the answer, even when both
    /// land between the stream's look at the messages and its look at the answer. The call runs
    /// on another thread, released at the moment the stream is polled, many times over.
    #[test]
    fn a_message_queued_just_before_the_answer_goes_before_it() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for round in 0..4_000 {
            let (tx, events) = queue::channel();
            let (answer_tx, answer_rx) = oneshot::channel();
            let mut frames = Frames {
                events,
                answer: Some(answer_rx),
                answered: None,
                done: false,
            };
            let (ready, go) = (
                Arc::new(AtomicBool::new(false)),
                Arc::new(AtomicBool::new(false)),
            );
            let call = {
                let (ready, go) = (ready.clone(), go.clone());
                std::thread::spawn(move || {
                    ready.store(true, Ordering::Release);
                    while !go.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                    // Each round a little later, to sweep the moment across the stream's poll.
                    for _ in 0..round % 400 {
                        std::hint::spin_loop();
                    }
                    let _ = tx.send(Outgoing::Json(json!("progress")));
                    let reply = Reply {
                        id: None,
                        body: ReplyBody::Result(json!({})),
                    };
                    let _ = answer_tx.send(Some(reply));
                })
            };
            while !ready.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            go.store(true, Ordering::Release);
            let seen: Vec<&str> = rt.block_on(async {
                let mut seen = Vec::new();
                while let Some(frame) = frames.next().await {
                    seen.push(match frame {
                        Frame::Message(_) => "message",
                        Frame::Answer(_) => "answer",
                    });
                }
                seen
            });
            call.join().unwrap();
            assert_eq!(seen, ["message", "answer"], "round {round}");
        }
    }
}
