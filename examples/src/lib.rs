//! Helpers shared by the example servers: logging to stderr, and Python-style `repr` for the
//! messages the reference servers send.

use tracing_subscriber::filter::{LevelFilter, Targets};

/// Formats a string the way Python's `repr()` does, so messages match the reference servers.
pub fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Formats a list of strings the way Python prints a list: `['a', 'b']`.
pub fn py_list(items: &[&str]) -> String {
    let inner: Vec<String> = items.iter().map(|s| py_repr(s)).collect();
    format!("[{}]", inner.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_matches_python() {
        for (input, expected) in [
            ("nope", "'nope'"),
            ("it's", "\"it's\""),
            ("a'b\"c", "'a\\'b\"c'"),
            ("line\nbreak", "'line\\nbreak'"),
            ("back\\slash", "'back\\\\slash'"),
            ("", "''"),
        ] {
            assert_eq!(py_repr(input), expected, "repr of {input:?}");
        }
        assert_eq!(py_list(&["groceries"]), "['groceries']");
        assert_eq!(py_list(&[]), "[]");
    }

    #[test]
    fn log_filter_reads_levels_and_targets() {
        use tracing::Level;
        assert!(parse_log_filter("").unwrap().is_none());
        assert!(parse_log_filter(" , ").unwrap().is_none());

        let only = parse_log_filter("mcp_runtime=debug").unwrap().unwrap();
        assert!(only.would_enable("mcp_runtime::server", &Level::DEBUG));
        assert!(!only.would_enable("mcp_runtime", &Level::TRACE));
        assert!(!only.would_enable("hyper", &Level::ERROR));

        // A trailing comma does not turn into a catch-all directive.
        let mixed = parse_log_filter("warn, mcp_runtime=debug,")
            .unwrap()
            .unwrap();
        assert!(mixed.would_enable("mcp_runtime", &Level::DEBUG));
        assert!(mixed.would_enable("hyper", &Level::WARN));
        assert!(!mixed.would_enable("hyper", &Level::INFO));

        let bare = parse_log_filter("DEBUG").unwrap().unwrap();
        assert!(bare.would_enable("tasks", &Level::DEBUG));
        assert!(!bare.would_enable("tasks", &Level::TRACE));

        assert!(parse_log_filter("mcp_runtime=loud").is_err());
        assert!(parse_log_filter("a=b=c").is_err());
    }
}

/// The runtime the examples run on.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Logs to stderr (stdout carries only MCP messages) at `RUST_LOG` or `info`.
pub fn init_logging() {
    init_logging_at(LevelFilter::INFO);
}

/// Logs to stderr (stdout carries only MCP messages) at `RUST_LOG` or `default`.
pub fn init_logging_at(default: LevelFilter) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .finish()
        .with(log_filter(default))
        .try_init();
}

/// The log filter `RUST_LOG` asks for, or `default` when it is unset or empty. The syntax is
/// tracing-subscriber's `Targets`: comma-separated `level` and `target=level` directives (no
/// span or regex filters, which would need its `env-filter` feature and the regex crates). An
/// unparsable value is reported in one line on stderr and `default` is used instead.
pub fn log_filter(default: LevelFilter) -> Targets {
    let parsed = match std::env::var("RUST_LOG") {
        Ok(value) => parse_log_filter(&value).map_err(|e| format!("{value:?}: {e}")),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(value)) => Err(format!("{value:?}: not UTF-8")),
    };
    match parsed {
        Ok(Some(filter)) => filter,
        Ok(None) => Targets::new().with_default(default),
        Err(e) => {
            eprintln!("ignoring RUST_LOG={e}; logging at {default}");
            Targets::new().with_default(default)
        }
    }
}

/// `value` as a `Targets` filter; `None` when it has no directives. Empty directives (a stray or
/// trailing comma) are skipped: `Targets` would read one as a target prefix matching everything.
fn parse_log_filter(
    value: &str,
) -> Result<Option<Targets>, tracing_subscriber::filter::ParseError> {
    let directives: Vec<&str> = value
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    if directives.is_empty() {
        return Ok(None);
    }
    directives.join(",").parse().map(Some)
}

/// Serves `server` over stdio until stdin closes.
///
/// On a current-thread runtime: a stdio server has one client, whose messages arrive one line
/// at a time, and one thread that waits on the pipe and runs the tools answers them without
/// waking a second thread per message (a multi-threaded runtime costs 20-30 % more CPU per call
/// here, see BENCHMARKS.md). Blocking work still has tokio's blocking pool (`spawn_blocking`).
pub fn serve_stdio(server: mcp_runtime::Server) -> Result<(), Box<dyn std::error::Error>> {
    init_logging();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(server.serve_stdio())?;
    Ok(())
}

/// Serves `server` the way the command line asks: `--http ADDR` serves MCP Streamable HTTP at
/// `http://ADDR/mcp` (a bare port means `127.0.0.1:PORT`), anything else stdio.
pub fn serve(server: mcp_runtime::Server) -> Result<(), Box<dyn std::error::Error>> {
    match http_addr(std::env::args().skip(1))? {
        #[cfg(feature = "http")]
        Some(addr) => serve_http(server, &addr),
        #[cfg(not(feature = "http"))]
        Some(_) => Err("this binary was built without the `http` feature of the examples".into()),
        None => serve_stdio(server),
    }
}

/// The address after `--http` (or in `--http=ADDR`), if the flag is given.
pub fn http_addr(args: impl IntoIterator<Item = String>) -> Result<Option<String>, String> {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let value = match arg.strip_prefix("--http") {
            Some("") => args
                .next()
                .ok_or("`--http` needs an address such as 127.0.0.1:8080")?,
            Some(rest) if rest.starts_with('=') => rest[1..].to_owned(),
            _ => continue,
        };
        return Ok(Some(if value.bytes().all(|b| b.is_ascii_digit()) {
            format!("127.0.0.1:{value}")
        } else {
            value
        }));
    }
    Ok(None)
}

/// Serves `server` over MCP Streamable HTTP at `http://ADDR/mcp` until the process ends.
#[cfg(feature = "http")]
pub fn serve_http(
    server: mcp_runtime::Server,
    addr: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    init_logging();
    runtime().block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        // The bound address on stderr: with port 0 this is how a launcher learns the port.
        eprintln!("listening on http://{}/mcp", listener.local_addr()?);
        server
            .serve_http_on(
                listener,
                mcp_runtime::transport::http::HttpOptions::default(),
            )
            .await
    })?;
    Ok(())
}

#[cfg(test)]
mod http_flag_tests {
    use super::http_addr;

    fn parse(args: &[&str]) -> Result<Option<String>, String> {
        http_addr(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn the_http_flag_takes_an_address_or_a_port() {
        assert_eq!(parse(&[]), Ok(None));
        assert_eq!(parse(&["demo"]), Ok(None));
        assert_eq!(
            parse(&["--http", "127.0.0.1:9000"]),
            Ok(Some("127.0.0.1:9000".into()))
        );
        assert_eq!(parse(&["--http=0.0.0.0:80"]), Ok(Some("0.0.0.0:80".into())));
        assert_eq!(
            parse(&["--http", "8080"]),
            Ok(Some("127.0.0.1:8080".into()))
        );
        assert!(parse(&["--http"]).is_err());
    }
}
