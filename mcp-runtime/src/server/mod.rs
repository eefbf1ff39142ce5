//! The server: [`Server`], what it holds and how a message of any transport becomes a future
//! that answers it (in-flight bookkeeping, cancellation, a panic answered as an internal error,
//! the request's span and metrics); the routing of every method, of both eras, is `route.rs`.
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
//!
//! | file | what it holds |
//! |---|---|
//! | this file | [`Server`], the messages of a connection handled (`Server::handle`), each request's future |
//! | `route.rs` | the one table of methods of both eras, what this server answers of it, and each request routed to its handler |
//! | `builder.rs`, `build_error.rs` | [`ServerBuilder`]: everything checked once at build; [`BuildError`] |
//! | `options.rs` | [`ServerOptions`], the server's knobs, and their defaults |
//! | `budgets.rs`, `formats.rs` | given to every tool's validator: the budgets (warning about schemas that need them) and the server's own formats (refusing one nobody checks) |
//! | `lifecycle.rs` | `initialize`, `logging/setLevel`, the client's notifications |
//! | `page.rs` | one page of a list method, its cursor |
//! | `tools.rs` | `tools/list`, `tools/call`: slots, timeouts and cancellation |
//! | `tasks.rs` | which `tools/call` becomes a task; `tasks/*` of both eras |
//! | `prompts.rs`, `completion.rs` | `prompts/list`, `prompts/get`; `completion/complete` |
//! | `resources.rs` | `resources/*`; [`ResourceUpdates`], the change notifications of both eras |
//! | `listen.rs` | `subscriptions/listen`: the 2026-07-28 stream of change notifications |
//! | `scope.rs` | what a request that runs user code is attached to; its `input_required` ending |
//! | `batch.rs` | JSON-RPC batches, on sessions whose version makes accepting them a MUST |
//! | `reply.rs` | a response kept typed until a transport encodes it |
//! | `span.rs`, `metrics.rs` | the `tracing` span of each request, with OpenTelemetry's names for MCP; its metrics (feature `metrics`) |
//! | `drain.rs` | [`Shutdown`]: how a serve call drains on a signal without failing its calls |
//! | `scopes.rs` | `ScopePolicy`: the OAuth scopes each request needs, declared on the builder and beside each tool, prompt and resource |

use std::fmt;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tracing::Instrument;

use crate::context::connection::{CancelToken, Connection};
use crate::error::ProtocolError;
use crate::prompt::Prompts;
use crate::protocol::stateless::ServerStamp;
use crate::protocol::{Implementation, Incoming, Page, Request};
use crate::resource::ResourceTable;
use crate::tool::output::ToolOutput;
use crate::tool::panic::{Panicked, catch, catch_sync, next_error_id};
use crate::tool::state::StateMap;
use crate::tool::table::ToolTable;

mod batch;
mod budgets;
mod build_error;
mod builder;
mod completion;
pub(crate) mod drain;
mod formats;
mod lifecycle;
mod listen;
#[cfg(feature = "metrics")]
mod metrics;
mod options;
mod page;
mod prompts;
mod reply;
mod resources;
mod route;
mod scope;
pub(crate) mod scopes;
mod span;
mod tasks;
mod tools;

use scope::Scope;

#[cfg(feature = "http")]
pub(crate) use batch::BatchItem;
pub(crate) use batch::{BatchAnswer, batch_items};
pub use build_error::BuildError;
pub use builder::ServerBuilder;
pub use drain::Shutdown;
pub use options::ServerOptions;
#[doc(hidden)]
pub use reply::Reply;
pub(crate) use reply::{ReplyBody, WriteJson};
#[cfg(feature = "http")]
pub(crate) use resources::ChangeFleet;
pub use resources::ResourceUpdates;

/// A server: the tool table, the state tools borrow, the server's identity and its options.
/// Cheap to clone; every connection shares one.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

#[derive(Clone)]
struct ServerInner {
    tools: ToolTable,
    prompts: Prompts,
    resources: ResourceTable,
    resource_updates: ResourceUpdates,
    state: Arc<StateMap>,
    info: Implementation,
    /// `info` as its JSON, encoded once: what stateless results carry in their `_meta`.
    server_info: Arc<ServerStamp>,
    instructions: Option<String>,
    options: ServerOptions,
    call_slots: Option<Arc<Semaphore>>,
    capabilities: Value,
    /// `None` when no tool can run as a task.
    tasks: Option<Arc<crate::task::run::Tasks>>,
    on_roots_changed: Option<RootsChangedFn>,
}

/// What [`ServerBuilder::on_roots_changed`] keeps.
type RootsChangedFn = Arc<
    dyn Fn(crate::context::roots::RootsChanged) -> futures_util::future::BoxFuture<'static, ()>
        + Send
        + Sync,
>;

/// How one request ended.
enum Outcome {
    Answer(Result<Value, ProtocolError>),
    /// A `tools/call` result, kept typed until it is written; in the stateless era, with the
    /// server's identity to stamp it with.
    Called(ToolOutput, Option<Arc<ServerStamp>>),
    /// A page of a list method, written from its table's encoded entries.
    Listed(Page),
    /// Cancelled by the client: no response.
    Cancelled,
}

impl Server {
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
    /// future the transport may run concurrently with others. The response stays typed: write it
    /// (`serde::Serialize`, or its `to_string()`) to keep an id of any size exact, or take it as a
    /// `Value` with [`Reply::into_json`].
    ///
    /// Everything that must happen in arrival order happens before this returns: a response
    /// reaches the request waiting for it, a notification takes effect, and a request is
    /// registered as in flight (so a `notifications/cancelled` read right after it finds it).
    #[doc(hidden)]
    pub fn handle(
        &self,
        message: Incoming,
        conn: &Connection,
    ) -> BoxFuture<'static, Option<Reply>> {
        let id = match &message {
            Incoming::Request(req) => Some(req.id.clone()),
            _ => None,
        };
        let handled = catch_sync(|| match message {
            Incoming::Response(r) => {
                conn.deliver(r);
                futures_util::future::ready(None).boxed()
            }
            Incoming::Notification(n) => {
                self.notification(n, conn);
                futures_util::future::ready(None).boxed()
            }
            Incoming::Request(req) => self.request(req, conn),
        });
        handled.unwrap_or_else(|panic| {
            let error = internal_failure("message handling", &panic);
            let reply = id.map(|id| Reply::error(Some(id), error));
            futures_util::future::ready(reply).boxed()
        })
    }

    /// [`Server::handle`] for an already parsed JSON value; a malformed envelope is answered
    /// with its error response.
    ///
    /// A `Value` holds integers within 64 bits: an id beyond them was already rounded to a float
    /// when the text was parsed into the value (and a float id is refused). To answer such ids
    /// exactly, parse the text with [`Incoming::parse`] and call [`Server::handle`].
    #[doc(hidden)]
    pub fn handle_value(
        &self,
        message: Value,
        conn: &Connection,
    ) -> BoxFuture<'static, Option<Reply>> {
        match Incoming::from_value(message) {
            Ok(m) => self.handle(m, conn),
            Err(rejected) => {
                tracing::warn!(error = %rejected.error, "rejected an incoming message");
                futures_util::future::ready(Some(Reply::from(rejected))).boxed()
            }
        }
    }

    /// The future that answers one request, allocated once per request.
    ///
    /// Its size is the largest of every method's path through [`Server::route`], and it is kept
    /// at about 1,000 bytes (1,016 at this writing, rustc's `-Zprint-type-sizes`): the methods
    /// off the `tools/call` and list paths (tasks, resources, `subscriptions/listen`,
    /// `prompts/get`, `completion/complete`, a call run as a task) have their futures boxed
    /// where they are awaited, one allocation more for those requests. At 1,864 bytes, as it was
    /// with them inline, every request's future was past the largest block glibc's allocator
    /// keeps in its per-thread cache (1,032 bytes) and took its general path, which also
    /// consolidates freed blocks: about 650 instructions per call (callgrind).
    fn request(&self, mut req: Request, conn: &Connection) -> BoxFuture<'static, Option<Reply>> {
        let cancel = CancelToken::default();
        // Removes the in-flight entry however the future below ends (finished or dropped).
        let Ok(in_flight) = conn.enter(&req.id, &cancel) else {
            let error = ProtocolError::invalid_request(
                "Invalid Request: a request with this id is already in flight",
            );
            return futures_util::future::ready(Some(Reply::error(Some(req.id), error))).boxed();
        };
        let tracked = in_flight.is_some();
        let server = self.clone();
        let conn = conn.clone();
        let span = span::RequestSpan::new(&req, &conn);
        #[cfg(feature = "metrics")]
        let timed = metrics::begin(self, &req, &conn);
        let instrumented = span.as_ref().map(|s| s.span.clone());
        let handled = async move {
            // A panic anywhere in the handling (not only in a tool body) answers this request
            // with an internal error and leaves the connection and the server serving.
            let outcome = {
                let routed = std::pin::pin!(server.route(&mut req, &conn, &cancel));
                let answered = async {
                    catch(routed).await.unwrap_or_else(|panic| {
                        Outcome::Answer(Err(internal_failure("request handling", &panic)))
                    })
                };
                if tracked {
                    tokio::select! {
                        biased;
                        _ = cancel.cancelled() => Outcome::Cancelled,
                        outcome = answered => outcome,
                    }
                } else {
                    // Nothing can cancel it by id: it ends when its future is dropped.
                    answered.await
                }
            };
            let body = match outcome {
                Outcome::Cancelled => None,
                _ if cancel.is_cancelled() => None,
                Outcome::Answer(Ok(result)) => Some(ReplyBody::Result(result)),
                Outcome::Called(result, stamp) => Some(ReplyBody::Call(result, stamp)),
                Outcome::Listed(page) => Some(ReplyBody::Page(page)),
                Outcome::Answer(Err(error)) => {
                    tracing::debug!(method = %req.method, %error, "request failed");
                    Some(ReplyBody::Error(error))
                }
            };
            if let Some(span) = &span {
                span.finish(body.as_ref());
            }
            // Moved in whole (not rebound at the top, which gave the future a second slot for
            // it): dropped here, or with the future if it is dropped first.
            drop(in_flight);
            body.map(|body| Reply {
                id: Some(req.id),
                body,
            })
        };
        // Timed from outside (`metrics.rs`): the request's future keeps its size either way.
        #[cfg_attr(not(feature = "metrics"), allow(clippy::let_and_return))]
        let handled = match instrumented {
            Some(span) => handled.instrument(span).boxed(),
            None => handled.boxed(),
        };
        #[cfg(feature = "metrics")]
        let handled = metrics::timed(timed, handled);
        handled
    }
}

impl From<Result<Page, ProtocolError>> for Outcome {
    fn from(page: Result<Page, ProtocolError>) -> Outcome {
        match page {
            Ok(page) => Outcome::Listed(page),
            Err(e) => Outcome::Answer(Err(e)),
        }
    }
}

/// The answer to a request whose handling panicked: generic text and an error id, with the
/// panic logged in full under the same id.
fn internal_failure(stage: &str, panic: &Panicked) -> ProtocolError {
    let id = next_error_id();
    tracing::error!(error_id = %id, "{stage} panicked at {}: {}", panic.location, panic.message);
    ProtocolError::internal("Internal error").with_data(json!({ "errorId": id }))
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
