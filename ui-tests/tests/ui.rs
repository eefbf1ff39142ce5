//! Compile-time contracts of `#[tool]` and `tools![…]`: one broken contract per file under `ui/`,
//! with the exact compiler output in the `.stderr` beside it. Refresh with `TRYBUILD=overwrite`
//! and review the diff. The shapes that must keep compiling (`pass/`) are test crates of their own
//! (`pass_*` in Cargo.toml): with only failures to check, trybuild checks its copy of the
//! dependency tree rather than building it.
//!
//! Compiler output changes between releases, so the test runs only on the toolchain pinned in
//! `rust-toolchain.toml` and says so when it skips; under CI (`CI` set) another toolchain fails.

const PINNED: &str = "1.95.0";

#[test]
fn ui() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !version.starts_with(&format!("rustc {PINNED} ")) {
        let why = format!(
            "UI tests are pinned to rustc {PINNED}, this is `{}`",
            version.trim()
        );
        // CI must run them: a skip there would hide every compile-error regression.
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "{why}; CI is set, so this fails instead of skipping"
        );
        eprintln!("skipping: {why}");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/**/*.rs");
}
