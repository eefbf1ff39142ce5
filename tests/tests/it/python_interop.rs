//! The official Python client (PyPI `mcp==2.3.0`) against our stdio servers, in `mode="legacy"`
//! (initialize handshake) and in the default `mode="auto"` (server/discover, 2026-07-28).
//!
//! Needs the virtualenv `<repo>/.venv` with `mcp==2.3.0` (`bash .ci/python-venv` creates it).
//! Without it the test says why and passes, unless `MCP_INTEROP_REQUIRED` is set to any
//! non-empty value (`.ci/run` sets it), under which a missing virtualenv is a failure.

use integration_tests::python::{lines_starting, passed_count, run_with_sdk};

#[test]
fn official_python_client_lists_and_calls_tools_in_legacy_and_auto_modes() {
    let Some(stdout) = run_with_sdk(
        "tests/py/interop.py",
        &[
            env!("CARGO_BIN_EXE_tasks_test_server"),
            env!("CARGO_BIN_EXE_kit_server"),
            env!("CARGO_BIN_EXE_notes_test_server"),
        ],
    ) else {
        return;
    };
    let passed = passed_count(&stdout);
    // Both modes ran every scenario: every check is counted once per mode, but for the
    // subscription checks: two in the handshake era (`resources/subscribe`, `resources/unsubscribe`),
    // one in 2026-07-28 (a `subscriptions/listen` stream acknowledged).
    let legacy = lines_starting(&stdout, "ok legacy ");
    let auto = lines_starting(&stdout, "ok auto ");
    assert_eq!((passed, legacy), (legacy + auto, auto + 1), "{stdout}");
    // 15 checks of the tasks and kit servers, 5 of the notes example's prompt and completion, 6
    // of its resources.
    assert!(auto >= 27, "{stdout}");
    let prompts = [
        "prompts listed",
        "prompt argument",
        "prompt with arguments",
        "unknown note is -32602",
        "completion",
        "resources listed",
        "templates listed",
        "template read",
        "fixed resource read",
        "unknown note is resource-not-found",
        "template variable completion",
    ];
    for check in prompts {
        for mode in ["legacy", "auto"] {
            let line = format!("ok {mode} {check}\n");
            assert!(stdout.contains(&line), "{line}{stdout}");
        }
    }
    for (mode, check) in [
        ("legacy", "subscribed"),
        ("legacy", "unsubscribed"),
        ("auto", "listen acknowledged"),
    ] {
        let line = format!("ok {mode} {check}\n");
        assert!(stdout.contains(&line), "{line}{stdout}");
    }
}
