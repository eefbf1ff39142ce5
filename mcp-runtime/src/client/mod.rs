//! A client for tests and tools: connects to a server in memory ([`Client::in_process`]) or over
//! any byte stream, such as a child process's stdio ([`Client::over_io`]), and speaks either era.
//!
//! ```
//! # use mcp_runtime::{Server, Client, ToolTable};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("demo", "1.0.0").tools(ToolTable::default()).build()?;
//! let client = Client::in_process(&server).await?;
//! assert_eq!(client.server_info().unwrap().name, "demo");
//! assert!(client.list_tools().await?.is_empty());
//! # Ok(()) }
//! ```
//!
//! | file | what it holds |
//! |---|---|
//! | this file | [`Client`]: requests, notifications, the session it negotiated |
//! | `builder.rs` | [`ClientBuilder`], [`Era`], the callbacks, [`ClientError`] |
//! | `input.rs` | answers to the server's questions (elicitation, sampling, roots) in both eras |
//! | `tasks.rs` | task calls: as a task, get, result, update, cancel, list |
//! | `prompts.rs` | `prompts/list`, `prompts/get` (an `input_required` result answered as for `tools/call`), `completion/complete` |
//! | `resources.rs` | `resources/list` (every page), `resources/templates/list`, `resources/read`, subscribe and unsubscribe |
//! | `listen.rs` | [`Client::listen`]: change notifications in either era, as a [`Listener`] |
//! | `io.rs` | the write loop and the read loop that routes what the server sends |
//! | `in_process.rs` | a client connected to a server in memory |

mod builder;
mod input;
mod prompts;
pub use prompts::Completion;
// `Client::in_process` is the user's door; the pipe under it is for benches and tests.
#[doc(hidden)]
pub mod in_process;
mod io;
mod listen;
mod resources;
mod tasks;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::context::connection::lock;
use crate::error::ProtocolError;
use crate::protocol::stateless::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROTOCOL_VERSION_KEY, SERVER_INFO_KEY,
};
use crate::protocol::{
    Implementation, Incoming, LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION, LogLevel,
    RequestId, error_response, notification_message, request_message, result_response,
};
use crate::tool::content::CallToolResult;
use crate::transport::stdio::{Line, LineReader, write_message};

pub use crate::protocol::subscriptions::{Change, SubscriptionFilter};
pub use builder::{
    ClientBuilder, ClientError, ElicitationAnswer, ElicitationRequest, Era, LogMessage, Progress,
};
use builder::{ElicitFn, LogFn, ProgressFn};
use io::{elicitation_request, read_loop, str_field, write_loop};
pub use listen::Listener;
pub use tasks::started_task_id;

/// What the opening exchange told the client.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    /// The protocol version in use.
    pub protocol_version: String,
    /// The server's identity.
    pub server_info: Option<Implementation>,
    /// The server's capabilities.
    pub capabilities: Value,
    /// The server's instructions.
    pub instructions: Option<String>,
    /// The full `initialize` or `server/discover` result.
    pub raw: Value,
}

struct ClientInner {
    out: mpsc::UnboundedSender<Outgoing>,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ProtocolError>>>>,
    next_id: AtomicU64,
    era: Era,
    client_info: Implementation,
    capabilities: Value,
    log_level: Option<LogLevel>,
    on_progress: Option<ProgressFn>,
    on_log: Option<LogFn>,
    elicitation: Option<ElicitFn>,
    sampling: Option<input::SamplingFn>,
    /// What `roots/list` answers; `None`: no roots capability declared.
    roots: Mutex<Option<Vec<crate::context::roots::Root>>>,
    session: OnceLock<SessionInfo>,
    closed: AtomicBool,
    unmatched: AtomicUsize,
    /// Where change notifications go: the open [`Listener`]s.
    listens: Mutex<listen::Sinks>,
}

enum Outgoing {
    Message(Value),
    Close,
}

/// An MCP client. Dropping it closes the connection; [`Client::close`] also waits for the
/// server to finish.
pub struct Client {
    inner: Arc<ClientInner>,
    tasks: Vec<JoinHandle<()>>,
}

/// A request sent and not yet answered: its id, a way to cancel it, and its response.
pub struct PendingRequest {
    inner: Arc<ClientInner>,
    id: RequestId,
    rx: oneshot::Receiver<Result<Value, ProtocolError>>,
}

impl PendingRequest {
    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// Sends `notifications/cancelled` for this request and stops waiting for it.
    pub fn cancel(self, reason: &str) {
        lock(&self.inner.pending).remove(&self.id);
        let params = json!({"requestId": self.id.to_json(), "reason": reason});
        self.inner
            .send(notification_message("notifications/cancelled", params));
    }

    /// Waits for the response.
    pub async fn response(self) -> Result<Value, ClientError> {
        match self.rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(ClientError::Protocol(e)),
            Err(_) => Err(ClientError::Closed),
        }
    }
}

impl ClientInner {
    fn send(&self, message: Value) {
        let _ = self.out.send(Outgoing::Message(message));
    }

    fn stateless(&self) -> bool {
        self.era == Era::Stateless
    }

    /// Adds what every request of this client carries to `params._meta`, keeping what the
    /// caller already put there.
    fn stamp(&self, id: &RequestId, params: &mut Map<String, Value>) {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(meta) = meta.as_object_mut() else {
            return;
        };
        if self.on_progress.is_some() {
            meta.entry("progressToken").or_insert_with(|| id.to_json());
        }
        if self.stateless() {
            meta.entry(PROTOCOL_VERSION_KEY)
                .or_insert_with(|| LATEST_STATELESS_VERSION.into());
            meta.entry(CLIENT_INFO_KEY)
                .or_insert_with(|| self.client_info.to_json());
            meta.entry(CLIENT_CAPABILITIES_KEY)
                .or_insert_with(|| self.capabilities.clone());
            if let Some(level) = self.log_level {
                meta.entry(LOG_LEVEL_KEY)
                    .or_insert_with(|| level.as_str().into());
            }
        }
        if meta.is_empty() {
            params.remove("_meta");
        }
    }

    fn start(self: &Arc<Self>, method: &str, params: Value, stamp: bool) -> PendingRequest {
        self.start_as(self.new_id(), method, params, stamp)
    }

    /// The id of the next request this client sends.
    fn new_id(&self) -> RequestId {
        RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Sends a request with an id from [`ClientInner::new_id`].
    fn start_as(
        self: &Arc<Self>,
        id: RequestId,
        method: &str,
        params: Value,
        stamp: bool,
    ) -> PendingRequest {
        let mut params = match params {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                // Sent as given: the caller is testing what the server does with it.
                let (tx, rx) = oneshot::channel();
                lock(&self.pending).insert(id.clone(), tx);
                self.send(request_message(&id, method, other));
                return PendingRequest {
                    inner: self.clone(),
                    id,
                    rx,
                };
            }
        };
        if stamp {
            self.stamp(&id, &mut params);
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        if self.closed.load(Ordering::Acquire) {
            lock(&self.pending).remove(&id);
        } else {
            self.send(request_message(&id, method, Value::Object(params)));
        }
        PendingRequest {
            inner: self.clone(),
            id,
            rx,
        }
    }
}

impl Client {
    /// Options for a client: era, handlers, log level.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client connected to `server` in memory, with the default options.
    pub async fn in_process(server: &crate::Server) -> Result<Client, ClientError> {
        Client::builder().in_process(server).await
    }

    /// A client over a reader and writer, with the default options.
    pub async fn over_io<R, W>(reader: R, writer: W) -> Result<Client, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Client::builder().over_io(reader, writer).await
    }

    async fn open(&self) -> Result<(), ClientError> {
        let raw = match &self.inner.era {
            Era::Handshake(version) => {
                let params = json!({
                    "protocolVersion": version,
                    "capabilities": self.inner.capabilities,
                    "clientInfo": self.inner.client_info.to_json(),
                });
                self.request("initialize", params).await?
            }
            Era::Stateless => self.request("server/discover", json!({})).await?,
        };
        let (protocol_version, server_info) = match &self.inner.era {
            Era::Handshake(_) => (
                str_field(&raw, "protocolVersion")?,
                raw.get("serverInfo").and_then(Implementation::from_json),
            ),
            Era::Stateless => {
                let versions = raw
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .ok_or_else(|| {
                        ClientError::InvalidResult("discover without supportedVersions".into())
                    })?;
                if !versions.iter().any(|v| v == LATEST_STATELESS_VERSION) {
                    return Err(ClientError::InvalidResult(format!(
                        "the server does not support {LATEST_STATELESS_VERSION}"
                    )));
                }
                (
                    LATEST_STATELESS_VERSION.into(),
                    raw.get("_meta")
                        .and_then(|m| m.get(SERVER_INFO_KEY))
                        .and_then(Implementation::from_json),
                )
            }
        };
        let info = SessionInfo {
            protocol_version,
            server_info,
            capabilities: raw.get("capabilities").cloned().unwrap_or(Value::Null),
            instructions: raw
                .get("instructions")
                .and_then(Value::as_str)
                .map(Into::into),
            raw: raw.clone(),
        };
        let _ = self.inner.session.set(info);
        if let Era::Handshake(_) = self.inner.era {
            self.notify("notifications/initialized", json!({}));
            if let Some(level) = self.inner.log_level {
                self.set_log_level(level).await?;
            }
        }
        Ok(())
    }

    /// What the opening exchange returned.
    pub fn session(&self) -> Option<&SessionInfo> {
        self.inner.session.get()
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> Option<&Implementation> {
        self.session()?.server_info.as_ref()
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> Option<&str> {
        self.session().map(|s| s.protocol_version.as_str())
    }

    /// The server's instructions.
    pub fn instructions(&self) -> Option<&str> {
        self.session()?.instructions.as_deref()
    }

    /// Sends a request (stamped with the era's envelope and a progress token) without waiting.
    pub fn send_request(&self, method: &str, params: Value) -> PendingRequest {
        self.inner.start(method, params, true)
    }

    /// Sends a request and waits for its result.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.send_request(method, params).response().await
    }

    /// Sends a request exactly as given (no envelope, no progress token) and waits for its result.
    pub async fn request_unstamped(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, ClientError> {
        self.inner.start(method, params, false).response().await
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.inner.send(notification_message(method, params));
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.request("ping", json!({})).await.map(|_| ())
    }

    /// `logging/setLevel` (handshake era).
    pub async fn set_log_level(&self, level: LogLevel) -> Result<(), ClientError> {
        self.request("logging/setLevel", json!({"level": level.as_str()}))
            .await
            .map(|_| ())
    }

    /// One `tools/list` page: the result object as sent.
    pub async fn list_tools_page(&self, cursor: Option<&str>) -> Result<Value, ClientError> {
        let params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        self.request("tools/list", params).await
    }

    /// Every tool, following `nextCursor` page by page.
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("tools/list", "tools").await
    }

    /// Every item of a list method (`tools/list`, `prompts/list`), under `key` in each page,
    /// following `nextCursor` page by page.
    pub(crate) async fn list_all(
        &self,
        method: &str,
        key: &str,
    ) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self.request(method, params).await?;
            let batch = page
                .get(key)
                .and_then(Value::as_array)
                .ok_or_else(|| ClientError::InvalidResult(format!("{method} without {key}")))?;
            items.extend(batch.iter().cloned());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(items),
            }
        }
    }

    /// Calls a tool. In the stateless era an `input_required` result is answered through the
    /// client's handlers (elicitation, sampling, roots) and the call repeated with the answers,
    /// up to 10 rounds.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        let raw = self.call_tool_raw(name, arguments).await?;
        CallToolResult::from_json(&raw)
            .ok_or_else(|| ClientError::InvalidResult(format!("not a tool result: {raw}")))
    }

    /// [`Client::call_tool`], returning the result object as sent.
    pub async fn call_tool_raw(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        self.request_with_input("tools/call", params).await
    }

    /// How many responses arrived for no request waiting (for example after a cancellation).
    pub fn unmatched_responses(&self) -> usize {
        self.inner.unmatched.load(Ordering::Relaxed)
    }

    /// Closes the connection (end of input for the server) and waits until the server has
    /// closed its side.
    pub async fn close(mut self) {
        let _ = self.inner.out.send(Outgoing::Close);
        for task in self.tasks.drain(..) {
            let _ = task.await;
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
