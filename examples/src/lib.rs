//! Helpers shared by the example servers: logging to stderr, and Python-style `repr` for the
//! messages the reference servers send.

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
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// Serves `server` over stdio until stdin closes.
pub fn serve_stdio(server: mcp_runtime::Server) -> Result<(), Box<dyn std::error::Error>> {
    init_logging();
    runtime().block_on(server.serve_stdio())?;
    Ok(())
}
