//! Newline-delimited lines read with a bound on each: what the stdio transport reads its
//! messages with ([`LineReader`]).

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// One line read by a [`LineReader`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The bytes of a line, without its line ending.
    Complete(Vec<u8>),
    /// A line longer than the limit, skipped; its length in bytes.
    TooLong(usize),
}

/// Reads newline-delimited lines without ever buffering more than the limit of one line.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Bytes read from the source and not yet returned as lines.
    pub(super) fn buffered(&self) -> usize {
        self.inner.buffer().len()
    }

    /// A reader of lines of at most `max` bytes.
    pub fn new(reader: R, max: usize) -> Self {
        LineReader {
            inner: BufReader::with_capacity(64 * 1024, reader),
            max,
        }
    }

    /// The next line; `None` at end of input. A last line without a newline still counts.
    pub async fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut buf = Vec::new();
        let mut len = 0usize;
        let mut seen_any = false;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(seen_any.then(|| finish(buf, len, self.max)));
            }
            seen_any = true;
            let (chunk, consumed, end) = match memchr(available) {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            len += chunk.len();
            if len <= self.max {
                buf.extend_from_slice(chunk);
            } else {
                buf = Vec::new();
            }
            self.inner.consume(consumed);
            if end {
                return Ok(Some(finish(buf, len, self.max)));
            }
        }
    }
}

fn finish(mut buf: Vec<u8>, len: usize, max: usize) -> Line {
    if len > max {
        return Line::TooLong(len);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Line::Complete(buf)
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}
