//! The operator's log when the application installed none: `serve_stdio` and `serve_http`
//! install a `tracing` subscriber that writes to stderr (never stdout, which carries the stdio
//! transport's JSON-RPC), so a hidden failure and its error id are seen without any setup.
//!
//! `RUST_LOG` is read as tracing-subscriber's `Targets` (`warn`, `info,my_app=debug`): levels per
//! target, without span or regex filters (those would need the regex crates). Opt out with
//! [`crate::ServerBuilder::install_log_subscriber`]; a subscriber the application set globally
//! is always left alone.

use std::io::IsTerminal;
use std::str::FromStr;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

use crate::server::Server;

/// The filter when `RUST_LOG` is unset or empty: `info` (hidden failures are `error`, a visible
/// tool error, an unknown tool and the start of the server are `info`).
pub const DEFAULT_LOG_FILTER: &str = "info";

/// Installs the stderr subscriber, unless the server opted out or one is set globally.
pub(crate) fn install_default_subscriber(server: &Server) {
    if !server.options().install_log_subscriber || tracing::dispatcher::has_been_set() {
        return;
    }
    let from_env = std::env::var("RUST_LOG")
        .ok()
        .filter(|v| !v.trim().is_empty());
    let (filter, refused) = match from_env.as_deref().map(Targets::from_str) {
        None => (default_filter(), None),
        Some(Ok(filter)) => (filter, None),
        Some(Err(e)) => (default_filter(), Some(e)),
    };
    let stderr = std::io::stderr;
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let subscriber = tracing_subscriber::registry().with(fmt).with(filter);
    if tracing::subscriber::set_global_default(subscriber).is_ok()
        && let Some(e) = refused
    {
        tracing::warn!(
            "RUST_LOG={:?} is not a list of `level` or `target=level` directives ({e}); logging at `{DEFAULT_LOG_FILTER}`",
            from_env.unwrap_or_default()
        );
    }
}

fn default_filter() -> Targets {
    Targets::from_str(DEFAULT_LOG_FILTER).unwrap_or_default()
}
