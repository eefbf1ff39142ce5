//! The official Python client (PyPI `mcp==2.3.0`) against our stdio servers, in `mode="legacy"`
//! (initialize handshake) and in the default `mode="auto"` (server/discover, 2026-07-28).
//!
//! Needs the virtualenv `<repo>/.venv` with `mcp==2.3.0` (`bash .ci/python-venv` creates it).
//! Without it the test says why and passes, unless `MCP_INTEROP_REQUIRED=1` (set by `.ci/run`),
//! under which a missing virtualenv is a failure.

use std::process::Command;

#[test]
fn official_python_client_lists_and_calls_tools_in_legacy_and_auto_modes() {
    let Some(python) = integration_tests::python::python_with_sdk() else {
        return;
    };
    let repo = integration_tests::python::repo();
    let script = repo.join("tests/py/interop.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_tasks_test_server"))
        .arg(env!("CARGO_BIN_EXE_kit_server"))
        .env("PYTHONUNBUFFERED", "1")
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    let summary = stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary: "))
        .unwrap_or_else(|| panic!("the script printed no summary (exit {:?})", out.status));
    assert!(out.status.success(), "interop failures: {summary}");
    assert!(summary.ends_with(", 0 failed"), "{summary}");
    let passed: usize = summary
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a passed count");
    // Both modes ran both scenarios: every check below is counted once per mode.
    let per_mode = stdout
        .lines()
        .filter(|l| l.starts_with("ok legacy "))
        .count();
    assert_eq!(passed, 2 * per_mode, "{stdout}");
    assert!(per_mode >= 15, "{stdout}");
}
