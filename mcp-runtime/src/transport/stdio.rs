//! Newline-delimited JSON-RPC over a byte stream: stdin/stdout for a server launched by its
//! client, or any `AsyncRead`/`AsyncWrite` pair.
//!
//! One line is one message. Each request is first run inline, as soon as its line is read; one
//! that cannot finish at once (it awaits something) moves to its own task, so requests run
//! concurrently, and responses are written as they complete. Responses that are ready together
//! go out in one write. Requests that arrive together are not all read and run before the first
//! answer goes out: once `write_after_answers` answers (default 16) are waiting, the reader lets
//! the writer send them before it reads on, then again after twice as many each time while the
//! burst lasts (fewer, larger writes for a long burst), and from 16 again once it has caught up.
//! A line that is not a message (invalid JSON or UTF-8, too deep, too long, a batch, a malformed
//! envelope) gets an error response with id `null` and a log line on stderr; the server keeps
//! reading. At end of input the server stops reading, lets the requests in flight finish, writes
//! their responses and returns.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinSet;

use futures_util::future::Either;

use super::poll_once;
use crate::context::connection::Connection;
use crate::context::outgoing::Outgoing;
use crate::context::queue;
use crate::error::ProtocolError;
use crate::protocol::{Incoming, error_response};
use crate::server::Server;
use crate::server::drain::Drain;
use crate::server::{BatchAnswer, Reply, WriteJson, batch_items};

pub use super::lines::{Line, LineReader};

/// Writes one message as one line and flushes it.
pub async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    message: &Value,
) -> io::Result<()> {
    let mut line = Vec::new();
    encode_message(&mut line, message)?;
    writer.write_all(&line).await?;
    writer.flush().await
}

/// Appends one message to `buf` as one line.
pub fn encode_message(buf: &mut Vec<u8>, message: &Value) -> io::Result<()> {
    // serde_json escapes control characters inside strings, so the line has no raw newline.
    serde_json::to_writer(&mut *buf, message).map_err(io::Error::other)?;
    buf.push(b'\n');
    Ok(())
}

/// A response on its way to the writer. Notifications and requests the server sends come
/// through the connection's channel; a response to a tool call (the bulk of the traffic) comes
/// here, typed, and is encoded once, into the write buffer.
enum Outbound {
    Reply(Reply),
    /// The answers to a batch.
    Batch(BatchAnswer),
    /// A message already built as a value: the error response to a line that is not a message.
    Value(Value),
}

impl Outbound {
    fn encode_into(self, buf: &mut Vec<u8>) {
        match self {
            Outbound::Value(value) => encode_typed(buf, &value),
            Outbound::Reply(reply) => encode_with(buf, |buf| reply.write_json(buf)),
            Outbound::Batch(answers) => encode_with(buf, |buf| answers.write_json(buf)),
        }
    }
}

/// Appends one typed message and a newline; one that cannot be encoded is logged and skipped.
fn encode_typed(buf: &mut Vec<u8>, message: &impl serde::Serialize) {
    encode_with(buf, |buf| serde_json::to_writer(buf, message))
}

/// Appends what `write` writes and a newline, or nothing (logged) if it fails.
fn encode_with(buf: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) {
    let start = buf.len();
    // serde_json escapes control characters inside strings: the line has no raw newline.
    match write(&mut *buf) {
        Ok(()) => buf.push(b'\n'),
        Err(e) => {
            buf.truncate(start);
            tracing::error!(error = %e, "encoding a message failed");
        }
    }
}

/// Encodes `reply` after every message `outgoing` holds. A call queues what it sends about
/// itself (progress, log messages) on `outgoing` before its answer on the other queue; the writer
/// looks at `outgoing` first, but a call can queue both between that look and the look at the
/// answers. Taking the answer makes those messages visible, and so they still go out before it:
/// a client drops a progress notification that arrives after its request's answer.
fn reply_after_sent(buf: &mut Vec<u8>, outgoing: &mut queue::Receiver<Outgoing>, reply: Outbound) {
    while let Some(m) = outgoing.try_recv() {
        encode_typed(buf, &m);
    }
    reply.encode_into(buf);
}

/// The next answer if one is ready now, without waiting.
///
/// Not `UnboundedReceiver::try_recv`: when it meets a send still under way on another thread
/// (a request's task answering), it sleeps on tokio's thread-local parker until that send is
/// done (tokio 1.54, `chan.rs`), and that is the very parker `Runtime::block_on` sleeps on. On the
/// thread of a `block_on` (a server's `main`, where `serve_stdio` usually runs) the sleep ate a
/// wake-up already meant for this task (the reader's, which had just stepped aside for the
/// writer), so `block_on` then slept for good: the server stopped reading with its input pipe
/// full. Seen about once in three million calls under `tests/py/stdio_stress.py`, and once in
/// CI in `tests/tests/it/memory.rs`. A poll with a no-op waker never sleeps: a send still under
/// way counts as nothing ready, and the writer's next `recv` registers its own waker and looks
/// again. (`recv().now_or_never()` does the same through a future: about 60-100 instructions
/// more per stdio call by `benches/callgrind.py`, so the poll is written out.)
fn take_ready(replies: &mut UnboundedReceiver<Outbound>) -> Option<Outbound> {
    match replies.poll_recv(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(reply) => reply,
        Poll::Pending => None,
    }
}

/// The answers waiting for the writer, counted so that the reader can wait for room.
#[derive(Clone)]
struct Replies {
    tx: tokio::sync::mpsc::UnboundedSender<Outbound>,
    queued: Arc<AtomicUsize>,
    room: Arc<Notify>,
}

impl Replies {
    fn send(&self, message: Outbound) {
        self.queued.fetch_add(1, Ordering::AcqRel);
        let _ = self.tx.send(message);
    }

    /// The writer took one message off the queue.
    fn taken(&self, max: usize) {
        if self.queued.fetch_sub(1, Ordering::AcqRel) == max {
            self.room.notify_one();
        }
    }

    /// Waits until fewer than `max` answers are queued.
    async fn room(&self, max: usize) {
        while self.queued.load(Ordering::Acquire) >= max {
            // A `notify_one` between the check and the wait leaves a permit: no lost wake-up.
            self.room.notified().await;
        }
    }
}

/// Past this many bytes the writer stops gathering queued messages and writes what it has.
const WRITE_BATCH_BYTES: usize = 256 * 1024;

type StdinReader = Box<dyn AsyncRead + Unpin + Send>;
type StdoutWriter = Box<dyn AsyncWrite + Unpin + Send>;

/// This process's stdin and stdout. Where they are pipes (how a client launches a server) and
/// the OS lets us reopen them, they are driven by the runtime's reactor as non-blocking pipes;
/// otherwise (a terminal, a file, another OS) they are tokio's `stdin()`/`stdout()`, whose every
/// read and write is a hand-off to the blocking thread pool: correct everywhere, several times
/// the CPU per message.
fn stdio_streams() -> (StdinReader, StdoutWriter) {
    #[cfg(target_os = "linux")]
    {
        // Reopening through /proc gives this process its own open file description of each
        // pipe, so making it non-blocking leaves fds 0 and 1 (which children may inherit, and
        // the client may share) exactly as they were.
        use tokio::net::unix::pipe::OpenOptions;
        let reader: StdinReader = match OpenOptions::new().open_receiver("/proc/self/fd/0") {
            Ok(pipe) => Box::new(pipe),
            Err(_) => Box::new(tokio::io::stdin()),
        };
        let writer: StdoutWriter = match OpenOptions::new().open_sender("/proc/self/fd/1") {
            Ok(pipe) => Box::new(pipe),
            Err(_) => Box::new(tokio::io::stdout()),
        };
        (reader, writer)
    }
    #[cfg(not(target_os = "linux"))]
    {
        (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
    }
}

/// A complete line's text, or the error response a line that is not a message gets (over the
/// size limit, or not UTF-8).
fn line_text(line: &Line, max: usize) -> Result<&str, Value> {
    let error = match line {
        Line::TooLong(n) => ProtocolError::invalid_request(format!(
            "Invalid Request: the message is {n} bytes, over the limit of {max}"
        )),
        Line::Complete(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => return Ok(text),
            Err(_) => ProtocolError::parse_error("Parse error: the message is not valid UTF-8"),
        },
    };
    Err(error_response(&Value::Null, &error))
}

impl Server {
    /// Serves MCP over this process's stdin and stdout until stdin ends; requests still running
    /// then finish and their responses are written before this returns. Nothing else may write
    /// to stdout: log through `tracing` to stderr.
    pub async fn serve_stdio(&self) -> io::Result<()> {
        self.serve_stdio_until(std::future::pending()).await
    }

    /// [`Server::serve_stdio`] until stdin ends or `shutdown` resolves (a signal: the `cli`
    /// passes SIGTERM and Ctrl-C), whichever comes first. Then nothing more is read; the calls
    /// in flight get [`ServerOptions::drain_timeout`](crate::server::ServerOptions::drain_timeout) to
    /// finish (past it each is answered with a retryable error, [`Shutdown`](crate::server::Shutdown)), every
    /// answer is written and flushed, and this returns `Ok(())`.
    pub async fn serve_stdio_until(
        &self,
        shutdown: impl Future<Output = ()> + Send,
    ) -> io::Result<()> {
        super::log::install_default_subscriber(self);
        let (reader, writer) = stdio_streams();
        self.serve_io_until(reader, writer, shutdown).await
    }

    /// Serves one connection over a reader and a writer of newline-delimited JSON-RPC.
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send,
    {
        self.serve_io_until(reader, writer, std::future::pending())
            .await
    }

    /// [`Server::serve_io`] until the reader ends or `shutdown` resolves, then drained as
    /// [`Server::serve_stdio_until`] says.
    pub async fn serve_io_until<R, W>(
        &self,
        reader: R,
        writer: W,
        shutdown: impl Future<Output = ()> + Send,
    ) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send,
    {
        let drain = Drain::new(self.options().drain_timeout);
        let mut shutdown = std::pin::pin!(shutdown);
        let (conn, mut outgoing) = Connection::new();
        // Responses to requests, still typed: the writer encodes them into its buffer. Messages
        // the server originates (notifications, its own requests) arrive on `outgoing`.
        // Bounded: when the client stops reading, the writer stops, the queue fills, and the
        // reader waits for room before it reads the next request (backpressure). The bound is a
        // counter beside an unbounded channel rather than tokio's bounded channel, whose permit
        // per message cost 6.6k instructions a call (callgrind, BENCHMARKS.md).
        let (replies_tx, mut replies) = tokio::sync::mpsc::unbounded_channel::<Outbound>();
        let replies_tx = Replies {
            tx: replies_tx,
            queued: Arc::new(AtomicUsize::new(0)),
            room: Arc::new(Notify::new()),
        };
        let max_queued = self.options().max_queued_responses;
        let write_after = self.options().write_after_answers;
        let (drained_tx, mut drained_rx) = oneshot::channel::<()>();
        let max = self.options().max_message_bytes;

        let read = async {
            let mut lines = LineReader::new(reader, max);
            let mut tasks = JoinSet::new();
            let mut next_write = write_after;
            // Raced with `shutdown` once, as a whole, rather than at each line (a `select!` per
            // line was about 700 instructions a call): the loop is stopped only where it awaits
            // (room in the queue, the next line, the writer's turn), never inside a line's
            // handling.
            let reading = async {
                loop {
                    replies_tx.room(max_queued).await;
                    // Caught up with the input: the next burst starts from the first threshold.
                    if lines.buffered() == 0 {
                        next_write = write_after;
                    }
                    let line = match lines.next_line().await {
                        Ok(Some(line)) => line,
                        Ok(None) => break Ok(()),
                        Err(e) => {
                            tracing::error!(error = %e, "reading the connection failed");
                            break Err(e);
                        }
                    };
                    let text = match line_text(&line, max) {
                        Ok(text) => text,
                        Err(response) => {
                            tracing::warn!(error = %response["error"]["message"], "rejected an incoming line");
                            replies_tx.send(Outbound::Value(response));
                            continue;
                        }
                    };
                    if text.bytes().all(|b| b.is_ascii_whitespace()) {
                        continue;
                    }
                    // A batch, on a connection whose version says batches must be accepted.
                    if text.bytes().find(|b| !b.is_ascii_whitespace()) == Some(b'[')
                        && self.accepts_batches(&conn)
                        && let Some(items) = batch_items(text.as_bytes())
                    {
                        let answer = drain.bound(self.batch(items, &conn), || None);
                        let replies_tx = replies_tx.clone();
                        tasks.spawn(async move {
                            if let Some(answers) = answer.await {
                                replies_tx.send(Outbound::Batch(answers));
                            }
                        });
                        continue;
                    }
                    match Incoming::parse_text(text) {
                        Ok(message) => {
                            let id = match &message {
                                Incoming::Request(req) => Some(req.id.clone()),
                                _ => None,
                            };
                            let mut response = self.handle(message, &conn);
                            match poll_once(&mut response) {
                                Poll::Ready(Some(r)) => {
                                    replies_tx.send(Outbound::Reply(r));
                                }
                                Poll::Ready(None) => {}
                                Poll::Pending => {
                                    let replies_tx = replies_tx.clone();
                                    let response = match id {
                                        Some(id) => Either::Left(drain.bound_request(id, response)),
                                        None => Either::Right(drain.bound(response, || None)),
                                    };
                                    tasks.spawn(async move {
                                        if let Some(r) = response.await {
                                            replies_tx.send(Outbound::Reply(r));
                                        }
                                    });
                                }
                            }
                        }
                        Err(rejected) => {
                            tracing::warn!(error = %rejected.error, "rejected an incoming message");
                            replies_tx.send(Outbound::Reply(Reply::from(rejected)));
                        }
                    }
                    while tasks.try_join_next().is_some() {}
                    // Lines already buffered would otherwise all be read and run before the writer
                    // gets a turn: past `next_write` ready answers, let it write them first (the
                    // answers of a burst's first requests go out while its later ones are run).
                    if replies_tx.queued.load(Ordering::Acquire) >= next_write {
                        next_write = next_write.saturating_mul(2);
                        tokio::task::yield_now().await;
                    }
                }
            };
            let result = tokio::select! {
                biased;
                result = reading => result,
                () = &mut shutdown => {
                    tracing::info!("shutting down: no more requests are read");
                    Ok(())
                }
            };
            // The peer can no longer answer our requests; let the calls in flight finish,
            // within the drain timeout.
            drain.begin();
            conn.close();
            while let Some(joined) = tasks.join_next().await {
                if let Err(e) = joined
                    && e.is_panic()
                {
                    tracing::error!("a request task panicked");
                }
            }
            let _ = drained_tx.send(());
            result
        };

        let write = async {
            let mut writer = writer;
            let mut failed: Option<io::Error> = None;
            let mut buf = Vec::with_capacity(16 * 1024);
            let mut drained = false;
            loop {
                // Wait for one message, then take every message already queued behind it, and
                // write them all at once.
                tokio::select! {
                    biased;
                    m = outgoing.recv() => match m {
                        Some(m) => encode_typed(&mut buf, &m),
                        None => break,
                    },
                    Some(reply) = replies.recv() => {
                        replies_tx.taken(max_queued);
                        reply_after_sent(&mut buf, &mut outgoing, reply);
                    }
                    _ = &mut drained_rx, if !drained => drained = true,
                }
                while buf.len() < WRITE_BATCH_BYTES {
                    if let Some(m) = outgoing.try_recv() {
                        encode_typed(&mut buf, &m);
                    } else if let Some(reply) = take_ready(&mut replies) {
                        replies_tx.taken(max_queued);
                        reply_after_sent(&mut buf, &mut outgoing, reply);
                    } else {
                        break;
                    }
                }
                if failed.is_none() && !buf.is_empty() {
                    let result = match writer.write_all(&buf).await {
                        Ok(()) => writer.flush().await,
                        Err(e) => Err(e),
                    };
                    if let Err(e) = result {
                        tracing::error!(error = %e, "writing to the connection failed");
                        failed = Some(e);
                    }
                }
                let full = buf.len() >= WRITE_BATCH_BYTES;
                buf.clear();
                // One huge message must not pin its buffer for the connection's lifetime.
                if buf.capacity() > 4 * WRITE_BATCH_BYTES {
                    buf = Vec::with_capacity(16 * 1024);
                }
                // Every request has finished and everything queued is written: done.
                if drained && !full && outgoing.is_empty() && replies.is_empty() {
                    break;
                }
            }
            let _ = writer.shutdown().await;
            failed
        };

        // The reader first, then the writer, on every turn: when the reader steps aside for the
        // writer (below `write_after`), the writer runs before the reader goes on.
        let (read_result, write_error) = tokio::join!(biased; read, write);
        read_result?;
        match write_error {
            Some(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().await.unwrap() {
            out.push(l);
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_skips_long_ones() {
        let got = lines(b"ab\r\n0123456789\ncd", 5).await;
        assert_eq!(
            got,
            vec![
                Line::Complete(b"ab".to_vec()),
                Line::TooLong(10),
                Line::Complete(b"cd".to_vec()),
            ]
        );
        assert!(lines(b"", 5).await.is_empty());
    }

    /// A burst of requests, most answered inline, gets every answer (each request's in the
    /// order the requests came; the error for the malformed line may come earlier), and the
    /// server stops once its input ends and everything is out.
    #[tokio::test]
    async fn a_burst_of_requests_gets_every_answer_then_the_server_stops() {
        let server = Server::builder("burst", "1.0.0").build().unwrap();
        let mut input = Vec::new();
        input.extend_from_slice(
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        input.push(b'\n');
        for id in 1..=300 {
            let method = if id % 3 == 0 { "tools/list" } else { "ping" };
            input.extend_from_slice(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#).as_bytes(),
            );
            input.push(b'\n');
        }
        input.extend_from_slice(b"{not json\n");
        let (mut client, server_side) = tokio::io::duplex(1024);
        let (reader, writer) = tokio::io::split(server_side);
        let serve = tokio::spawn(async move { server.serve_io(reader, writer).await });
        let (mut from_server, mut to_server) = tokio::io::split(&mut client);
        let send = async {
            to_server.write_all(&input).await.unwrap();
            to_server.shutdown().await.unwrap();
        };
        let mut output = Vec::new();
        let receive = tokio::io::AsyncReadExt::read_to_end(&mut from_server, &mut output);
        let (_, received) = tokio::join!(send, receive);
        received.unwrap();
        serve.await.unwrap().unwrap();
        let answers: Vec<Value> = output
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(answers.len(), 302);
        let ids: Vec<Value> = answers
            .iter()
            .map(|a| a["id"].clone())
            .filter(|id| !id.is_null())
            .collect();
        let expected: Vec<Value> = (0..=300).map(Value::from).collect();
        assert_eq!(ids, expected);
        let list = answers.iter().find(|a| a["id"] == 3).unwrap();
        assert_eq!(list["result"]["tools"], serde_json::json!([]));
        let error = answers.iter().find(|a| a["id"].is_null()).unwrap();
        assert_eq!(error["error"]["code"], -32700);
    }

    /// Records how many answers (lines) each write carried.
    #[derive(Clone, Default)]
    struct Writes(Arc<std::sync::Mutex<Vec<usize>>>);

    impl AsyncWrite for Writes {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let lines = buf.iter().filter(|&&b| b == b'\n').count();
            self.0.lock().unwrap().push(lines);
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    async fn answers_per_write(server: Server, requests: usize) -> Vec<usize> {
        let mut input = Vec::new();
        for id in 1..=requests {
            input.extend_from_slice(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes(),
            );
            input.push(b'\n');
        }
        let writes = Writes::default();
        server.serve_io(&input[..], writes.clone()).await.unwrap();
        writes.0.lock().unwrap().clone()
    }

    /// Requests that arrive together (all buffered at once) are not all read and run before the
    /// first answer goes out: the writer gets its turn after `write_after_answers` answers, then
    /// after twice as many each time while the burst lasts.
    #[tokio::test(flavor = "current_thread")]
    async fn answers_ready_together_are_written_early_then_in_growing_batches() {
        let server = Server::builder("writes", "1.0.0").build().unwrap();
        assert_eq!(server.options().write_after_answers, 16);
        assert_eq!(answers_per_write(server, 70).await, vec![16, 32, 22]);
        let three = Server::builder("writes", "1.0.0")
            .write_after_answers(3)
            .build()
            .unwrap();
        assert_eq!(answers_per_write(three, 30).await, vec![3, 6, 12, 9]);
        let all = Server::builder("writes", "1.0.0")
            .write_after_answers(50)
            .build()
            .unwrap();
        assert_eq!(answers_per_write(all, 20).await, vec![20]);
        let zero = Server::builder("writes", "1.0.0")
            .write_after_answers(0)
            .build();
        assert!(zero.is_err());
    }

    /// Once the reader has caught up with its input, the next burst starts again from
    /// `write_after_answers`.
    #[tokio::test(flavor = "current_thread")]
    async fn each_burst_starts_again_from_the_first_threshold() {
        let server = Server::builder("writes", "1.0.0")
            .write_after_answers(8)
            .build()
            .unwrap();
        let (mut client, server_side) = tokio::io::duplex(64 * 1024);
        let writes = Writes::default();
        let out = writes.clone();
        let serve = tokio::spawn(async move { server.serve_io(server_side, out).await });
        let burst = |from: usize| {
            let mut input = Vec::new();
            for id in from..from + 20 {
                input.extend_from_slice(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes(),
                );
                input.push(b'\n');
            }
            input
        };
        let answered = |n: usize| {
            let writes = writes.clone();
            async move {
                while writes.0.lock().unwrap().iter().sum::<usize>() < n {
                    tokio::task::yield_now().await;
                }
            }
        };
        client.write_all(&burst(1)).await.unwrap();
        answered(20).await;
        client.write_all(&burst(21)).await.unwrap();
        answered(40).await;
        drop(client);
        serve.await.unwrap().unwrap();
        assert_eq!(*writes.0.lock().unwrap(), vec![8, 12, 8, 12]);
    }
}
