//! The official Python SDK as a test peer: where its virtualenv is, and what to do without it.

use std::path::PathBuf;
use std::process::Command;

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The virtualenv's Python when it has the `mcp` package. Without it: `None` after saying why, or
/// a panic under `MCP_INTEROP_REQUIRED=1` (set by `.ci/run`, so CI always really runs the peer).
pub fn python_with_sdk() -> Option<PathBuf> {
    let python = repo().join(".venv/bin/python");
    let has_sdk = python.exists()
        && Command::new(&python)
            .args(["-c", "import mcp"])
            .status()
            .is_ok_and(|s| s.success());
    if has_sdk {
        return Some(python);
    }
    let why = format!(
        "{} with the `mcp` package is missing (run `bash .ci/python-venv`)",
        python.display()
    );
    if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!("MCP_INTEROP_REQUIRED=1 but {why}");
    }
    eprintln!("skipped: {why}");
    None
}
