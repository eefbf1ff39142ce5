//! `pattern`: a valid ECMA-262 regular expression, without the features validators disagree on.

use crate::ctxt::Ctxt;
use crate::model::ToolArg;

/// A published pattern is an ECMA-262 regular expression (JSON Schema's dialect, read here with
/// the `u` flag as validators do). Look-around and backreferences parse, but validators in other
/// languages read them differently or not at all, so a published contract avoids them.
pub(super) fn check_pattern(cx: &Ctxt, arg: &ToolArg) {
    // A constant's text is not the macro's to read: the server checks it when it is built.
    let Some(lit) = arg.attrs.pattern.get().and_then(|p| p.value.literal()) else {
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
        // Look-around, backreferences and the multiline modifier also need a backtracking
        // engine: the server would run them under a step budget, never in linear time.
        let backtracks = !feature.contains("escape");
        let which = if backtracks {
            "which JSON Schema validators do not agree on and which cannot be matched in linear time"
        } else {
            "which JSON Schema validators do not agree on"
        };
        cx.error_spanned_by(
            lit,
            format!(
                "`pattern` uses {feature}, {which}; rewrite the pattern without it, or check the value in the function body"
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
                // A modifier group turning `m` on: `(?m:…)`, `(?im-s:…)`.
                let mods = chars[i + 2..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic());
                if mods.clone().any(|&c| c == 'm') {
                    return Some("the multiline modifier `(?m:...)`".into());
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
        // Portable: the same meaning in Rust's regex and in ECMA-262 (escapes inside classes, or
        // escaped themselves, are literal characters).
        let portable = [
            r"^T-\d+$",
            r"^(?:ab)+$",
            r"^(?<year>\d{4})$",
            r"[(?=]",
            r"[\1]",
            r"\(?=",
            r"\\1",
            r"\u00e9",
            r"\\p{L}",
            r"(?i:ab)",
            r"(?-m:a)",
        ];
        for pattern in portable {
            assert_eq!(unportable_regex_feature(pattern), None, "pattern {pattern}");
        }
        let unportable = [
            (r"^(?=a)", "a look-ahead `(?=...)`"),
            (r"^(?!a)", "a negative look-ahead `(?!...)`"),
            (r"(?<=a)b", "a look-behind `(?<=...)`"),
            (r"(?<!a)b", "a negative look-behind `(?<!...)`"),
            (r"(a)\1", "a backreference `\\1`"),
            (r"(?<x>a)\k<x>", "a named backreference `\\k<...>`"),
            (r"^\p{L}+$", "a Unicode property escape `\\p{...}`"),
            (r"[\P{Lu}]", "a Unicode property escape `\\P{...}`"),
            (r"\u{1F600}", "a code point escape `\\u{...}`"),
            (r"^(?m:a$)", "the multiline modifier `(?m:...)`"),
            (r"^(?im:a$)", "the multiline modifier `(?m:...)`"),
        ];
        for (pattern, feature) in unportable {
            assert_eq!(
                unportable_regex_feature(pattern).as_deref(),
                Some(feature),
                "pattern {pattern}"
            );
        }
    }
}
