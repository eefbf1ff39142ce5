//! The command line of a server binary (feature `cli`): stdio by default, `--http ADDR` for MCP
//! Streamable HTTP (with the `http` feature), `--redis URL` to keep its sessions, streams and tasks in Redis
//! (with the `redis` feature), `--metrics` (with the `metrics` feature: Prometheus' text at
//! `/metrics`), `--log-level LEVEL`, `--drain-timeout SECS` (SIGTERM and Ctrl-C
//! drain the server, which then exits 0), `--help` and `--version`, parsed by clap. An unknown
//! flag is an error: usage on stderr, exit code 2, nothing served.
//!
//! A whole `main` in one line:
//!
//! ```no_run
//! # use mcp_runtime::prelude::*;
//! # /// Add two numbers.
//! # #[tool]
//! # fn add(a: i64, b: i64) -> i64 { a + b }
//! # fn server() -> Server {
//! #     Server::builder("calculator", "1.0.0").tools(tools![add]).build().unwrap()
//! # }
//! fn main() -> std::process::ExitCode {
//!     mcp_runtime::cli::run(server())
//! }
//! ```
//!
//! `--version` prints the name and version given to [`Server::builder`]. A binary with flags of
//! its own flattens [`ServeArgs`] into its parser and serves with [`ServeArgs::run`]. The clap it
//! derives with can be this crate's (`use mcp_runtime::cli::clap;`), so the versions agree:
//!
//! ```no_run
//! # use mcp_runtime::prelude::*;
//! use mcp_runtime::cli::clap;
//!
//! # fn server() -> Server { Server::builder("calculator", "1.0.0").build().unwrap() }
//! #[derive(clap::Parser)]
//! struct Cli {
//!     /// Print each call on stderr.
//!     #[arg(long)]
//!     verbose: bool,
//!     #[command(flatten)]
//!     serve: mcp_runtime::cli::ServeArgs,
//! }
//!
//! fn main() -> std::io::Result<()> {
//!     let server = server();
//!     let cli: Cli = mcp_runtime::cli::parse(&server);
//!     cli.serve.run(server)
//! }
//! ```

use std::io;
use std::process::ExitCode;

pub use clap;
use clap::{Args, Command, FromArgMatches};

use crate::server::Server;

/// How to serve: the flags a server binary takes. Flatten it into a clap parser
/// (`#[command(flatten)]`), or let [`run`] parse it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
// The doc comment above is for rustdoc; `--help` shows the server's title (see `parse`).
#[command(about = None, long_about = None)]
pub struct ServeArgs {
    /// Serve MCP Streamable HTTP at http://ADDR/mcp instead of stdio; a bare port means
    /// 127.0.0.1:PORT, port 0 any free port (the address is printed on stderr).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "ADDR", value_parser = http_addr)]
    pub http: Option<String>,
    /// Keep sessions, their streams' events and tasks in Redis (redis://HOST:PORT/DB), shared with every replica given
    /// the same URL, so that a load balancer need not be sticky; a Redis Cluster is
    /// redis+cluster://HOST:PORT,HOST:PORT (its seed nodes). Needs --http.
    #[cfg(feature = "redis")]
    #[arg(long, value_name = "URL", requires = "http")]
    pub redis: Option<String>,
    /// Close a request's event stream MS milliseconds after it opened (clients of 2025-11-25
    /// resume it with Last-Event-ID, on any replica); for proxies that cut long responses.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "MS", requires = "http")]
    pub close_streams_after: Option<u64>,
    /// Serve the server's metrics (OpenTelemetry's MCP conventions:
    /// mcp_server_operation_duration_seconds and the others) in Prometheus' text format at
    /// http://ADDR/metrics, outside the endpoint's checks like the probes. Needs --http.
    #[cfg(all(feature = "metrics", feature = "http"))]
    #[arg(long, requires = "http")]
    pub metrics: bool,
    /// The HTTP endpoint as an OAuth resource server (feature `auth`): `--auth-issuer URL` and
    /// the other `--auth-…` flags.
    #[cfg(feature = "auth")]
    #[command(flatten)]
    pub auth: crate::auth::AuthArgs,
    /// On SIGTERM or Ctrl-C the server drains: new requests are refused (503 with Retry-After
    /// over HTTP, readiness turns unready), and calls in flight get SECS seconds to finish before
    /// they are answered with a retryable error; then it exits 0. Default: the server's drain
    /// timeout (30 s unless the binary set another).
    #[arg(long, value_name = "SECS")]
    pub drain_timeout: Option<u64>,
    /// What the server logs on stderr: error, warn, info, debug, trace or off, or directives per
    /// target as RUST_LOG takes them (info,my_app=debug). Overrides RUST_LOG; default info.
    #[arg(long, value_name = "LEVEL", value_parser = log_level)]
    pub log_level: Option<String>,
}

impl ServeArgs {
    /// Serves `server` the way the flags say: over stdio until stdin closes, or over HTTP; on
    /// SIGTERM or Ctrl-C either drains ([`Shutdown`](crate::server::Shutdown)) and returns `Ok(())`. Runs on
    /// the caller's tokio runtime.
    pub async fn serve(&self, server: &Server) -> io::Result<()> {
        // Installed before anything is served: a signal from then on drains, never kills.
        let shutdown = shutdown_signal()?;
        let server = match self.drain_timeout {
            Some(secs) => server.with_drain_timeout(std::time::Duration::from_secs(secs)),
            None => server.clone(),
        };
        if let Some(level) = &self.log_level {
            // Checked when the flag was parsed; a value built by hand is checked here.
            let filter = crate::transport::log::parse_filter(level)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
            crate::transport::log::install_with_filter(filter, level);
        }
        #[cfg(feature = "http")]
        if let Some(addr) = &self.http {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            // With port 0 this line is how a launcher learns the port.
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            #[allow(unused_mut)]
            let mut options = crate::transport::http::HttpOptions::default();
            if let Some(ms) = self.close_streams_after {
                let after = std::time::Duration::from_millis(ms);
                options = options.close_streams_after(after);
            }
            #[cfg(feature = "auth")]
            if let Some(auth) = self.auth.resource_server()? {
                eprintln!(
                    "access tokens checked for the issuer {}",
                    auth.authorization_servers[0]
                );
                options = options.authorization(auth);
            }
            #[allow(unused_mut)]
            let mut server = server;
            #[cfg(feature = "redis")]
            if let Some(url) = &self.redis {
                use crate::task::RedisTaskStore;
                use crate::transport::http::store::{RedisEventStore, RedisSessionStore};
                let store = RedisSessionStore::connect(url)
                    .await
                    .map_err(io::Error::other)?;
                // The tasks share the sessions' connection and key prefix.
                let tasks = RedisTaskStore::with_connection(store.connection(), "mcp");
                server = server.with_task_store(std::sync::Arc::new(tasks));
                eprintln!("sessions, streams and tasks in Redis at {url}");
                let events = RedisEventStore::beside(&store);
                options = options
                    .session_store(std::sync::Arc::new(store))
                    .event_store(std::sync::Arc::new(events));
            }
            #[cfg(feature = "metrics")]
            if self.metrics {
                let prometheus = crate::metrics::Prometheus::new().map_err(io::Error::other)?;
                server = server.with_metrics(prometheus.meter());
                options = options.metrics("/metrics", prometheus);
                eprintln!("metrics at http://{}/metrics", listener.local_addr()?);
            }
            return server.serve_http_until(listener, options, shutdown).await;
        }
        server.serve_stdio_until(shutdown).await
    }

    /// Builds a tokio runtime and [serves](Self::serve) on it. Stdio gets a current-thread
    /// runtime: one client whose messages arrive a line at a time needs no second thread (blocking
    /// work still has tokio's blocking pool). HTTP gets a multi-thread runtime, for its many
    /// connections.
    pub fn run(&self, server: Server) -> io::Result<()> {
        let mut builder = if self.is_http() {
            tokio::runtime::Builder::new_multi_thread()
        } else {
            tokio::runtime::Builder::new_current_thread()
        };
        builder.enable_all().build()?.block_on(self.serve(&server))
    }

    fn is_http(&self) -> bool {
        #[cfg(feature = "http")]
        return self.http.is_some();
        #[cfg(not(feature = "http"))]
        return false;
    }
}

/// A future that resolves at the first SIGTERM or Ctrl-C, its handlers installed now.
fn shutdown_signal() -> io::Result<impl std::future::Future<Output = ()> + Send> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            tracing::info!(signal = name, "shutting down: draining");
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("Ctrl-C: draining");
        })
    }
}

/// The `--log-level` value, refused at parse time when it is not a level or a list of directives.
fn log_level(value: &str) -> Result<String, String> {
    crate::transport::log::parse_filter(value).map(|_| value.to_owned())
}

/// The `--http` value: an address, or a bare port on the loopback interface.
#[cfg(feature = "http")]
fn http_addr(value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Err("needs an address such as 127.0.0.1:8080, or a port".into());
    }
    Ok(if value.bytes().all(|b| b.is_ascii_digit()) {
        format!("127.0.0.1:{value}")
    } else {
        value.to_owned()
    })
}

/// The command of `server`'s binary with the arguments of `A`: the server's name and version
/// (for `--version`); its title as the line `-h` starts with, and its title and description
/// ([`ServerBuilder::description`](crate::ServerBuilder::description)) as the text `--help` starts
/// with (else the doc comment of `A`, if any).
pub fn command<A: Args>(server: &Server) -> Command {
    let info = server.info();
    let command = A::augment_args(Command::new(info.name.clone())).version(info.version.clone());
    match (&info.title, &info.description) {
        (Some(title), Some(description)) => command
            .about(title.clone())
            .long_about(format!("{title}\n\n{description}")),
        (Some(text), None) | (None, Some(text)) => command.about(text.clone()),
        (None, None) => command,
    }
}

/// Parses the process's arguments into `A` (a clap `Args` type, [`ServeArgs`] flattened in or
/// `ServeArgs` itself) under [`command`]. `--help` and `--version` print and exit with 0; a bad
/// argument prints the error and usage on stderr and exits with 2.
pub fn parse<A: Args + FromArgMatches>(server: &Server) -> A {
    let matches = command::<A>(server).get_matches();
    A::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Parses the command line ([`parse`]) and serves `server` as it asks ([`ServeArgs::run`]). A
/// failure to serve (an address in use, a broken stdin) is printed on stderr and exits with 1.
pub fn run(server: Server) -> ExitCode {
    let args: ServeArgs = parse(&server);
    match args.run(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn parse(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("server").chain(args.iter().copied())).map(|c| c.serve)
    }

    #[test]
    fn http_takes_an_address_or_a_port() {
        assert_eq!(parse(&[]).unwrap().http, None);
        let http = |args: &[&str]| parse(args).unwrap().http.unwrap();
        assert_eq!(http(&["--http", "127.0.0.1:9000"]), "127.0.0.1:9000");
        assert_eq!(http(&["--http=0.0.0.0:80"]), "0.0.0.0:80");
        assert_eq!(http(&["--http", "8080"]), "127.0.0.1:8080");
        assert_eq!(
            parse(&["--http"]).unwrap_err().kind(),
            clap::error::ErrorKind::InvalidValue
        );
        assert_eq!(
            parse(&["--bogus"]).unwrap_err().kind(),
            clap::error::ErrorKind::UnknownArgument
        );
    }

    #[test]
    fn log_level_takes_a_level_or_directives() {
        assert_eq!(parse(&[]).unwrap().log_level, None);
        for good in [
            "debug",
            "off",
            "info,mcp_runtime=trace",
            "warn,my_app::db=debug",
        ] {
            assert_eq!(
                parse(&["--log-level", good]).unwrap().log_level.as_deref(),
                Some(good)
            );
        }
        for wrong in ["", "loud", "info,=x=y"] {
            let e = parse(&["--log-level", wrong]).unwrap_err();
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{wrong:?}"
            );
        }
    }

    #[test]
    fn help_starts_with_the_title_and_description() {
        let server = Server::builder("desk", "1.2.0")
            .title("Ops desk")
            .description("Incidents, notes and on-call rotas for the ops team.")
            .build()
            .unwrap();
        let help = command::<ServeArgs>(&server).render_long_help().to_string();
        assert!(
            help.starts_with("Ops desk\n\nIncidents, notes and on-call rotas for the ops team.\n"),
            "{help}"
        );
        assert!(help.contains("--log-level <LEVEL>"), "{help}");
        let short = command::<ServeArgs>(&server).render_help().to_string();
        assert!(short.starts_with("Ops desk\n"), "{short}");
        let plain = Server::builder("desk", "1")
            .description("Only a description.")
            .build()
            .unwrap();
        let help = command::<ServeArgs>(&plain).render_long_help().to_string();
        assert!(help.starts_with("Only a description.\n"), "{help}");
    }

    #[cfg(feature = "redis")]
    #[test]
    fn redis_takes_a_url_and_needs_http() {
        let url = "redis://127.0.0.1:6379/0";
        let args = parse(&["--http", "8080", "--redis", url]).unwrap();
        assert_eq!(args.redis.as_deref(), Some(url));
        assert_eq!(parse(&[]).unwrap().redis, None);
        assert_eq!(
            parse(&["--redis", url]).unwrap_err().kind(),
            clap::error::ErrorKind::MissingRequiredArgument
        );
    }

    #[cfg(feature = "metrics")]
    #[test]
    fn metrics_is_a_switch_that_needs_http() {
        assert!(!parse(&[]).unwrap().metrics);
        assert!(parse(&["--http", "8080", "--metrics"]).unwrap().metrics);
        let err = parse(&["--metrics"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn drain_timeout_takes_seconds() {
        assert_eq!(parse(&[]).unwrap().drain_timeout, None);
        let args = parse(&["--drain-timeout", "5"]).unwrap();
        assert_eq!(args.drain_timeout, Some(5));
        assert!(parse(&["--drain-timeout", "soon"]).is_err());
    }

    #[cfg(feature = "http")]
    #[test]
    fn close_streams_after_takes_milliseconds_and_needs_http() {
        let args = parse(&["--http", "0", "--close-streams-after", "250"]).unwrap();
        assert_eq!(args.close_streams_after, Some(250));
        assert_eq!(parse(&[]).unwrap().close_streams_after, None);
        for wrong in [
            &["--close-streams-after", "250"][..],
            &["--http", "0", "--close-streams-after", "soon"],
        ] {
            assert!(parse(wrong).is_err(), "{wrong:?}");
        }
    }
}
