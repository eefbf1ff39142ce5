//! Compile-time contracts of `#[tool]` and `tools![…]`: one broken contract per file under `ui/`,
//! with the exact compiler output in the `.stderr` beside it, and shapes that must keep compiling
//! under `pass/`. Refresh with `TRYBUILD=overwrite` and review the diff.
//!
//! Compiler output changes between releases, so the test runs only on the toolchain pinned in
//! `rust-toolchain.toml` and says so when it skips.

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
        eprintln!(
            "skipping UI tests: they are pinned to rustc {PINNED}, this is `{}`",
            version.trim()
        );
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/**/*.rs");
    t.pass("tests/pass/*.rs");
}
