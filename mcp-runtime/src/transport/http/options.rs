//! [`HttpOptions`]: the endpoint's path, which origins and hosts it serves, its body limit, the
//! event streams' keep-alive and how long an idle session lives; and their defaults.

use std::time::Duration;

/// How the HTTP endpoint is served: its path and its security checks.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub(super) path: String,
    pub(super) origins: Vec<String>,
    pub(super) any_origin: bool,
    pub(super) localhost_origins: bool,
    pub(super) hosts: Vec<String>,
    pub(super) any_host: bool,
    pub(super) max_body_bytes: Option<usize>,
    pub(super) keep_alive: Duration,
    pub(super) session_idle: Duration,
}

impl Default for HttpOptions {
    /// `/mcp`; localhost origins and loopback host names only; the server's message limit as the
    /// body limit; an SSE keep-alive comment every 15 seconds; sessions end after an idle hour.
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            origins: Vec::new(),
            any_origin: false,
            localhost_origins: true,
            hosts: LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect(),
            any_host: false,
            max_body_bytes: None,
            keep_alive: Duration::from_secs(15),
            session_idle: Duration::from_secs(3600),
        }
    }
}

/// The loopback names: the hosts allowed by default, and the hosts of localhost origins.
pub(super) const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

impl HttpOptions {
    /// The endpoint's path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Allows requests whose `Origin` is exactly `origin` (`https://app.example.com`, with a port
    /// when it is not the scheme's default). Requests without an `Origin` are always allowed:
    /// browsers send one, other clients need not.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.origins
            .push(origin.into().trim_end_matches('/').to_ascii_lowercase());
        self
    }

    /// Allows every `Origin`. Only for a server that no browser on a user's machine can reach,
    /// or that checks credentials itself.
    pub fn allow_any_origin(mut self) -> Self {
        self.any_origin = true;
        self
    }

    /// Refuses localhost origins too, unless listed with [`HttpOptions::allow_origin`].
    pub fn deny_localhost_origins(mut self) -> Self {
        self.localhost_origins = false;
        self
    }

    /// Accepts requests whose `Host` names `host` (a name or address, without the port). The
    /// loopback names are accepted by default; a server reached under another name lists it.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Accepts any `Host` (turns DNS-rebinding protection off): for a server behind a proxy
    /// that checks the host itself.
    pub fn allow_any_host(mut self) -> Self {
        self.any_host = true;
        self
    }

    /// The largest request body, in bytes (default: the server's `max_message_bytes`).
    pub fn max_body_bytes(mut self, n: usize) -> Self {
        self.max_body_bytes = Some(n);
        self
    }

    /// How often an idle event stream gets a keep-alive comment (default 15 s).
    pub fn keep_alive(mut self, every: Duration) -> Self {
        self.keep_alive = every;
        self
    }

    /// How long a handshake-era session may go without a request (and without an open `GET`
    /// stream or a call in flight) before it ends, as if the client had sent `DELETE` (default one
    /// hour). Expired sessions are swept when a new one opens.
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// The endpoint's path.
    pub fn endpoint(&self) -> &str {
        &self.path
    }
}
