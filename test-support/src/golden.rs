//! Golden files: a text compared with a committed file; a mismatch shows a unified diff, and
//! `UPDATE_GOLDEN=1` (any value) rewrites the file instead, so that a change is reviewed like code.

use std::path::Path;

use similar::TextDiff;

/// The variable that rewrites the golden files instead of comparing with them.
pub const UPDATE: &str = "UPDATE_GOLDEN";

/// Whether this run rewrites the golden files.
pub fn updating() -> bool {
    std::env::var_os(UPDATE).is_some()
}

/// Compares `actual` with the file at `path` (or writes it there under `UPDATE_GOLDEN`).
/// `how_to_update` tells a reader which command rewrites the file.
pub fn check(path: &Path, actual: &str, how_to_update: &str) -> Result<(), String> {
    if updating() {
        write(path, actual);
        return Ok(());
    }
    compare(path, actual, how_to_update)
}

/// Writes `actual` to `path`, creating its folder.
pub fn write(path: &Path, actual: &str) {
    std::fs::create_dir_all(path.parent().expect("a golden file is in a folder")).unwrap();
    std::fs::write(path, actual).unwrap();
}

/// Compares `actual` with the file at `path`, whatever `UPDATE_GOLDEN` says.
pub fn compare(path: &Path, actual: &str, how_to_update: &str) -> Result<(), String> {
    let expected = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: {e}; {how_to_update} creates it", path.display()))?;
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "{} differs (- golden, + actual; review, then {how_to_update} rewrites it):\n{}",
        path.display(),
        diff(&expected, actual)
    ))
}

/// A unified diff of `expected` (the golden text) against `actual`, two lines of context.
pub fn diff(expected: &str, actual: &str) -> String {
    TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(2)
        .header("golden", "actual")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changes_with_context() {
        let golden = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let now = "1\n2\n3\n4\n5\nsix\n7\n8\n";
        assert_eq!(
            diff(golden, now),
            "--- golden\n+++ actual\n@@ -4,5 +4,5 @@\n 4\n 5\n-6\n+six\n 7\n 8\n"
        );
        assert_eq!(
            diff("a\n", "a\nb\n"),
            "--- golden\n+++ actual\n@@ -1 +1,2 @@\n a\n+b\n"
        );
        assert_eq!(
            diff("a\nb\nc", "a\nx\nc"),
            "--- golden\n+++ actual\n@@ -1,3 +1,3 @@\n a\n-b\n+x\n c\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn a_missing_or_different_file_is_an_error_naming_the_update_command() {
        let scratch = crate::scratch::Scratch::new("golden-self-test");
        let path = scratch.file("g.txt");
        let err = compare(&path, "x\n", "UPDATE_GOLDEN=1 cargo test").unwrap_err();
        assert!(
            err.contains("UPDATE_GOLDEN=1 cargo test creates it"),
            "{err}"
        );
        write(&path, "x\n");
        assert_eq!(compare(&path, "x\n", "U"), Ok(()));
        let err = compare(&path, "y\n", "U").unwrap_err();
        assert!(err.contains("-x\n+y\n"), "{err}");
    }
}
