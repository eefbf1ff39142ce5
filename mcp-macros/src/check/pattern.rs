//! `pattern`: a valid ECMA-262 regular expression, without the features validators disagree on.

use crate::attr::Sp;
use crate::ctxt::Ctxt;
use crate::model::ToolArg;

/// A published pattern is an ECMA-262 regular expression (JSON Schema's dialect, read here with
/// the `u` flag as validators do). Look-around and backreferences parse, but validators in other
/// languages read them differently or not at all, so a published contract avoids them.
pub(super) fn check_pattern(cx: &Ctxt, arg: &ToolArg) {
    let Some(Sp { value: lit, .. }) = arg.attrs.pattern.get() else {
        return;
    };
    let pattern = lit.value();
    if let Err(e) = regress::Regex::with_flags(&pattern, "u") {
        let reason = lowercase_first(&e.to_string());
        cx.error_spanned_by(
            lit,
            format!("invalid `pattern`: {reason}\nnote: patterns are ECMA-262 regular expressions, as in JSON Schema"),
        );
        return;
    }
    if let Some(feature) = unportable_regex_feature(&pattern) {
        cx.error_spanned_by(
            lit,
            format!(
                "`pattern` uses {feature}, which JSON Schema validators do not agree on; rewrite the pattern without it, or check the value in the function body"
            ),
        );
    }
}

/// `Unbalanced bracket` reads as `unbalanced bracket` inside our sentence.
fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The first look-around or backreference in a pattern that already parses, described for the user.
fn unportable_regex_feature(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let next = chars.get(i + 1).copied();
                if matches!(next, Some('p' | 'P')) && chars.get(i + 2) == Some(&'{') {
                    let p = next.unwrap_or('p');
                    return Some(format!("a Unicode property escape `\\{p}{{...}}`"));
                }
                if next == Some('u') && chars.get(i + 2) == Some(&'{') {
                    return Some("a code point escape `\\u{...}`".into());
                }
                if !in_class {
                    match next {
                        Some(d @ '1'..='9') => return Some(format!("a backreference `\\{d}`")),
                        Some('k') if chars.get(i + 2) == Some(&'<') => {
                            return Some("a named backreference `\\k<...>`".into());
                        }
                        _ => {}
                    }
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars[i + 2..].iter().take(2).collect();
                let found = if rest.starts_with('=') {
                    Some("a look-ahead `(?=...)`")
                } else if rest.starts_with('!') {
                    Some("a negative look-ahead `(?!...)`")
                } else if rest == "<=" {
                    Some("a look-behind `(?<=...)`")
                } else if rest == "<!" {
                    Some("a negative look-behind `(?<!...)`")
                } else {
                    None
                };
                if let Some(f) = found {
                    return Some(f.into());
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::unportable_regex_feature;

    #[test]
    fn unportable_features_are_found_outside_classes_only() {
        let cases: &[(&str, Option<&str>)] = &[
            (r"^T-\d+$", None),
            (r"^(?:ab)+$", None),
            (r"^(?<year>\d{4})$", None),
            (r"^(?=a)", Some("a look-ahead `(?=...)`")),
            (r"^(?!a)", Some("a negative look-ahead `(?!...)`")),
            (r"(?<=a)b", Some("a look-behind `(?<=...)`")),
            (r"(?<!a)b", Some("a negative look-behind `(?<!...)`")),
            (r"(a)\1", Some("a backreference `\\1`")),
            (r"(?<x>a)\k<x>", Some("a named backreference `\\k<...>`")),
            (r"[(?=]", None),
            (r"[\1]", None),
            (r"\(?=", None),
            (r"\\1", None),
            (r"^\p{L}+$", Some("a Unicode property escape `\\p{...}`")),
            (r"[\P{Lu}]", Some("a Unicode property escape `\\P{...}`")),
            (r"\u{1F600}", Some("a code point escape `\\u{...}`")),
            (r"\u00e9", None),
            (r"\\p{L}", None),
        ];
        for (pattern, expected) in cases {
            assert_eq!(
                unportable_regex_feature(pattern).as_deref(),
                *expected,
                "pattern {pattern}"
            );
        }
    }
}
