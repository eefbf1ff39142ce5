//! Violations rendered for the model that made the call: the message of each rule, received values
//! quoted and cut short, and the `fail!` macro the walk reports through.

use std::fmt::Write as _;

use serde_json::{Number, Value};

use super::node::Types;
use super::path::{Path, QUOTE_LIMIT};
use super::{MAX_DEPTH, Violation};

/// A violation before it is rendered. Keeping the text out of the recursive functions keeps
/// their stack frames small, which is what lets [`MAX_DEPTH`] levels fit on a worker's stack.
pub(super) enum Msg<'a> {
    Text(&'static str),
    Depth,
    Type(&'a str, &'a Value),
    /// A prefix such as `must be one of "a", "b"`, and the value received.
    Choices(&'a str, &'a Value),
    Bound(&'static str, &'a str, &'a Number),
    MultipleOf(&'a str, &'a Number),
    MinLength(u64, u64),
    MaxLength(u64, u64),
    Pattern(&'a str),
    /// A non-linear pattern ran out of its backtracking budget on the value.
    PatternBudget(&'a super::pattern::Pattern),
    /// A string `format`'s name and the string.
    Format(&'a str, &'a str),
    /// A float at or beyond 2^53 where an integer format is declared.
    Inexact(&'a Number),
    MinItems(u64, u64),
    MaxItems(u64, u64),
    MinContains(u64, u64),
    MaxContains(u64, u64),
    Missing(&'static str, &'a str),
    Dependent(&'static str, &'a str, &'a str),
    Unknown(&'static str, &'a str, &'a str),
    MinProperties(u64, u64),
    MaxProperties(u64, u64),
    OneOf(usize),
}

#[cold]
#[inline(never)]
pub(super) fn report(out: &mut Vec<Violation>, path: &Path<'_>, msg: Msg<'_>) {
    let message = match msg {
        Msg::Text(t) => t.to_owned(),
        Msg::Depth => format!("nesting deeper than {MAX_DEPTH} levels"),
        Msg::Type(expected, v) => match v {
            Value::Number(_) if expected.contains("integer") => with_got(expected, v),
            Value::String(s) => match json_container(s) {
                Some(bit) if expected.contains(&Types(bit).describe()) => {
                    let noun = if bit == Types::OBJECT {
                        "object"
                    } else {
                        "array"
                    };
                    format!("{expected} (got a string holding JSON; pass the {noun} itself)")
                }
                _ => concat(&[expected, " (got string)"]),
            },
            other => concat(&[expected, " (got ", kind(other), ")"]),
        },
        Msg::Choices(prefix, v) => with_got(prefix, v),
        Msg::Bound(op, bound, n) => format!("must be {op} {bound} (got {n})"),
        Msg::MultipleOf(m, n) => format!("must be a multiple of {m} (got {n})"),
        Msg::MinLength(min, n) => count("must be at least", min, CHARACTERS, "", n),
        Msg::MaxLength(max, n) => count("must be at most", max, CHARACTERS, "", n),
        Msg::Pattern(p) => concat(&["must match the pattern ", p]),
        Msg::PatternBudget(p) => format!(
            "could not be checked against the pattern {} ({}) within its backtracking budget; send a shorter or simpler value",
            p.source, p.at
        ),
        Msg::Format(name, s) => {
            let mut m = format!("must be a valid {name} (got ");
            quote_str(&mut m, s);
            m.push(')');
            m
        }
        Msg::Inexact(n) => {
            format!("must be an integer literal: a float this large is not exact (got {n})")
        }
        Msg::MinItems(min, n) => count("must have at least", min, ITEMS, "", n),
        Msg::MaxItems(max, n) => count("must have at most", max, ITEMS, "", n),
        Msg::MinContains(min, n) => count("must contain at least", min, ITEMS, SHAPED, n),
        Msg::MaxContains(max, n) => count("must contain at most", max, ITEMS, SHAPED, n),
        Msg::Missing(noun, name) => {
            let mut m = pieces(&["missing required ", noun, " "], name.len() + 2);
            quote_str(&mut m, name);
            m
        }
        Msg::Dependent(noun, need, name) => {
            let mut m = format!("missing {noun} ");
            quote_str(&mut m, need);
            m.push_str(", required when ");
            quote_str(&mut m, name);
            m.push_str(" is present");
            m
        }
        Msg::Unknown(noun, name, allowed) => {
            let mut m = pieces(&["unknown ", noun, " "], name.len() + allowed.len() + 16);
            quote_str(&mut m, name);
            m.push_str(" (allowed: ");
            m.push_str(allowed);
            m.push(')');
            m
        }
        Msg::MinProperties(min, n) => count("must have at least", min, PROPERTIES, "", n),
        Msg::MaxProperties(max, n) => count("must have at most", max, PROPERTIES, "", n),
        Msg::OneOf(0) => "must match exactly one of the allowed shapes (matched none)".into(),
        Msg::OneOf(_) => {
            "must match exactly one of the allowed shapes (matched more than one)".into()
        }
    };
    out.push(Violation {
        path: path.pointer(),
        message,
    });
}

/// Re-reports the violations of a property name as violations of its object.
#[cold]
#[inline(never)]
pub(super) fn report_name(
    out: &mut Vec<Violation>,
    path: &Path<'_>,
    key: &str,
    inner: Vec<Violation>,
) {
    for v in inner {
        let mut m = format!("{} name ", path.noun());
        quote_str(&mut m, key);
        let _ = write!(m, ": {}", v.message);
        out.push(Violation {
            path: path.pointer(),
            message: m,
        });
    }
}

/// Where violations go: collected, or (when probing an `anyOf` branch) the first one ends the check.
pub(super) type Out<'o> = Option<&'o mut Vec<Violation>>;

/// Records a violation, or returns `false` when only probing.
macro_rules! fail {
    ($out:expr, $ok:ident, $path:expr, $msg:expr) => {{
        $ok = false;
        match $out.as_deref_mut() {
            Some(out) => $crate::validate::report::report(out, $path, $msg),
            None => return false,
        }
    }};
}

pub(super) use fail;

/// `must be "a"`, `must be one of "a", "b"`: the prefix of the `enum` and `const` messages.
pub(super) fn choices_message<'a>(values: impl IntoIterator<Item = &'a Value>) -> String {
    let values: Vec<&Value> = values.into_iter().collect();
    let mut m = String::from("must be ");
    if values.len() != 1 {
        m.push_str("one of ");
    }
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            m.push_str(", ");
        }
        quote_into(&mut m, v);
    }
    m
}

/// The type bit (`Types::OBJECT` or `Types::ARRAY`) of the JSON a string holds, when it holds
/// an object or an array: the model serialized a value it should have passed as it is.
pub(super) fn json_container(s: &str) -> Option<u8> {
    let bit = match s.trim_start().as_bytes().first()? {
        b'{' => Types::OBJECT,
        b'[' => Types::ARRAY,
        _ => return None,
    };
    serde_json::from_str::<serde::de::IgnoredAny>(s).ok()?;
    Some(bit)
}

/// A value as messages quote it: JSON text, cut after [`QUOTE_LIMIT`] characters.
pub(super) fn quoted(v: &Value) -> String {
    let mut s = String::new();
    quote_into(&mut s, v);
    s
}

/// The JSON type of a value, as `got …` names it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Appends a short rendering of a value: JSON text, cut after [`QUOTE_LIMIT`] characters.
fn quote_into(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => quote_str(out, s),
        Value::Array(_) | Value::Object(_) => {
            let mut w = Limited {
                text: String::new(),
                full: false,
            };
            // Stops serializing once the limit is reached, however large the value.
            let _ = serde_json::to_writer(&mut w, v);
            out.push_str(&w.text);
            if w.full {
                out.push('…');
            }
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

fn quote_str(out: &mut String, s: &str) {
    let cut = s.char_indices().nth(QUOTE_LIMIT).map(|(i, _)| i);
    let shown = &s[..cut.unwrap_or(s.len())];
    // serde_json's quoting (JSON escapes), written from the borrowed text: one allocation.
    let quoted = serde_json::to_string(shown).unwrap_or_default();
    match cut {
        None => out.push_str(&quoted),
        Some(_) => {
            out.push_str(&quoted[..quoted.len() - 1]);
            out.push_str("…\"");
        }
    }
}

struct Limited {
    text: String,
    full: bool,
}

impl std::io::Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = QUOTE_LIMIT.saturating_sub(self.text.chars().count());
        let chunk = String::from_utf8_lossy(buf);
        let taken: String = chunk.chars().take(room).collect();
        if taken.len() < chunk.len() {
            self.text.push_str(&taken);
            self.full = true;
            return Err(std::io::Error::other("limit reached"));
        }
        self.text.push_str(&chunk);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `lead`, then ` (got …)` with the value quoted: one string, written in place.
fn with_got(lead: &str, v: &Value) -> String {
    let mut s = String::with_capacity(lead.len() + 16);
    s.push_str(lead);
    s.push_str(" (got ");
    quote_into(&mut s, v);
    s.push(')');
    s
}

fn noun<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The nouns of a counted bound: one, many.
const CHARACTERS: [&str; 2] = ["character", "characters"];
const ITEMS: [&str; 2] = ["item", "items"];
const PROPERTIES: [&str; 2] = ["property", "properties"];
/// What `minContains` and `maxContains` count.
const SHAPED: &str = " matching the required shape";

/// `must have at least 2 items (got 1)`: a count bound's message, `lead`, the bound and its noun,
/// `tail`, then what was counted.
fn count(lead: &str, bound: u64, [one, many]: [&str; 2], tail: &str, got: u64) -> String {
    let noun = noun(bound, one, many);
    // Two numbers of at most 20 digits each.
    let mut m = String::with_capacity(lead.len() + noun.len() + tail.len() + 50);
    m.push_str(lead);
    let _ = write!(m, " {bound} ");
    m.push_str(noun);
    m.push_str(tail);
    let _ = write!(m, " (got {got})");
    m
}

/// The pieces in one string of their size.
fn concat(parts: &[&str]) -> String {
    pieces(parts, 0)
}

/// The pieces in one string, with room for `room` more bytes after them. The messages every
/// rejected call writes are built this way rather than with `format!`, whose machinery and
/// growing buffer cost about a thousand instructions per rejected call (callgrind,
/// BENCHMARKS.md).
#[inline]
pub(super) fn pieces(parts: &[&str], room: usize) -> String {
    let mut m = String::with_capacity(parts.iter().map(|p| p.len()).sum::<usize>() + room);
    for part in parts {
        m.push_str(part);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::{prop, run};
    use serde_json::json;

    #[test]
    fn choices_and_plurals() {
        assert_eq!(choices_message([&json!("a")]), r#"must be "a""#);
        assert_eq!(
            choices_message(&[json!(1), json!(null), json!({"k": [true]})]),
            r#"must be one of 1, null, {"k":[true]}"#
        );
        assert_eq!(
            count("must have at least", 1, ITEMS, "", 0),
            "must have at least 1 item (got 0)"
        );
        assert_eq!(
            count("must contain at most", 0, ITEMS, SHAPED, 2),
            "must contain at most 0 items matching the required shape (got 2)"
        );
        assert_eq!(kind(&json!(1.5)), "number");
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let long = "x".repeat(500);
        let got = run(prop(json!({"enum": ["a"]})), json!({"x": long}));
        let expected = format!(r#"/x: must be "a" (got "{}…")"#, "x".repeat(40));
        assert_eq!(got, [expected]);
        let got = run(prop(json!({"type": "string"})), json!({"x": 1}));
        assert_eq!(got, ["/x: must be a string (got number)"]);
        let big: Vec<u32> = (0..10_000).collect();
        let got = run(prop(json!({"const": 1})), json!({"x": big}));
        assert_eq!(
            got,
            [r#"/x: must be 1 (got [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1…)"#]
        );
        let mut key = "k".repeat(100);
        key.push('"');
        let got = run(json!({"additionalProperties": false}), json!({ key: 1 }));
        assert_eq!(
            got,
            [format!(
                r#"/: unknown argument "{}…" (allowed: none)"#,
                "k".repeat(40)
            )]
        );
    }
}
