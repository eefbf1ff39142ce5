//! The knobs of a server ([`ServerOptions`]) and their defaults; set on its
//! [`ServerBuilder`](super::ServerBuilder).

use std::time::Duration;

use crate::task::TaskOptions;
use crate::tool::call::UnknownToolPolicy;

/// The default wait for the client's answer to a request the server sent (elicitation): a person
/// may be filling in a form, so 10 minutes.
pub const DEFAULT_CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// The default bound on the responses a stream connection holds unwritten: 1,024.
pub const DEFAULT_MAX_QUEUED_RESPONSES: usize = 1024;

/// The default number of ready answers after which a stream connection writes them before it
/// reads the next request of a burst: 16 (then twice as many each time while the burst lasts).
pub const DEFAULT_WRITE_AFTER_ANSWERS: usize = 16;

/// The default limit on one incoming message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// The default bound on the `subscriptions/listen` streams one connection has open: 16.
pub const DEFAULT_MAX_LISTENS_PER_CONNECTION: usize = 16;

/// The default bound on the `subscriptions/listen` streams a server has open in all: 1,024 (the
/// bound over HTTP, where each request is a connection of its own).
pub const DEFAULT_MAX_LISTENS: usize = 1024;

/// The default bound on the URIs one `subscriptions/listen` lists (each update is matched against
/// every URI of every open listen): 256.
pub const DEFAULT_MAX_LISTEN_URIS: usize = 256;

/// The default limit on a resource URI a request names (`resources/read`, `resources/subscribe`
/// and `unsubscribe`, a `subscriptions/listen` filter, a completion's `ref/resource`): 64 KiB, far
/// beyond any URI a resource is read by and small enough that matching it against every template
/// stays cheap.
pub const DEFAULT_MAX_URI_BYTES: usize = 65_536;

/// The default time calls in flight and running tasks get to finish once a serve call drains:
/// 30 s (Kubernetes' default `terminationGracePeriodSeconds` is 30 s too: give the pod more).
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The knobs of a server, set on its [`ServerBuilder`](super::ServerBuilder).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Tools per `tools/list` page; `None`: one page.
    pub page_size: Option<usize>,
    /// What an unknown tool name gets.
    pub unknown_tool: UnknownToolPolicy,
    /// The longest a tool may run.
    pub call_timeout: Option<Duration>,
    /// The longest the server waits for the client's answer to a request it sent (elicitation,
    /// sampling, roots, [`crate::Context::client_request`]); the call then goes on with a
    /// timed-out error.
    pub client_request_timeout: Duration,
    /// How many tool calls may run at once (across connections); further calls wait.
    pub max_concurrent_calls: Option<usize>,
    /// The longest incoming message a transport accepts, in bytes.
    pub max_message_bytes: usize,
    /// How many responses a stream connection (stdio, in-process) holds unwritten before it
    /// stops reading requests: a client that does not read its answers gets backpressure, not
    /// an ever-growing queue.
    pub max_queued_responses: usize,
    /// How many answers a stream connection (stdio, in-process) lets become ready before it
    /// writes them and only then reads on: requests that arrive together (a client with several
    /// in flight) get their first answers while the later ones are still being read and run.
    /// Each later write of the same burst waits for twice as many answers as the one before.
    pub write_after_answers: usize,
    /// `ttlMs` of stateless `tools/list` and `server/discover` results.
    pub list_ttl: Duration,
    /// Declare the prompts, resources and completions capabilities and answer their list
    /// methods with empty lists.
    pub empty_prompts_and_resources: bool,
    /// Whether `serve_stdio` and `serve_http` install a stderr log (filtered by `RUST_LOG`,
    /// default `info`) when no global `tracing` subscriber is set.
    pub install_log_subscriber: bool,
    /// The limits and timings of tasks (tools marked `#[tool(task)]`).
    pub tasks: TaskOptions,
    /// Declare `resources.listChanged: true`: the application calls
    /// [`ResourceUpdates::list_changed`](super::ResourceUpdates::list_changed) when the set of resources changes.
    pub resources_list_changed: bool,
    /// How many `subscriptions/listen` streams one connection may have open.
    pub max_listens_per_connection: usize,
    /// How many `subscriptions/listen` streams the server keeps open in all.
    pub max_listens: usize,
    /// How many URIs one `subscriptions/listen` may list in `resourceSubscriptions`.
    pub max_listen_uris: usize,
    /// The longest resource URI a request may name, in bytes; a longer one is answered -32602
    /// before it is matched against any template.
    pub max_uri_bytes: usize,
    /// The backtracking steps one match of a non-linear `pattern` (look-around, backreferences)
    /// may take before the value is refused; every other pattern runs in linear time.
    pub pattern_backtrack_limit: usize,
    /// The values decoding a call's arguments may decode beyond 8 per value, when a tool's input
    /// holds a recursive untagged enum (serde tries its variants in order).
    pub untagged_decode_limit: u64,
    /// The scopes declared on the builder: what each tool, prompt and resource
    /// needs, the server-wide scope and the hierarchy; checked by the HTTP endpoint's resource
    /// server.
    pub(crate) scopes: super::scopes::ScopePolicy,
    /// How long calls in flight and running tasks get to finish once a serve call drains
    /// (default 30 s); past it they are
    /// cut short with a retryable error.
    pub drain_timeout: Duration,
    /// The instruments made on the meter given to [`ServerBuilder::metrics`](super::ServerBuilder::metrics).
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Option<std::sync::Arc<crate::metrics::Recorder>>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            page_size: None,
            unknown_tool: UnknownToolPolicy::default(),
            call_timeout: None,
            client_request_timeout: DEFAULT_CLIENT_REQUEST_TIMEOUT,
            max_concurrent_calls: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_queued_responses: DEFAULT_MAX_QUEUED_RESPONSES,
            write_after_answers: DEFAULT_WRITE_AFTER_ANSWERS,
            list_ttl: Duration::ZERO,
            empty_prompts_and_resources: false,
            install_log_subscriber: true,
            tasks: TaskOptions::default(),
            resources_list_changed: false,
            max_listens_per_connection: DEFAULT_MAX_LISTENS_PER_CONNECTION,
            max_listens: DEFAULT_MAX_LISTENS,
            max_listen_uris: DEFAULT_MAX_LISTEN_URIS,
            max_uri_bytes: DEFAULT_MAX_URI_BYTES,
            pattern_backtrack_limit: crate::validate::DEFAULT_PATTERN_BACKTRACK_LIMIT,
            untagged_decode_limit: crate::validate::DEFAULT_UNTAGGED_DECODE_LIMIT,
            scopes: super::scopes::ScopePolicy::default(),
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            #[cfg(feature = "metrics")]
            metrics: None,
        }
    }
}
