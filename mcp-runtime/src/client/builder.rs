//! Options of a client before it connects: the era it speaks, its identity, and the callbacks
//! for progress, log messages and elicitation (sampling and roots: `input.rs`).

use super::*;

/// How the client talks to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    /// `initialize` offering this version, then plain requests.
    Handshake(String),
    /// No handshake: `server/discover`, then every request carries the 2026-07-28 `_meta`
    /// envelope.
    Stateless,
}

/// A `notifications/progress` the server sent (the type the server sends it as; this client's
/// progress token is the request id).
pub use crate::context::outgoing::Progress;

/// A `notifications/message` the server sent.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// The level.
    pub level: LogLevel,
    /// The logger (this runtime names the tool).
    pub logger: Option<String>,
    /// The message.
    pub data: Value,
}

/// An `elicitation/create` request from the server.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    /// The question.
    pub message: String,
    /// The form's schema.
    pub requested_schema: Value,
}

/// The user's answer to an [`ElicitationRequest`]; serialized as the `elicitation/create`
/// result (`{"action": "accept", "content": …}`, `{"action": "decline"}`, `{"action": "cancel"}`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "action", content = "content", rename_all = "lowercase")]
pub enum ElicitationAnswer {
    /// The submitted values (an object matching the schema).
    Accept(Value),
    /// The user declined.
    Decline,
    /// The user dismissed the form.
    Cancel,
}

pub(super) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;
pub(super) type LogFn = Arc<dyn Fn(LogMessage) + Send + Sync>;
pub(super) type ElicitFn =
    Arc<dyn Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationAnswer> + Send + Sync>;

/// Why a client request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered with an error: {0}")]
    Protocol(ProtocolError),
    /// The connection closed before the answer arrived.
    #[error("the connection closed")]
    Closed,
    /// The server's answer is not what the method returns.
    #[error("invalid result: {0}")]
    InvalidResult(String),
}

impl ClientError {
    /// The JSON-RPC error, when the server sent one.
    pub fn protocol(&self) -> Option<&ProtocolError> {
        match self {
            ClientError::Protocol(e) => Some(e),
            _ => None,
        }
    }
}

/// Options of a [`Client`], set before connecting (capabilities are declared when connecting).
pub struct ClientBuilder {
    era: Era,
    client_info: Implementation,
    log_level: Option<LogLevel>,
    on_progress: Option<ProgressFn>,
    on_log: Option<LogFn>,
    elicitation: Option<ElicitFn>,
    pub(super) sampling: Option<super::input::SamplingFn>,
    pub(super) roots: Option<Vec<crate::context::roots::Root>>,
    max_message_bytes: usize,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            era: Era::Handshake(LATEST_HANDSHAKE_VERSION.to_owned()),
            client_info: Implementation {
                name: "mcp-runtime-client".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                title: None,
                description: None,
            },
            log_level: None,
            on_progress: None,
            on_log: None,
            elicitation: None,
            sampling: None,
            roots: None,
            max_message_bytes: 64 * 1024 * 1024,
        }
    }
}

impl ClientBuilder {
    /// Handshake era, offering `version` in `initialize`.
    pub fn handshake(mut self, version: impl Into<String>) -> Self {
        self.era = Era::Handshake(version.into());
        self
    }

    /// Stateless era (2026-07-28): `server/discover`, then a `_meta` envelope on every request.
    pub fn stateless(mut self) -> Self {
        self.era = Era::Stateless;
        self
    }

    /// The `clientInfo` sent.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_info = Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
        };
        self
    }

    /// The log level: sent with `logging/setLevel` after the handshake, or stamped on every
    /// stateless request (without it a stateless server sends no log messages).
    pub fn log_level(mut self, level: LogLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Called for every progress notification; requests then carry a `progressToken`.
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }

    /// Called for every log message.
    pub fn on_log(mut self, f: impl Fn(LogMessage) + Send + Sync + 'static) -> Self {
        self.on_log = Some(Arc::new(f));
        self
    }

    /// Answers elicitation requests; setting it declares the elicitation capability.
    pub fn elicitation_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitationAnswer> + Send + 'static,
    {
        self.elicitation = Some(Arc::new(move |r| Box::pin(f(r))));
        self
    }

    fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.elicitation.is_some() {
            let form = match &self.era {
                Era::Handshake(v) if v.as_str() < "2025-11-25" => json!({}),
                _ => json!({"form": {}}),
            };
            caps.insert("elicitation".into(), form);
        }
        if self.sampling.is_some() {
            // Tool use in sampling came with 2025-11-25.
            let sampling = match &self.era {
                Era::Handshake(v) if v.as_str() < "2025-11-25" => json!({}),
                _ => json!({"tools": {}}),
            };
            caps.insert("sampling".into(), sampling);
        }
        if self.roots.is_some() {
            caps.insert("roots".into(), json!({"listChanged": true}));
        }
        Value::Object(caps)
    }

    /// Connects over a reader and a writer of newline-delimited JSON-RPC (a child process's
    /// stdout and stdin, for example) and runs the era's opening exchange.
    pub async fn over_io<R, W>(self, reader: R, writer: W) -> Result<Client, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, rx) = mpsc::unbounded_channel();
        let capabilities = self.capabilities();
        let inner = Arc::new(ClientInner {
            out,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            era: self.era.clone(),
            client_info: self.client_info.clone(),
            capabilities,
            log_level: self.log_level,
            on_progress: self.on_progress,
            on_log: self.on_log,
            elicitation: self.elicitation,
            sampling: self.sampling,
            roots: Mutex::new(self.roots),
            session: OnceLock::new(),
            closed: AtomicBool::new(false),
            unmatched: AtomicUsize::new(0),
            listens: Mutex::default(),
        });
        let writer_task = tokio::spawn(write_loop(writer, rx));
        let reader_task = tokio::spawn(read_loop(
            inner.clone(),
            LineReader::new(reader, self.max_message_bytes),
        ));
        let client = Client {
            inner,
            tasks: vec![reader_task, writer_task],
        };
        client.open().await?;
        Ok(client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `elicitation/create` result of each answer, as MCP writes it.
    #[test]
    fn an_answer_is_written_as_the_elicitation_result() {
        for (answer, text) in [
            (
                ElicitationAnswer::Accept(json!({"name": "a"})),
                r#"{"action":"accept","content":{"name":"a"}}"#,
            ),
            (ElicitationAnswer::Decline, r#"{"action":"decline"}"#),
            (ElicitationAnswer::Cancel, r#"{"action":"cancel"}"#),
        ] {
            assert_eq!(json!(answer).to_string(), text);
        }
    }
}
