//! `pattern` and `patternProperties`: ECMA-262 regular expressions (as JSON Schema requires),
//! run in time linear in the client's string.
//!
//! A pattern is checked as ECMA-262 (Unicode mode) by `regress`, then translated (`ecma.rs`) to
//! the `regex` crate's syntax, whose engines never backtrack: `^(a+)+$` against a hostile
//! 10,000-character string takes microseconds, where a backtracking engine takes longer than the
//! age of the universe. The few patterns a finite automaton cannot express (look-ahead,
//! look-behind, backreferences, the multiline modifier) run on `fancy-regex` by backtracking
//! under a budget of backtracking steps (the validator's
//! [`DEFAULT_PATTERN_BACKTRACK_LIMIT`], configurable); a string that exhausts it is refused, with
//! a message naming the pattern and its place in the schema, and a log line. The server's build
//! warns about every such pattern.
//!
//! | file | what it holds |
//! |---|---|
//! | this file | [`Pattern`]: compiled once, matched in linear time or under a budget |
//! | `ecma.rs` | ECMA-262 → `regex` syntax, or the reason a pattern needs backtracking |
//! | `class.rs` | character classes and escapes, as `regex` class items |
//! | `sets.rs` | ECMA-262's `\s`, `\d`, `\w` and the empty class, shared by the two above |
//! | `differential.rs` (tests) | the translation held to `regress` on generated patterns and inputs |

mod class;
mod ecma;
mod sets;

#[cfg(test)]
mod differential;

/// The backtracking steps one match of a non-linear pattern (look-around, backreferences) may
/// take before the value is refused: about 10 ms of one core (release build).
pub const DEFAULT_PATTERN_BACKTRACK_LIMIT: usize = 100_000;

/// A compiled pattern and its source, which the violation message quotes.
#[derive(Debug, Clone)]
pub(super) struct Pattern {
    engine: Engine,
    pub(super) source: Box<str>,
    /// Where the pattern is in the schema (`#/properties/id/pattern`).
    pub(super) at: Box<str>,
}

#[derive(Debug, Clone)]
enum Engine {
    /// Linear time: the `regex` crate. `find` when the pattern has an ASCII word boundary:
    /// `is_match` can then miss a match `find` reports (an empty match inside a multi-byte
    /// character is refused and the search not resumed), so the verdict is `find`'s.
    Linear { regex: regex::Regex, find: bool },
    /// Backtracking under a step budget: `fancy-regex`; `why` names the construct.
    Bounded {
        regex: Box<fancy_regex::Regex>,
        translated: Box<str>,
        why: &'static str,
    },
}

/// A match that ran out of its step budget: the value is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Exhausted;

impl Pattern {
    /// Compiles `source`; `at` locates the schema in the error.
    pub(super) fn compile(source: &str, at: &str) -> Result<Pattern, String> {
        Pattern::compile_with(source, at, DEFAULT_PATTERN_BACKTRACK_LIMIT)
    }

    /// Compiles `source`, a non-linear pattern with `limit` backtracking steps per match.
    pub(super) fn compile_with(source: &str, at: &str, limit: usize) -> Result<Pattern, String> {
        let invalid = |e: &dyn std::fmt::Display| format!("{at}: invalid pattern {source:?}: {e}");
        regress::Regex::with_flags(source, "u").map_err(|e| invalid(&e))?;
        let t = ecma::translate(source).map_err(|e| invalid(&e))?;
        let engine = match t.reason {
            None => {
                let regex = regex::RegexBuilder::new(&t.source)
                    .size_limit(LINEAR_SIZE_LIMIT)
                    .build()
                    .map_err(|e| too_large(source, at, &e))?;
                let find = t.source.contains("(?-u:");
                Engine::Linear { regex, find }
            }
            Some(why) => Engine::Bounded {
                regex: Box::new(bounded(&t.source, limit).map_err(|e| too_large(source, at, &e))?),
                translated: t.source.into(),
                why,
            },
        };
        Ok(Pattern {
            engine,
            source: source.into(),
            at: format!("{at}/pattern").into(),
        })
    }

    /// True when the pattern matches somewhere in `s` (patterns are not anchored); `Err` when a
    /// non-linear pattern ran out of its budget on `s`.
    #[inline]
    pub(super) fn is_match(&self, s: &str) -> Result<bool, Exhausted> {
        match &self.engine {
            Engine::Linear { regex, find: false } => Ok(regex.is_match(s)),
            Engine::Linear { regex, find: true } => Ok(regex.find(s).is_some()),
            Engine::Bounded { regex, .. } => regex.is_match(s).map_err(|_| {
                tracing::warn!(
                    pattern = %self.source,
                    at = %self.at,
                    len = s.len(),
                    "a value was refused: the pattern ran out of its backtracking budget"
                );
                Exhausted
            }),
        }
    }

    /// What makes this pattern run by backtracking (`None`: it runs in linear time).
    pub(super) fn non_linear(&self) -> Option<&'static str> {
        match &self.engine {
            Engine::Linear { .. } => None,
            Engine::Bounded { why, .. } => Some(why),
        }
    }

    /// The same pattern with another budget (a non-linear one is rebuilt; a linear one is kept).
    pub(super) fn set_backtrack_limit(&mut self, limit: usize) {
        if let Engine::Bounded {
            regex, translated, ..
        } = &mut self.engine
            && let Ok(r) = bounded(translated, limit)
        {
            **regex = r;
        }
    }
}

/// A pattern of a schema that runs by backtracking (under its budget) rather than in linear
/// time: what a server's build warns about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonLinearPattern {
    /// The pattern as published.
    pub pattern: String,
    /// Where it is in the schema (`#/properties/id/pattern`).
    pub at: String,
    /// What needs backtracking: `a look-ahead`, `a backreference`, ….
    pub why: &'static str,
}

/// The compiled size a linear pattern may take (the `regex` crate's default is 10 MiB; a
/// counted repetition such as `\w{1000}` in a Unicode class needs more).
const LINEAR_SIZE_LIMIT: usize = 64 << 20;

fn bounded(translated: &str, limit: usize) -> Result<fancy_regex::Regex, fancy_regex::Error> {
    fancy_regex::RegexBuilder::new(translated)
        .backtrack_limit(limit)
        .delegate_size_limit(LINEAR_SIZE_LIMIT)
        .build()
}

fn too_large(source: &str, at: &str, e: &dyn std::fmt::Display) -> String {
    format!("{at}: pattern {source:?} cannot be compiled to a bounded-time matcher: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::table;
    use serde_json::{Value, json};

    #[test]
    fn ecma_semantics() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &[&str])> = vec![
            (json!({"pattern": r"^T-\d+$"}), json!("T-12"), &[]),
            (json!({"pattern": r"^T-\d+$"}), json!("T-١"), &[r"/x: must match the pattern ^T-\d+$"]),
            (json!({"pattern": r"^T-\d+$"}), json!("T-1\n"), &[r"/x: must match the pattern ^T-\d+$"]),
            (json!({"pattern": "b"}), json!("abc"), &[]),
            (json!({"pattern": r"^\w+$"}), json!("é"), &[r"/x: must match the pattern ^\w+$"]),
        ];
        table(rows);
        let p = Pattern::compile("b", "#").unwrap();
        assert_eq!((p.is_match("abc"), p.is_match("ac")), (Ok(true), Ok(false)));
        assert_eq!(&*p.source, "b");
        assert_eq!(&*p.at, "#/pattern");
    }

    #[test]
    fn invalid_patterns() {
        for source in ["(", "(?<x", r"\8", "a{2,1}", "(?=a)*"] {
            let err = Pattern::compile(source, "#/properties/x").unwrap_err();
            assert!(
                err.starts_with(&format!("#/properties/x: invalid pattern {source:?}: ")),
                "{err}"
            );
        }
    }

    /// The two patterns of the report: linear now, so hostile tails answer at once (the test
    /// asserts the answers; BENCHMARKS.md's complexity battery times them).
    #[test]
    fn catastrophic_patterns_are_linear() {
        let a = Pattern::compile("^(a+)+$", "#").unwrap();
        let words = Pattern::compile("^([a-z]+ ?)*$", "#").unwrap();
        assert_eq!((a.non_linear(), words.non_linear()), (None, None));
        let hostile = "a".repeat(10_000) + "!";
        assert_eq!(a.is_match(&hostile), Ok(false));
        assert_eq!(a.is_match(&"a".repeat(10_000)), Ok(true));
        let hostile = "ab ".repeat(10_000) + "!";
        assert_eq!(words.is_match(&hostile), Ok(false));
        assert_eq!(words.is_match(&"ab ".repeat(10_000)), Ok(true));
    }

    #[test]
    fn look_around_and_backreferences_run_under_a_budget() {
        let cases = [
            (r"^(?=\d)\w+$", "a look-ahead", "1a", "a1"),
            (r"(?<!x)y", "a look-behind", "ay", "xy"),
            (r"^(\w)\1$", "a backreference", "aa", "ab"),
            (r"^(?<c>\w)\k<c>$", "a named backreference", "bb", "ba"),
            ("(?m:^b$)", "the multiline modifier", "a\u{2028}b\rc", "ab"),
        ];
        for (source, why, yes, no) in cases {
            let p = Pattern::compile(source, "#").unwrap();
            assert_eq!(p.non_linear(), Some(why), "{source}");
            assert_eq!(
                (p.is_match(yes), p.is_match(no)),
                (Ok(true), Ok(false)),
                "{source}"
            );
        }
        // A hostile input exhausts the budget: refused, not run for ever.
        let mut p = Pattern::compile(r"^(a|a)+\1$", "#").unwrap();
        let hostile = "a".repeat(10_000) + "!";
        assert_eq!(p.is_match(&hostile), Err(Exhausted));
        assert_eq!(p.is_match("aaa"), Ok(true));
        // A smaller budget refuses sooner: twelve characters take thousands of steps.
        let short = "a".repeat(12) + "!";
        p.set_backtrack_limit(10);
        assert_eq!(p.is_match(&short), Err(Exhausted));
        p.set_backtrack_limit(DEFAULT_PATTERN_BACKTRACK_LIMIT);
        assert_eq!(p.is_match(&short), Ok(false));
    }
}
