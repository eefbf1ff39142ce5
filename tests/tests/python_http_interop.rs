//! The official Python client (PyPI `mcp==2.3.0`) over Streamable HTTP, in `mode="legacy"`
//! (initialize handshake, a session) and `mode="auto"` (stateless 2026-07-28): tools, arguments
//! errors, progress and log messages on the call's event stream.
//!
//! Needs `<repo>/.venv` with `mcp==2.3.0` (`bash .ci/python-venv`). Without it the test says why
//! and passes, unless `MCP_INTEROP_REQUIRED=1` (set by `.ci/run`).

use std::process::Command;

#[test]
fn official_python_client_over_http_in_legacy_and_auto_modes() {
    let Some(python) = integration_tests::python::python_with_sdk() else {
        return;
    };
    let repo = integration_tests::python::repo();
    let out = Command::new(&python)
        .arg(repo.join("tests/py/http_interop.py"))
        .arg(env!("CARGO_BIN_EXE_http_replica"))
        .env("PYTHONUNBUFFERED", "1")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    let summary = stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary: "))
        .unwrap_or_else(|| panic!("the script printed no summary (exit {:?})", out.status));
    assert!(out.status.success(), "interop failures: {summary}");
    assert!(summary.ends_with(", 0 failed"), "{summary}");
    let legacy = stdout
        .lines()
        .filter(|l| l.starts_with("ok legacy "))
        .count();
    let auto = stdout.lines().filter(|l| l.starts_with("ok auto ")).count();
    assert_eq!(legacy, 9, "{stdout}");
    assert_eq!(auto, 9, "{stdout}");
}
