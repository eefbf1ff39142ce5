//! The examples' command line (`mcp_runtime::cli`): `--help` and `--version` answer and exit, an
//! unknown flag is refused with usage and serves nothing, and `tasks demo` still runs.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const SERVERS: [&str; 4] = [
    env!("CARGO_BIN_EXE_tasks"),
    env!("CARGO_BIN_EXE_shop"),
    env!("CARGO_BIN_EXE_notes"),
    env!("CARGO_BIN_EXE_atrium"),
];

/// Runs `bin` with `args`, an `initialize` request on stdin, and returns what it did.
fn run(bin: &str, args: &[&str]) -> Output {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut stdin = child.stdin.take().expect("stdin");
    // A process that already exited closes its end: the write may fail, which is fine.
    let _ = writeln!(stdin, "{initialize}");
    drop(stdin);
    child.wait_with_output().expect("the example exits")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn name(bin: &str) -> &str {
    std::path::Path::new(bin)
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a binary name")
}

#[test]
fn help_prints_usage_and_exits_0() {
    for bin in SERVERS {
        let out = run(bin, &["--help"]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{bin}: {}", text(&out.stderr));
        assert!(
            stdout.contains(&format!("Usage: {}", name(bin))),
            "{stdout}"
        );
        assert!(stdout.contains("--version"), "{stdout}");
        // (Without the `http` feature the flag may still be there: the tests' dependencies turn
        // the runtime's `http` on for the binaries they build.)
        if cfg!(feature = "http") {
            assert!(stdout.contains("--http <ADDR>"), "{stdout}");
        }
        assert!(!stdout.contains("jsonrpc"), "{bin} served: {stdout}");
    }
    let tasks = text(&run(SERVERS[0], &["--help"]).stdout);
    assert!(tasks.contains("demo"), "{tasks}");
}

#[test]
fn version_prints_the_server_name_and_version() {
    for (bin, expected) in SERVERS
        .into_iter()
        .zip(["tasks", "shop", "Notes", "atrium"])
    {
        let out = run(bin, &["--version"]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(text(&out.stdout), format!("{expected} 1.0.0\n"));
    }
}

#[test]
fn an_unknown_flag_exits_2_with_usage_and_serves_nothing() {
    for bin in SERVERS {
        for args in [&["--bogus"][..], &["--http"], &["extra"]] {
            let out = run(bin, args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{bin} {args:?}: {stderr}");
            assert!(stderr.starts_with("error: "), "{stderr}");
            // A value missing after `--http` is explained without the usage line.
            if args != ["--http"] {
                assert!(
                    stderr.contains(&format!("Usage: {}", name(bin))),
                    "{stderr}"
                );
            }
            assert!(out.stdout.is_empty(), "{bin} served: {}", text(&out.stdout));
        }
    }
}

#[test]
fn without_flags_it_serves_stdio() {
    for bin in SERVERS {
        let out = run(bin, &[]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{bin}: {}", text(&out.stderr));
        assert!(stdout.contains(r#""serverInfo""#), "{bin}: {stdout}");
    }
}

#[test]
fn tasks_demo_still_runs() {
    let out = run(SERVERS[0], &["demo"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.contains("tool   add_task(title, priority)"),
        "{stdout}"
    );
}
