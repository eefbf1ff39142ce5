//! `docs/compile-errors.md` lists every UI test with the first line of its message: this test fails
//! when a UI test is missing from the page, when the page links a file that does not exist, or when
//! a message on the page is not the first error line of the test's `.stderr`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const PAGE: &str = "../docs/compile-errors.md";
const UI: &str = "tests/ui";
const LINK_PREFIX: &str = "../ui-tests/tests/ui/";

/// `category/name.rs` for every UI test.
fn ui_tests() -> Vec<String> {
    let mut found = Vec::new();
    for category in std::fs::read_dir(UI).expect("tests/ui") {
        let category = category.unwrap().path();
        if !category.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&category).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "rs") {
                found.push(relative(&file));
            }
        }
    }
    found.sort();
    found
}

fn relative(path: &Path) -> String {
    let mut parts: Vec<_> = path
        .iter()
        .rev()
        .take(2)
        .map(|p| p.to_string_lossy())
        .collect();
    parts.reverse();
    parts.join("/")
}

/// The rows of the page's tables: UI test -> message cell, unescaped.
fn rows(page: &str) -> BTreeMap<String, String> {
    let mut rows = BTreeMap::new();
    for line in page.lines() {
        let Some(start) = line.find(&format!("]({LINK_PREFIX}")) else {
            continue;
        };
        let link = &line[start + 2 + LINK_PREFIX.len()..];
        let test = link[..link.find(')').expect("closing parenthesis")].to_owned();
        // Cells are split on `|` not preceded by a backslash.
        let mut cells = Vec::new();
        let mut cell = String::new();
        let mut chars = line.trim().trim_matches('|').chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&'|') => cell.push(chars.next().unwrap()),
                '|' => cells.push(std::mem::take(&mut cell)),
                c => cell.push(c),
            }
        }
        cells.push(cell);
        assert_eq!(cells.len(), 3, "a row has three cells: {line}");
        let previous = rows.insert(test.clone(), cells[1].trim().to_owned());
        assert!(previous.is_none(), "{test} is listed twice");
    }
    rows
}

/// The first error line of a `.stderr`, without `error: ` or `error[E0000]: `.
fn first_message(stderr: &Path) -> String {
    let text =
        std::fs::read_to_string(stderr).unwrap_or_else(|e| panic!("{}: {e}", stderr.display()));
    let line = text
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or_else(|| panic!("{} has no error line", stderr.display()));
    let rest = &line["error".len()..];
    let rest = match rest.strip_prefix('[') {
        Some(r) => &r[r.find(']').expect("error code")..][1..],
        None => rest,
    };
    rest.strip_prefix(": ").unwrap_or(rest).to_owned()
}

#[test]
fn the_catalogue_lists_every_ui_test_with_its_message() {
    let page = std::fs::read_to_string(PAGE).expect("docs/compile-errors.md");
    let rows = rows(&page);
    let tests = ui_tests();
    assert!(
        tests.len() >= 35,
        "the catalogue promises at least 35 mistakes"
    );

    let missing: Vec<_> = tests.iter().filter(|t| !rows.contains_key(*t)).collect();
    assert!(
        missing.is_empty(),
        "UI tests missing from {PAGE}: {missing:?}"
    );

    for (test, message) in &rows {
        let file = PathBuf::from(UI).join(test);
        assert!(file.exists(), "{PAGE} links {test}, which does not exist");
        let expected = first_message(&file.with_extension("stderr"));
        assert_eq!(
            message, &expected,
            "{PAGE}: the message for {test} is not the first line of its .stderr"
        );
    }
}
