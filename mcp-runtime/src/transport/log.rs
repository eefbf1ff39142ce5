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
    if install(filter)
        && let Some(e) = refused
    {
        tracing::warn!(
            "RUST_LOG={:?} is not a list of `level` or `target=level` directives ({e}); logging at `{DEFAULT_LOG_FILTER}`",
            from_env.unwrap_or_default()
        );
    }
}

/// Installs the stderr subscriber with the filter the operator asked for on the command line
/// (`--log-level`), over `RUST_LOG`. An application that set its own subscriber keeps it: the
/// flag cannot apply, and stderr says so.
#[cfg(feature = "cli")]
pub(crate) fn install_with_filter(filter: Targets, asked: &str) {
    if tracing::dispatcher::has_been_set() || !install(filter) {
        eprintln!(
            "warning: --log-level {asked} is not applied: the application installed its own log"
        );
    }
}

/// A `--log-level` value: a level (`error`, `warn`, `info`, `debug`, `trace`, `off`) or
/// `RUST_LOG`'s directives (`info,my_app=debug`).
/// A word alone must be a level: a target needs `target=level` (`RUST_LOG` would read a bare
/// `degub` as a target, and log nothing, without a word).
#[cfg(feature = "cli")]
pub(crate) fn parse_filter(value: &str) -> Result<Targets, String> {
    const EXPECTED: &str =
        "a level (error, warn, info, debug, trace, off) or directives such as info,my_app=debug";
    const LEVELS: [&str; 6] = ["error", "warn", "info", "debug", "trace", "off"];
    let directives: Vec<&str> = value.split(',').map(str::trim).collect();
    for d in &directives {
        let bare_level = LEVELS.iter().any(|l| d.eq_ignore_ascii_case(l));
        if d.is_empty() || (!d.contains('=') && !bare_level) {
            return Err(format!("`{d}` is not a level: expected {EXPECTED}"));
        }
    }
    Targets::from_str(value).map_err(|e| format!("{e}: expected {EXPECTED}"))
}

fn install(filter: Targets) -> bool {
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let subscriber = tracing_subscriber::registry().with(fmt).with(filter);
    tracing::subscriber::set_global_default(subscriber).is_ok()
}

fn default_filter() -> Targets {
    Targets::from_str(DEFAULT_LOG_FILTER).unwrap_or_default()
}
