//! [`HttpOptions`]: the endpoint's path, which origins and hosts it serves, its body limit, the
//! event streams' keep-alive, how long an idle session lives, and the limits that keep slow or
//! greedy clients from exhausting the server (timeouts, connections, sessions, calls in flight);
//! and their defaults.

use std::sync::Arc;
use std::time::Duration;

use super::store::{EventStore, EventsHandle, SessionStore, StoreHandle};

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
    pub(super) header_read_timeout: Duration,
    pub(super) max_header_bytes: usize,
    pub(super) body_read_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) max_sessions: usize,
    pub(super) max_in_flight_per_session: usize,
    pub(super) session_store: StoreHandle,
    pub(super) event_store: EventsHandle,
    pub(super) stream_lease: Duration,
    pub(super) sse_retry: Duration,
    pub(super) close_streams_after: Option<Duration>,
    /// The OAuth resource server in front of the endpoint (`auth/`).
    #[cfg(feature = "auth")]
    pub(crate) auth: Option<crate::auth::ResourceServer>,
    pub(super) probes: Probes,
    /// The path of the metrics in Prometheus' text format, and what it reads.
    #[cfg(feature = "metrics")]
    pub(super) metrics: Option<(String, crate::metrics::Prometheus)>,
}

impl Default for HttpOptions {
    /// `/mcp`; localhost origins and loopback host names only; the server's message limit as the
    /// body limit; an SSE keep-alive comment every 15 seconds; sessions end after an idle hour;
    /// 10 s and 64 KiB for a request's headers and 30 s for its body; 512 connections at once (below
    /// the common limit of 1,024 open files); 10,000 sessions; 64 requests in flight per session.
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
            header_read_timeout: Duration::from_secs(10),
            max_header_bytes: 64 * 1024,
            body_read_timeout: Duration::from_secs(30),
            max_connections: 512,
            max_sessions: 10_000,
            max_in_flight_per_session: 64,
            session_store: StoreHandle::default(),
            event_store: EventsHandle::default(),
            stream_lease: Duration::from_secs(3),
            sse_retry: Duration::from_secs(1),
            close_streams_after: None,
            #[cfg(feature = "auth")]
            auth: None,
            probes: Probes::default(),
            #[cfg(feature = "metrics")]
            metrics: None,
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

    setters! {
        /// The largest request body, in bytes (default: the server's `max_message_bytes`).
        pub fn max_body_bytes(n: usize) => max_body_bytes = Some(n);

        /// How often an idle event stream gets a keep-alive comment (default 15 s).
        pub fn keep_alive(every: Duration) => keep_alive = every;

        /// How long a handshake-era session may go without a request (and without an open `GET`
        /// stream or a call in flight) before it ends, as if the client had sent `DELETE` (default one
        /// hour). A background task sweeps expired sessions (every half timeout, at most every
        /// minute) while the router lives; its id then gets `404 Not Found`.
        pub fn session_idle_timeout(idle: Duration) => session_idle = idle;

        /// How long a client may take to send a request's headers, from the connection's start or
        /// the end of its previous response, before the connection is closed (default 10 s; the
        /// defence against slowloris, and the limit on an idle keep-alive connection). A sweeper
        /// closes such connections at most one sweep late (it runs every eighth of the timeout,
        /// at least every second and at most every 5 ms: by 11 s at the default); a connection
        /// with a request in hand (a tool running, an event stream open) is never closed by it.
        /// Applies to [`Server::serve_http_on`]; an application serving [`router`] with its own
        /// server sets this on that server (hyper's `header_read_timeout`).
        ///
        /// [`Server::serve_http_on`]: crate::server::Server::serve_http_on
        /// [`router`]: super::router
        pub fn header_read_timeout(timeout: Duration) => header_read_timeout = timeout;

        /// How many bytes a request's head (request line and headers) may take (default 64 KiB, at
        /// least 8 KiB): more is answered `431 Request Header Fields Too Large` and the connection
        /// closes. Applies to [`Server::serve_http_on`]; an application serving [`router`] with its
        /// own server sets this there (hyper's `max_buf_size`).
        ///
        /// [`Server::serve_http_on`]: crate::server::Server::serve_http_on
        /// [`router`]: super::router
        pub fn max_header_bytes(n: usize) => max_header_bytes = n;

        /// How long a request's whole body may take to arrive once its headers are in (default
        /// 30 s): past it the answer is `408 Request Timeout` and the connection closes.
        pub fn body_read_timeout(timeout: Duration) => body_read_timeout = timeout;

        /// The most connections [`Server::serve_http_on`] serves at once (default 512, safely below
        /// the common limit of 1,024 open files). A connection over the cap is answered
        /// `503 Service Unavailable` with `Retry-After: 1` and closed; the listener keeps accepting.
        /// An application serving [`router`] with its own server bounds it there, for example with
        /// tower's `ConcurrencyLimitLayer` and `LoadShedLayer`.
        ///
        /// [`Server::serve_http_on`]: crate::server::Server::serve_http_on
        /// [`router`]: super::router
        pub fn max_connections(n: usize) => max_connections = n.max(1);

        /// The most handshake-era sessions open at once (default 10,000). A new session over the cap
        /// ends the one idle the longest (its id then gets `404 Not Found`); when every session is
        /// busy (a stream open or a call in flight), `initialize` gets `503 Service Unavailable`.
        pub fn max_sessions(n: usize) => max_sessions = n.max(1);

        /// The most requests one handshake-era session may have in flight (default 64). One more is
        /// answered at once with a JSON-RPC error (code `-32000`, see [`SERVER_BUSY`]);
        /// notifications and responses are never refused, so `notifications/cancelled` gets through.
        ///
        /// [`SERVER_BUSY`]: super::SERVER_BUSY
        pub fn max_in_flight_per_session(n: usize) => max_in_flight_per_session = n.max(1);

        /// How long a request's stream is taken to be still written without a sign of life from
        /// the replica running the request (default 3 s; it renews its lease every third of
        /// that). A client that resumed the stream elsewhere gets, once the lease lapses with no
        /// answer, a JSON-RPC error for its request (the replica died) instead of waiting forever.
        pub fn stream_lease(lease: Duration) => stream_lease = lease.max(Duration::from_millis(30));

        /// How long a client of 2025-11-25 should wait before it reconnects a broken stream:
        /// the `retry` field of each stream's first event (default 1 s).
        pub fn sse_retry(after: Duration) => sse_retry = after;

        /// Closes a request's event stream this long after it opened (default: never), for a
        /// session of 2025-11-25, whose client got the stream's first event id and so resumes it
        /// with `Last-Event-ID`: the request runs on, and the resumed stream (on any replica)
        /// carries the rest. For proxies that cut long responses, and to spread a long call's
        /// stream across a fleet ("SSE polling", 2025-11-25 basic/transports).
        pub fn close_streams_after(after: Duration) => close_streams_after = Some(after);
    }

    /// Where the events of sessions' streams are kept for `Last-Event-ID` resumption (default:
    /// a [`MemoryEventStore`] of this router's own). Replicas that share one, such as a
    /// `RedisEventStore` on one Redis, resume each other's streams.
    ///
    /// [`MemoryEventStore`]: super::store::MemoryEventStore
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = EventsHandle(store);
        self
    }

    /// Where handshake-era sessions are kept (default: a [`MemorySessionStore`] of this
    /// router's own). Replicas that share a store, such as a [`RedisSessionStore`] on one Redis,
    /// serve each other's sessions, so a balancer need not route a session to one replica.
    ///
    /// [`MemorySessionStore`]: super::store::MemorySessionStore
    /// [`RedisSessionStore`]: super::store
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = StoreHandle(store);
        self
    }

    /// Protects the endpoint as an OAuth 2.1 resource server (feature `auth`): every request
    /// needs a valid bearer token holding the scopes it needs; Protected Resource Metadata is
    /// served at `/.well-known/oauth-protected-resource<path>` and at the root. CORS preflight
    /// (`OPTIONS`) and the metadata are not behind it. See [`crate::auth`].
    #[cfg(feature = "auth")]
    pub fn authorization(mut self, auth: crate::auth::ResourceServer) -> Self {
        self.auth = Some(auth);
        self
    }

    /// The liveness probe's path on [`Server::serve_http_on`]'s listener (default `/healthz`):
    /// `200` with `{"status":"alive","draining":…}` while the process serves. Empty: none.
    ///
    /// [`Server::serve_http_on`]: crate::Server::serve_http_on
    pub fn health_path(mut self, path: impl Into<String>) -> Self {
        self.probes.health = path.into();
        self
    }

    /// The readiness probe's path on [`Server::serve_http_on`]'s listener (default `/readyz`):
    /// `200` with `{"status":"ready"}` when the session, event and task stores answer within
    /// [`HttpOptions::ready_timeout`] and the server is not draining, else `503` with
    /// `{"status":"unready","reason":…}`. Empty: none.
    ///
    /// [`Server::serve_http_on`]: crate::Server::serve_http_on
    pub fn ready_path(mut self, path: impl Into<String>) -> Self {
        self.probes.ready = path.into();
        self
    }

    /// How long the readiness probe waits for the stores to answer (default 1 s).
    pub fn ready_timeout(mut self, timeout: Duration) -> Self {
        self.probes.ready_timeout = timeout;
        self
    }

    /// Serves `prometheus`'s metrics in Prometheus' text format at `path` (`/metrics`, say) on
    /// [`Server::serve_http_on`]'s listener (feature `metrics`): like the probes, before the
    /// endpoint's checks (`Origin`, `Host`, MCP headers, auth). Give the server
    /// [`Prometheus::meter`](crate::metrics::Prometheus::meter) on its builder.
    ///
    /// [`Server::serve_http_on`]: crate::Server::serve_http_on
    #[cfg(feature = "metrics")]
    pub fn metrics(
        mut self,
        path: impl Into<String>,
        prometheus: crate::metrics::Prometheus,
    ) -> Self {
        self.metrics = Some((path.into(), prometheus));
        self
    }

    /// The endpoint's path.
    pub fn endpoint(&self) -> &str {
        &self.path
    }
}

/// The probes' paths.
#[derive(Debug, Clone)]
pub(super) struct Probes {
    pub(super) health: String,
    pub(super) ready: String,
    pub(super) ready_timeout: Duration,
}

impl Default for Probes {
    fn default() -> Self {
        Probes {
            health: "/healthz".into(),
            ready: "/readyz".into(),
            ready_timeout: Duration::from_secs(1),
        }
    }
}
