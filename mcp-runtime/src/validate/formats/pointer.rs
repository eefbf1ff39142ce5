//! Strings about JSON and text: `json-pointer` (RFC 6901 §3), `relative-json-pointer`
//! (draft-handrews-relative-json-pointer-01 §3, as the OpenAPI format registry and JSON Schema
//! validators read it: no index adjustment), `regex`
//! (ECMA-262, as `pattern` is compiled) and `uuid` (RFC 9562 §4, the hyphenated hex form).

/// RFC 6901: empty, or `/`-prefixed reference tokens in which `~` is only `~0` or `~1`.
pub(super) fn is_json_pointer(s: &str) -> bool {
    (s.is_empty() || s.starts_with('/')) && escapes_ok(s)
}

fn escapes_ok(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter()
        .enumerate()
        .all(|(i, c)| *c != b'~' || matches!(b.get(i + 1), Some(b'0' | b'1')))
}

/// A non-negative integer without leading zeros, then `#` or a JSON Pointer.
pub(super) fn is_relative_json_pointer(s: &str) -> bool {
    non_negative(s).is_some_and(|rest| rest == "#" || is_json_pointer(rest))
}

/// Strips `0` or a digit run not starting with `0`; `None` when `s` starts with neither.
fn non_negative(s: &str) -> Option<&str> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    match n {
        0 => None,
        _ if n > 1 && s.starts_with('0') => None,
        _ => Some(&s[n..]),
    }
}

/// An ECMA-262 regular expression (with the `u` flag, as `pattern`s are read).
pub(super) fn is_regex(s: &str) -> bool {
    regress::Regex::with_flags(s, "u").is_ok()
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hex digits of either case.
pub(super) fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}
