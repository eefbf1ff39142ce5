//! The official Python client (PyPI `mcp==2.3.0`) over Streamable HTTP, in `mode="legacy"`
//! (initialize handshake, a session) and `mode="auto"` (stateless 2026-07-28): tools, arguments
//! errors, progress and log messages on the call's event stream; prompts listed, got with
//! arguments and completed, resources listed, read, completed and subscribed to (the notes
//! example).
//!
//! Needs `<repo>/.venv` with `mcp==2.3.0` (`bash .ci/python-venv`). Without it the test says why
//! and passes, unless `MCP_INTEROP_REQUIRED` is set to any non-empty value (`.ci/run` sets it).

use integration_tests::python::{lines_starting, run_with_sdk};

#[test]
fn official_python_client_over_http_in_legacy_and_auto_modes() {
    let Some(stdout) = run_with_sdk(
        "tests/py/http_interop.py",
        &[
            env!("CARGO_BIN_EXE_http_replica"),
            env!("CARGO_BIN_EXE_notes_test_server"),
        ],
    ) else {
        return;
    };
    // 9 checks of the replica, 5 of the notes example's prompt and completion, 6 of its resources
    // per mode, and the subscriptions: `resources/subscribe` and `resources/unsubscribe` in the
    // handshake era, a `subscriptions/listen` stream acknowledged in 2026-07-28.
    assert_eq!(lines_starting(&stdout, "ok legacy "), 22, "{stdout}");
    assert_eq!(lines_starting(&stdout, "ok auto "), 21, "{stdout}");
    assert!(stdout.contains("ok auto listen acknowledged\n"), "{stdout}");
}
