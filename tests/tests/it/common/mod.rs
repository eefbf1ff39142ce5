//! What several HTTP test files share: a POST and the JSON-RPC messages of its answer, read from a
//! JSON body or from each event of a stream.

// Each test file compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use serde_json::Value;

/// POSTs `body` to `url` over `http`'s connections, in `session` (none for `initialize` or a
/// stateless request) at protocol `version`: the status, the session header and the JSON-RPC
/// messages of the answer.
pub async fn post_in_session(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    version: &str,
    body: Value,
) -> (u16, Option<String>, Vec<Value>) {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(id) = session {
        request = request
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", version);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let id = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    (status, id, messages(&text))
}

/// The messages of an answer: its JSON body, or the `data:` of each event of its stream.
pub fn messages(text: &str) -> Vec<Value> {
    match serde_json::from_str(text) {
        Ok(one) => vec![one],
        Err(_) => text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| serde_json::from_str(d.trim()).unwrap())
            .collect(),
    }
}

/// The answer of a request: its JSON body, or the last event of its stream.
pub fn last_message(text: &str) -> Value {
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .next_back()
        .unwrap_or(text);
    serde_json::from_str(json.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// An event stream (a call's answer, or a session's `GET` stream), read one JSON-RPC message at a
/// time.
pub struct Events {
    body: Pin<Box<dyn Stream<Item = reqwest::Result<Vec<u8>>> + Send>>,
    buffer: String,
}

impl Events {
    /// Reads `response`'s body as it arrives.
    pub fn of(response: reqwest::Response) -> Events {
        let body = response.bytes_stream().map(|b| b.map(|b| b.to_vec()));
        Events {
            body: Box::pin(body),
            buffer: String::new(),
        }
    }

    /// The next message (an event without `data:` is skipped); panics when the stream stays quiet
    /// past `test_support::HANG` or ends.
    pub async fn next(&mut self) -> Value {
        loop {
            let (_, data) = self.next_event().await.expect("the stream ended");
            if let Some(data) = data {
                return data;
            }
        }
    }

    /// The next event: its `id` and its message (`None` without `data:`, as in a priming
    /// event); keep-alive comments are skipped, `None` when the stream ended or broke.
    pub async fn next_event(&mut self) -> Option<(Option<String>, Option<Value>)> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                if event.lines().all(|l| l.starts_with(':')) {
                    continue;
                }
                let field = |name: &str| {
                    event
                        .lines()
                        .find_map(|l| l.strip_prefix(name))
                        .map(|v| v.trim().to_owned())
                };
                let data = field("data:").map(|d| serde_json::from_str(&d).unwrap());
                return Some((field("id:"), data));
            }
            let chunk = tokio::time::timeout(test_support::HANG, self.body.next())
                .await
                .expect("the stream went quiet")?;
            self.buffer
                .push_str(&String::from_utf8(chunk.ok()?).unwrap());
        }
    }
}
