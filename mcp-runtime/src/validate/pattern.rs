//! `pattern` and `patternProperties`: ECMA-262 regular expressions (as JSON Schema requires),
//! compiled once with `regress` in Unicode mode.

/// A compiled pattern and its source, which the violation message quotes.
#[derive(Debug)]
pub(super) struct Pattern {
    regex: regress::Regex,
    pub(super) source: Box<str>,
}

impl Pattern {
    /// Compiles `source`; `at` locates the schema in the error.
    pub(super) fn compile(source: &str, at: &str) -> Result<Pattern, String> {
        let regex = regress::Regex::with_flags(source, "u")
            .map_err(|e| format!("{at}: invalid pattern {source:?}: {e}"))?;
        Ok(Pattern {
            regex,
            source: source.into(),
        })
    }

    /// True when the pattern matches somewhere in `s` (patterns are not anchored).
    #[inline]
    pub(super) fn is_match(&self, s: &str) -> bool {
        self.regex.find(s).is_some()
    }
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
        assert!(p.is_match("abc") && !p.is_match("ac"));
        assert_eq!(&*p.source, "b");
    }

    #[test]
    fn invalid_patterns() {
        for source in ["(", "(?<x"] {
            let err = Pattern::compile(source, "#/properties/x").unwrap_err();
            assert!(
                err.starts_with(&format!("#/properties/x: invalid pattern {source:?}: ")),
                "{err}"
            );
        }
    }
}
