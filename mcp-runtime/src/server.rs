//! Dispatch: the lifecycle of both eras, `tools/list`, `tools/call`, cancellation, progress and
//! logging. Transport-independent: a transport hands each incoming message and its
//! [`Connection`] to [`Server::handle`] and writes out the response and whatever the connection
//! queues.
//!
//! ```
//! use mcp_runtime::Client;
//! use mcp_runtime::prelude::*;
//!
//! /// Add two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("calc", "1.0.0")
//!     .instructions("Arithmetic.")
//!     .tools(tools![add])
//!     .build()?;
//! // A binary serves it with `server.serve_stdio().await?`; a test talks to it in memory:
//! let client = Client::in_process(&server).await?;
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await?;
//! assert_eq!(result.structured_content, Some(serde_json::json!({"result": 5})));
//! # Ok(()) }
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use crate::call::UnknownToolPolicy;
use crate::connection::{CancelToken, Connection, Handshake, Peer, lock};
use crate::content::CallToolResult;
use crate::context::{Context, RequestScope};
use crate::error::ProtocolError;
use crate::output::ToolOutput;
use crate::protocol::handshake::{InitializeParams, initialize_result};
use crate::protocol::stateless::{
    CacheHint, Envelope, REMOVED_METHODS, discover_result, has_envelope, stamp_result,
};
use crate::protocol::{
    Implementation, Incoming, LogLevel, Notification, Reply, ReplyBody, Request, RequestId,
    params_meta,
};
use crate::state::StateMap;
use crate::table::ToolTable;

/// The default limit on one incoming message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// A server: the tool table, the state tools borrow, the server's identity and its options.
/// Cheap to clone; every connection shares one.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

struct ServerInner {
    tools: ToolTable,
    state: Arc<StateMap>,
    info: Implementation,
    instructions: Option<String>,
    options: ServerOptions,
    call_slots: Option<Arc<Semaphore>>,
    capabilities: Value,
    /// The `result` of `tools/list` for the first page, encoded once (see
    /// [`Server::encoded_list_response`]).
    first_list_page: OnceLock<Box<[u8]>>,
}

/// The knobs of a server, set on its [`ServerBuilder`].
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Tools per `tools/list` page; `None`: one page.
    pub page_size: Option<usize>,
    /// What an unknown tool name gets.
    pub unknown_tool: UnknownToolPolicy,
    /// The longest a tool may run.
    pub call_timeout: Option<Duration>,
    /// How many tool calls may run at once (across connections); further calls wait.
    pub max_concurrent_calls: Option<usize>,
    /// The longest incoming message a transport accepts, in bytes.
    pub max_message_bytes: usize,
    /// `ttlMs` of stateless `tools/list` and `server/discover` results.
    pub list_ttl: Duration,
    /// Declare the prompts, resources and completions capabilities and answer their list
    /// methods with empty lists.
    pub empty_prompts_and_resources: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            page_size: None,
            unknown_tool: UnknownToolPolicy::default(),
            call_timeout: None,
            max_concurrent_calls: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            list_ttl: Duration::ZERO,
            empty_prompts_and_resources: false,
        }
    }
}

/// Builds a [`Server`]: `Server::builder("tasks", "1.0.0").tools(table).build()?`.
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: ToolTable,
    state: StateMap,
    options: ServerOptions,
}

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// A tool borrows a state type the builder was not given.
    MissingState {
        /// The tool.
        tool: String,
        /// The type it borrows.
        type_name: String,
    },
    /// An option has a value that cannot work.
    InvalidOption(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::MissingState { tool, type_name } => write!(
                f,
                "tool `{tool}` borrows state of type `{type_name}`, but the server was not given \
                 one; add `.state(…)` with a `{type_name}` to the builder"
            ),
            BuildError::InvalidOption(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for BuildError {}

impl ServerBuilder {
    /// A human-readable name for the server (`serverInfo.title`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Guidance for the model about the server as a whole (`instructions`).
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// A value tools borrow as `&T`. One value per type; call once per type.
    pub fn state<T: std::any::Any + Send + Sync>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// A shared value tools borrow as `&T`.
    pub fn state_arc<T: std::any::Any + Send + Sync>(mut self, value: Arc<T>) -> Self {
        self.state.insert_arc(value);
        self
    }

    /// The tools to serve (the table `tools![…]` builds).
    pub fn tools(mut self, tools: ToolTable) -> Self {
        self.tools = tools;
        self
    }

    /// Tools per `tools/list` page (default: all in one page).
    pub fn page_size(mut self, n: usize) -> Self {
        self.options.page_size = Some(n);
        self
    }

    /// What an unknown tool name gets (default: an `isError` result listing the valid names).
    pub fn unknown_tool(mut self, policy: UnknownToolPolicy) -> Self {
        self.options.unknown_tool = policy;
        self
    }

    /// The longest a tool may run; past it the call gets the `isError` result
    /// `Error executing tool <name>: timed out after <duration>` and the tool is dropped.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.options.call_timeout = Some(timeout);
        self
    }

    /// How many tool calls may run at once; further calls wait for a slot (none is refused).
    pub fn max_concurrent_calls(mut self, n: usize) -> Self {
        self.options.max_concurrent_calls = Some(n);
        self
    }

    /// The longest incoming message, in bytes (default 4 MiB). Longer lines get an error response.
    pub fn max_message_bytes(mut self, n: usize) -> Self {
        self.options.max_message_bytes = n;
        self
    }

    /// `ttlMs` of stateless `tools/list` and `server/discover` results (default 0).
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.options.list_ttl = ttl;
        self
    }

    /// Declares the `prompts`, `resources` and `completions` capabilities and answers
    /// `prompts/list`, `resources/list`, `resources/templates/list` and `completion/complete`
    /// with empty lists (`prompts/get` and `resources/read` then answer -32602). For clients that list everything a server may offer
    /// and treat -32601 as a failure; a tools-only server does not need it otherwise.
    pub fn empty_prompts_and_resources(mut self) -> Self {
        self.options.empty_prompts_and_resources = true;
        self
    }

    /// Builds the server. Fails when a tool borrows a state type that was not given.
    pub fn build(self) -> Result<Server, BuildError> {
        // From the specs: checking the state does not build the tools' schemas.
        for spec in self.tools.specs() {
            for req in (spec.state)() {
                if !self.state.contains(req.type_id) {
                    return Err(BuildError::MissingState {
                        tool: spec.name.to_owned(),
                        type_name: req.type_name.to_owned(),
                    });
                }
            }
        }
        if self.options.page_size == Some(0) {
            return Err(BuildError::InvalidOption(
                "page_size must be at least 1".into(),
            ));
        }
        if self.options.max_concurrent_calls == Some(0) {
            return Err(BuildError::InvalidOption(
                "max_concurrent_calls must be at least 1".into(),
            ));
        }
        if self.options.max_message_bytes == 0 {
            return Err(BuildError::InvalidOption(
                "max_message_bytes must be at least 1".into(),
            ));
        }
        let call_slots = self
            .options
            .max_concurrent_calls
            .map(|n| Arc::new(Semaphore::new(n)));
        let capabilities = capabilities(&self.options);
        Ok(Server {
            inner: Arc::new(ServerInner {
                tools: self.tools,
                state: Arc::new(self.state),
                info: self.info,
                instructions: self.instructions,
                options: self.options,
                call_slots,
                capabilities,
                first_list_page: OnceLock::new(),
            }),
        })
    }
}

/// The capabilities `initialize` and `server/discover` declare.
fn capabilities(options: &ServerOptions) -> Value {
    let mut caps = json!({"tools": {"listChanged": false}, "logging": {}});
    if options.empty_prompts_and_resources {
        caps["prompts"] = json!({});
        caps["resources"] = json!({});
        caps["completions"] = json!({});
    }
    caps
}

/// The methods of prompts, resources and completion a server with `empty_prompts_and_resources` answers.
const EMPTY_LIST_METHODS: &[&str] = &[
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
];

/// How one request ended.
enum Outcome {
    Answer(Result<Value, ProtocolError>),
    /// A `tools/call` result, kept typed until it is written.
    Called(ToolOutput),
    /// Cancelled by the client: no response.
    Cancelled,
}

impl Server {
    /// A builder for a server named `name` at `version` (its `serverInfo`).
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation {
                name: name.into(),
                version: version.into(),
                title: None,
            },
            instructions: None,
            tools: ToolTable::default(),
            state: StateMap::new(),
            options: ServerOptions::default(),
        }
    }

    /// The server's `serverInfo`.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The tools served.
    pub fn tools(&self) -> &ToolTable {
        &self.inner.tools
    }

    /// The options.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// The instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// Handles one incoming message of `conn`. Returns the response to send, if any, as a
    /// future the transport may run concurrently with others.
    ///
    /// Everything that must happen in arrival order happens before this returns: a response
    /// reaches the request waiting for it, a notification takes effect, and a request is
    /// registered as in flight (so a `notifications/cancelled` read right after it finds it).
    pub fn handle(
        &self,
        message: Incoming,
        conn: &Connection,
    ) -> BoxFuture<'static, Option<Value>> {
        self.reply(message, conn)
            .map(|reply| reply.map(Reply::into_json))
            .boxed()
    }

    /// [`Server::handle`], with the response still typed so that a transport writing bytes can
    /// encode it directly.
    pub(crate) fn reply(
        &self,
        message: Incoming,
        conn: &Connection,
    ) -> BoxFuture<'static, Option<Reply>> {
        match message {
            Incoming::Response(r) => {
                conn.deliver(r);
                futures::future::ready(None).boxed()
            }
            Incoming::Notification(n) => {
                self.notification(n, conn);
                futures::future::ready(None).boxed()
            }
            Incoming::Request(req) => self.request(req, conn),
        }
    }

    /// [`Server::handle`] for an already parsed JSON value; a malformed envelope is answered
    /// with its error response.
    pub fn handle_value(
        &self,
        message: Value,
        conn: &Connection,
    ) -> BoxFuture<'static, Option<Value>> {
        match Incoming::from_value(message) {
            Ok(m) => self.handle(m, conn),
            Err(rejected) => {
                tracing::warn!(error = %rejected.error, "rejected an incoming message");
                futures::future::ready(Some(rejected.to_response())).boxed()
            }
        }
    }

    fn notification(&self, n: Notification, conn: &Connection) {
        match n.method.as_str() {
            "notifications/initialized" => conn.lock_session().initialized = true,
            "notifications/cancelled" => {
                let id = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_json);
                let reason = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match id {
                    Some(id) if conn.cancel(&id) => {
                        tracing::info!(?id, reason, "request cancelled by the client")
                    }
                    Some(id) => tracing::debug!(?id, "cancellation for no request in flight"),
                    None => tracing::debug!("cancellation without a requestId"),
                }
            }
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    fn request(&self, mut req: Request, conn: &Connection) -> BoxFuture<'static, Option<Reply>> {
        let cancel = CancelToken::default();
        {
            let mut in_flight = lock(&conn.inner.in_flight);
            if in_flight.contains_key(&req.id) {
                let error = ProtocolError::invalid_request(
                    "Invalid Request: a request with this id is already in flight",
                );
                return futures::future::ready(Some(Reply {
                    id: req.id,
                    body: ReplyBody::Error(error),
                }))
                .boxed();
            }
            in_flight.insert(req.id.clone(), cancel.clone());
        }
        let server = self.clone();
        let conn = conn.clone();
        async move {
            // Removes the in-flight entry however this future ends (finished or dropped).
            struct Done(Connection, RequestId);
            impl Drop for Done {
                fn drop(&mut self) {
                    lock(&self.0.inner.in_flight).remove(&self.1);
                }
            }
            let _done = Done(conn.clone(), req.id.clone());
            let outcome = tokio::select! {
                biased;
                _ = cancel.cancelled() => Outcome::Cancelled,
                outcome = server.route(&mut req, &conn, &cancel) => outcome,
            };
            let body = match outcome {
                Outcome::Cancelled => return None,
                _ if cancel.is_cancelled() => return None,
                Outcome::Answer(Ok(result)) => ReplyBody::Result(result),
                Outcome::Called(result) => ReplyBody::Call(result),
                Outcome::Answer(Err(error)) => {
                    tracing::debug!(method = %req.method, %error, "request failed");
                    ReplyBody::Error(error)
                }
            };
            Some(Reply { id: req.id, body })
        }
        .boxed()
    }

    async fn route(&self, req: &mut Request, conn: &Connection, cancel: &CancelToken) -> Outcome {
        const KNOWN: &[&str] = &[
            "initialize",
            "ping",
            "logging/setLevel",
            "server/discover",
            "tools/list",
            "tools/call",
        ];
        let method = req.method.as_str();
        let empty_lists =
            self.inner.options.empty_prompts_and_resources && EMPTY_LIST_METHODS.contains(&method);
        if !KNOWN.contains(&method) && !empty_lists {
            return Outcome::Answer(Err(ProtocolError::method_not_found(method)));
        }
        if method == "initialize" {
            return Outcome::Answer(self.initialize(req, conn));
        }
        let meta = params_meta(req.params.as_ref());
        if has_envelope(meta) || method == "server/discover" {
            return self.stateless(req, conn, cancel).await;
        }
        let handshake = conn.lock_session().handshake.clone();
        match (method, handshake) {
            ("ping", _) => Outcome::Answer(Ok(json!({}))),
            // Neither `initialize` first nor an envelope: say what is missing.
            (_, None) => Outcome::Answer(Err(Envelope::parse(meta)
                .err()
                .unwrap_or_else(|| ProtocolError::invalid_params("Invalid params")))),
            ("logging/setLevel", Some(_)) => Outcome::Answer(self.set_level(req, conn)),
            ("tools/list", Some(_)) => Outcome::Answer(self.list_tools(req)),
            (m, Some(_)) if empty_lists => Outcome::Answer(empty_list(m)),
            ("tools/call", Some(h)) => {
                let scope = Scope {
                    version: h.version,
                    stateless: None,
                    peer: h.peer,
                };
                self.call_tool(req, conn, cancel, scope).await
            }
            _ => Outcome::Answer(Err(ProtocolError::method_not_found(method))),
        }
    }

    async fn stateless(
        &self,
        req: &mut Request,
        conn: &Connection,
        cancel: &CancelToken,
    ) -> Outcome {
        let envelope = match Envelope::parse(params_meta(req.params.as_ref())) {
            Ok(e) => e,
            Err(e) => return Outcome::Answer(Err(e)),
        };
        let cache = CacheHint {
            ttl_ms: self.inner.options.list_ttl.as_millis() as u64,
            public: true,
        };
        let (outcome, cache) = match req.method.as_str() {
            "server/discover" => (
                Outcome::Answer(Ok(discover_result(
                    &self.inner.capabilities,
                    self.instructions(),
                ))),
                Some(cache),
            ),
            "tools/list" => (Outcome::Answer(self.list_tools(req)), Some(cache)),
            m if self.inner.options.empty_prompts_and_resources
                && EMPTY_LIST_METHODS.contains(&m) =>
            {
                (Outcome::Answer(empty_list(m)), Some(cache))
            }
            "tools/call" => {
                let scope = Scope {
                    version: envelope.version,
                    stateless: Some(envelope.log_level),
                    peer: Arc::new(Peer {
                        client_info: envelope.client_info,
                        capabilities: envelope.capabilities,
                    }),
                };
                (self.call_tool(req, conn, cancel, scope).await, None)
            }
            m if REMOVED_METHODS.contains(&m) => (
                Outcome::Answer(Err(ProtocolError::new(
                    crate::error::codes::METHOD_NOT_FOUND,
                    format!(
                        "Method not found: {m} (removed in {})",
                        crate::protocol::LATEST_STATELESS_VERSION
                    ),
                ))),
                None,
            ),
            m => (
                Outcome::Answer(Err(ProtocolError::method_not_found(m))),
                None,
            ),
        };
        let mut result = match outcome {
            Outcome::Answer(Ok(result)) => result,
            Outcome::Called(result) => result.into_call_result().into_json(),
            other => return other,
        };
        stamp_result(&mut result, &self.inner.info, cache);
        Outcome::Answer(Ok(result))
    }

    fn initialize(&self, req: &Request, conn: &Connection) -> Result<Value, ProtocolError> {
        let params = InitializeParams::parse(req.params.as_ref())?;
        let version = params.negotiated_version();
        let mut session = conn.lock_session();
        if session.handshake.is_some() {
            return Err(ProtocolError::invalid_request(
                "Invalid Request: this connection is already initialized",
            ));
        }
        tracing::info!(
            requested = %params.requested_version,
            version,
            client = ?params.client_info.as_ref().map(|c| &c.name),
            "initialize"
        );
        session.handshake = Some(Handshake {
            version,
            peer: Arc::new(Peer {
                client_info: params.client_info,
                capabilities: params.capabilities,
            }),
        });
        Ok(initialize_result(
            version,
            &self.inner.capabilities,
            &self.inner.info,
            self.instructions(),
        ))
    }

    fn set_level(&self, req: &Request, conn: &Connection) -> Result<Value, ProtocolError> {
        let level = req
            .params
            .as_ref()
            .and_then(|p| p.get("level"))
            .and_then(Value::as_str)
            .and_then(LogLevel::parse)
            .ok_or_else(|| {
                ProtocolError::invalid_params(
                    "Invalid params: `level` must be a log level such as \"info\"",
                )
            })?;
        conn.lock_session().log_level = Some(level);
        Ok(json!({}))
    }

    /// The whole response line to `req` when it is a handshake-era `tools/list` for the first
    /// page: its `result` is the same for every caller, so it is encoded once and only the id is
    /// written per call. `None` for anything else (a cursor, a `_meta`, no handshake yet, an id
    /// already in flight), which takes [`Server::handle`] as usual.
    pub(crate) fn encoded_list_response(
        &self,
        req: &Request,
        conn: &Connection,
    ) -> Option<Vec<u8>> {
        if req.method != "tools/list" {
            return None;
        }
        if let Some(params) = &req.params
            && (params.contains_key("_meta") || params.get("cursor").is_some_and(|c| !c.is_null()))
        {
            return None;
        }
        if conn.lock_session().handshake.is_none()
            || lock(&conn.inner.in_flight).contains_key(&req.id)
        {
            return None;
        }
        let result = self.inner.first_list_page.get_or_init(|| {
            let page = self
                .list_tools(req)
                .unwrap_or_else(|_| json!({"tools": []}));
            serde_json::to_vec(&page).unwrap_or_default().into()
        });
        let id = serde_json::to_vec(&req.id.to_json()).ok()?;
        let mut line = Vec::with_capacity(result.len() + id.len() + 40);
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        line.extend_from_slice(&id);
        line.extend_from_slice(br#","result":"#);
        line.extend_from_slice(result);
        line.extend_from_slice(b"}\n");
        Some(line)
    }

    fn list_tools(&self, req: &Request) -> Result<Value, ProtocolError> {
        let tools = &self.inner.tools;
        let start = match req.params.as_ref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(c) => c
                .as_str()
                .and_then(decode_cursor)
                .filter(|&n| n > 0 && n < tools.len())
                .ok_or_else(|| ProtocolError::invalid_params("Invalid params: invalid cursor"))?,
        };
        let end = match self.inner.options.page_size {
            Some(n) => (start + n).min(tools.len()),
            None => tools.len(),
        };
        let page: Vec<Value> = tools
            .iter()
            .skip(start)
            .take(end - start)
            .map(|t| t.to_json().clone())
            .collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(page));
        if end < tools.len() {
            result.insert("nextCursor".into(), encode_cursor(end).into());
        }
        Ok(Value::Object(result))
    }

    async fn call_tool(
        &self,
        req: &mut Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
    ) -> Outcome {
        // The arguments move into the call; the rest of the params is only read.
        let arguments = req.params.as_mut().and_then(|p| p.remove("arguments"));
        let params = req.params.as_ref();
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            // The message is the Python SDK's exact text; the reason travels in `data`.
            return Outcome::Answer(Err(ProtocolError::invalid_params(
                "Invalid request parameters",
            )
            .with_data(json!({"reason": "tools/call needs a string `name`"}))));
        };
        if arguments
            .as_ref()
            .is_some_and(|a| !a.is_object() && !a.is_null())
        {
            return Outcome::Answer(Err(ProtocolError::invalid_params(
                "Invalid request parameters",
            )
            .with_data(json!({"reason": "tools/call `arguments` must be an object"}))));
        }
        let meta = params_meta(params);
        let request_scope = Arc::new(RequestScope {
            conn: conn.clone(),
            request: req.id.clone(),
            version: scope.version,
            stateless: scope.stateless.is_some(),
            peer: scope.peer,
            request_log_level: scope.stateless.flatten(),
            progress_token: meta
                .and_then(|m| m.get("progressToken"))
                .filter(|t| t.is_string() || t.is_number())
                .cloned(),
            last_progress: Mutex::new(None),
            finished: AtomicBool::new(false),
            cancel: cancel.clone(),
            input_responses: params
                .and_then(|p| p.get("inputResponses"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            input_requests: Mutex::new(Map::new()),
            input_needed: CancelToken::default(),
            elicit_seq: AtomicU64::new(0),
            request_state_in: params
                .and_then(|p| p.get("requestState"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            request_state_out: Mutex::new(None),
        });
        let ctx = Context::attached(name, req.id.to_json(), request_scope.clone());

        // A slot first (waiting is not running: the timeout starts once the tool does).
        let _permit = match &self.inner.call_slots {
            Some(slots) => match slots.clone().acquire_owned().await {
                Ok(p) => Some(p),
                Err(_) => return Outcome::Answer(Err(ProtocolError::internal("server closed"))),
            },
            None => None,
        };
        let call = self.inner.tools.call_output(
            &self.inner.state,
            ctx,
            name,
            arguments,
            self.inner.options.unknown_tool,
        );
        let call: Pin<Box<dyn Future<Output = _> + Send>> = match self.inner.options.call_timeout {
            None => Box::pin(call),
            Some(limit) => Box::pin(async move {
                match tokio::time::timeout(limit, call).await {
                    Ok(r) => r,
                    Err(_) => {
                        tracing::warn!(tool = name, ?limit, "tool call timed out");
                        Ok(CallToolResult::error_text(format!(
                            "Error executing tool {name}: timed out after {}",
                            format_duration(limit)
                        ))
                        .into())
                    }
                }
            }),
        };
        let outcome = tokio::select! {
            r = call => match r {
                Ok(result) => Outcome::Called(result),
                Err(e) => Outcome::Answer(Err(e)),
            },
            _ = request_scope.input_needed.cancelled() => {
                let requests = lock(&request_scope.input_requests).clone();
                let mut result = json!({"resultType": "input_required", "inputRequests": requests});
                if let Some(state) = lock(&request_scope.request_state_out).take() {
                    result["requestState"] = state.into();
                }
                Outcome::Answer(Ok(result))
            }
        };
        request_scope
            .finished
            .store(true, std::sync::atomic::Ordering::Release);
        outcome
    }
}

/// The answer of a server that has no prompts and no resources.
fn empty_list(method: &str) -> Result<Value, ProtocolError> {
    match method {
        "prompts/list" => Ok(json!({"prompts": []})),
        "resources/list" => Ok(json!({"resources": []})),
        "resources/templates/list" => Ok(json!({"resourceTemplates": []})),
        "completion/complete" => {
            Ok(json!({"completion": {"values": [], "total": 0, "hasMore": false}}))
        }
        "prompts/get" => Err(ProtocolError::invalid_params(
            "Invalid params: this server has no prompts",
        )),
        _ => Err(ProtocolError::invalid_params(
            "Invalid params: this server has no resources",
        )),
    }
}

/// What `tools/call` needs to know about the caller, from `initialize` or from the envelope.
struct Scope {
    version: &'static str,
    /// `Some(log level)` for a stateless request.
    stateless: Option<Option<LogLevel>>,
    peer: Arc<Peer>,
}

/// Cursors are opaque to clients; this one is the offset of the page's first tool.
fn encode_cursor(offset: usize) -> String {
    format!("tools-{offset:x}")
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    usize::from_str_radix(cursor.strip_prefix("tools-")?, 16).ok()
}

/// `2s`, `1.5s`, `250ms`.
fn format_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("tools", &self.inner.tools.names())
            .field("options", &self.inner.options)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(decode_cursor(&encode_cursor(26)), Some(26));
        assert_eq!(decode_cursor("nope"), None);
        assert_eq!(decode_cursor("tools-zz"), None);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }
}
