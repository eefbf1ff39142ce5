//! Peers that are not this project: the official Python SDK in the project's virtualenv (and
//! other tools a test may need). Without them a test says why and passes, unless the variable
//! `MCP_INTEROP_REQUIRED` is set to any non-empty value (CI sets it), under which it fails.

use std::path::PathBuf;
use std::process::{Command, ExitStatus};

use crate::repo;

/// The variable that turns a missing peer from a skip into a failure.
pub const REQUIRED: &str = "MCP_INTEROP_REQUIRED";

/// Whether a missing peer is a failure: `MCP_INTEROP_REQUIRED` is set and not empty.
pub fn required() -> bool {
    requires(std::env::var_os(REQUIRED).as_deref())
}

/// Whether this value of `MCP_INTEROP_REQUIRED` makes peers required: any non-empty one.
pub fn requires(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// Says that the test is skipped and why, or panics with `why` when peers are [`required`].
pub fn missing(why: &str) {
    if required() {
        panic!("{REQUIRED} is set but {why}");
    }
    eprintln!("skipped: {why}");
}

/// The virtualenv's Python when it has the `mcp` package; else [`missing`] and `None`.
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
    missing(&format!(
        "{} with the `mcp` package is missing (run `bash .ci/python-venv`)",
        python.display()
    ));
    None
}

/// Runs `python script args…` unbuffered, echoes its output, and checks its closing
/// `summary: N passed, 0 failed` line and exit status; returns its standard output.
pub fn run_script(python: &std::path::Path, script: &str, args: &[&str]) -> String {
    let out = Command::new(python)
        .arg(repo().join(script))
        .args(args)
        .env("PYTHONUNBUFFERED", "1")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    passed_summary(&stdout, out.status);
    stdout
}

/// The `summary: ` line of a script's output, asserting that the script succeeded and that
/// nothing failed.
pub fn passed_summary(stdout: &str, status: ExitStatus) -> &str {
    let summary = stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary: "))
        .unwrap_or_else(|| panic!("the script printed no summary (exit {status:?})"));
    // The failed checks in the message itself: a long log may be cut before the lines above.
    let failed: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL ")).collect();
    assert!(
        status.success(),
        "interop failures: {summary}\n{}",
        failed.join("\n")
    );
    assert!(
        summary.ends_with(", 0 failed"),
        "{summary}\n{}",
        failed.join("\n")
    );
    summary
}

/// [`run_script`] with the virtualenv's Python; `None` (after [`missing`]) without it.
pub fn run_with_sdk(script: &str, args: &[&str]) -> Option<String> {
    python_with_sdk().map(|python| run_script(&python, script, args))
}

/// How many checks the script's `summary: N passed, …` line counts as passed.
pub fn passed_count(stdout: &str) -> usize {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary: "))
        .and_then(|summary| summary.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a summary line with a passed count")
}

/// How many lines of `stdout` start with `prefix`.
pub fn lines_starting(stdout: &str, prefix: &str) -> usize {
    stdout.lines().filter(|l| l.starts_with(prefix)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_passed_count_is_read_from_the_summary() {
        assert_eq!(passed_count("ok a\nsummary: 12 passed, 0 failed\n"), 12);
    }

    #[test]
    fn a_failed_script_names_its_failed_checks_in_the_panic() {
        use std::os::unix::process::ExitStatusExt;
        let stdout = "ok auto a\nFAIL auto progress reports: [1.0]\nsummary: 1 passed, 1 failed\n";
        let panic = std::panic::catch_unwind(|| passed_summary(stdout, ExitStatus::from_raw(256)))
            .unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(
            message.contains("FAIL auto progress reports: [1.0]"),
            "{message}"
        );
        let ok = "ok auto a\nsummary: 1 passed, 0 failed\n";
        assert_eq!(
            passed_summary(ok, ExitStatus::from_raw(0)),
            "1 passed, 0 failed"
        );
    }

    #[test]
    fn any_non_empty_value_makes_peers_required() {
        for value in ["1", "0", "true", "yes", " "] {
            assert!(requires(Some(value.as_ref())), "{value:?}");
        }
        assert!(!requires(Some("".as_ref())));
        assert!(!requires(None));
    }
}
