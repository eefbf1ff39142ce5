//! Helpers shared by the example servers: logging to stderr, Python-style `repr` for the
//! messages the reference servers send, and atrium's booking stores ([`atrium`]). Their command
//! line (stdio or `--http ADDR`, `--redis URL` with the `redis` feature, `--help`, `--version`)
//! is the runtime's: `mcp_runtime::cli`.

pub mod atrium;

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
    // The builder's own maximum (INFO unless set) would cap what the filter below lets through.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(LevelFilter::TRACE)
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
