//! The official Python client (PyPI `mcp==2.3.0`) drives every example binary through its seed's
//! scenario over stdio, in `mode="legacy"` and `mode="auto"`, and runs the same steps against the
//! Python reference server, whose results ours must equal (`tests/py/scenario_examples.py`).
//!
//! Needs the virtualenv `<repo>/.venv` with `mcp==2.3.0` (`bash .ci/python-venv` creates it) and
//! the reference servers: `$MCP_REFERENCE_SERVERS`, else `shared/reference-servers` next to the
//! repository. Without them the test says why and passes,
//! unless `MCP_INTEROP_REQUIRED` is set to any non-empty value (`.ci/run` sets it), under
//! which that is a failure.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use test_support::python::{missing, python_with_sdk};
use test_support::repo;

const EXAMPLES: [(&str, &str); 4] = [
    ("tasks", env!("CARGO_BIN_EXE_tasks")),
    ("shop", env!("CARGO_BIN_EXE_shop")),
    ("notes", env!("CARGO_BIN_EXE_notes")),
    ("atrium", env!("CARGO_BIN_EXE_atrium")),
];

fn reference_servers() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("MCP_REFERENCE_SERVERS").map(PathBuf::from),
        Some(repo().join("../shared/reference-servers")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|dir| dir.join("tasks_server.py").is_file())
}

#[test]
fn official_python_client_runs_every_seed_scenario_against_ours_and_the_reference() {
    let Some(python) = python_with_sdk() else {
        return;
    };
    let Some(references) = reference_servers() else {
        return missing(
            "the Python reference servers are not found (set MCP_REFERENCE_SERVERS to their directory)",
        );
    };

    let mut child = Command::new(&python)
        .arg(repo().join("tests/py/scenario_examples.py"))
        .arg("--references")
        .arg(&references)
        .args(EXAMPLES.iter().map(|(name, bin)| format!("{name}={bin}")))
        .env("PYTHONUNBUFFERED", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the Python client");
    let mut err = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    // Each step's line as it comes.
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.expect("the script's output");
        println!("{line}");
        lines.push(line);
    }
    let status = child.wait().expect("wait for the script");
    let stderr = stderr.join().unwrap();
    if !stderr.is_empty() {
        eprintln!("{stderr}");
    }

    let failures: Vec<&String> = lines.iter().filter(|l| l.starts_with("FAIL ")).collect();
    assert!(
        status.success() && failures.is_empty(),
        "the scenarios failed (exit {status}):\n{}",
        failures
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let summary = lines
        .iter()
        .find_map(|l| l.strip_prefix("summary: "))
        .unwrap_or_else(|| panic!("the script printed no summary (exit {status})"));
    assert!(summary.ends_with(", 0 failed"), "{summary}");

    // Every example ran in both modes, with steps compared with the reference in each.
    println!("\nsteps passed (compared with the reference) per example and mode:");
    for (example, _) in EXAMPLES {
        for mode in ["legacy", "auto"] {
            let prefix = format!("figures: {example} {mode}: ");
            let figures = lines
                .iter()
                .find_map(|l| l.strip_prefix(&prefix))
                .unwrap_or_else(|| panic!("no figures for {example} in {mode} mode"));
            let numbers: Vec<usize> = figures
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|n| n.parse().ok())
                .collect();
            let [passed, failed, compared] = numbers[..] else {
                panic!("unreadable figures: {figures}");
            };
            let ok_lines = lines
                .iter()
                .filter(|l| l.starts_with(&format!("ok {example} {mode} ")))
                .count();
            assert_eq!((passed, failed), (ok_lines, 0), "{figures}");
            assert!(passed >= 10 && compared >= 5, "{example} {mode}: {figures}");
            println!("  {example:<7} {mode:<7} {passed:>3} passed ({compared} compared)");
        }
    }
}
