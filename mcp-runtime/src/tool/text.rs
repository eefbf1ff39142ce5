//! The text block of a structured result: the value's indented JSON, as the JSON string the
//! answer carries it in, written in one serialization.
//!
//! The text block is `serde_json::to_string_pretty(&value)`, and the answer writes that text as
//! a JSON string, escaping it: every quote, backslash and line end of the indented JSON is
//! escaped a second time. Done in that order, the escaping is a second pass over the text, a
//! byte at a time with a copy between escapes, and the largest single cost of writing a valid
//! call's answer (about 2,400 of 25,500 instructions per stdio call, callgrind; BENCHMARKS.md).
//! [`QuotedPretty`] is a serde_json [`Formatter`] that writes what that pass would produce
//! while the value is serialized: the indented layout of serde_json's `PrettyFormatter`, with
//! every byte that the second escaping would change written already escaped.

use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};

/// Appends `value`'s indented JSON (serde_json's `to_string_pretty`, two spaces) to `out` as a
/// JSON string: quoted and escaped, as a message carries it.
pub(crate) fn write_quoted_pretty_json<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> serde_json::Result<()> {
    out.push(b'"');
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, QuotedPretty::default());
    value.serialize(&mut ser)?;
    out.push(b'"');
    Ok(())
}

/// A line end of the indented JSON, as the answer's string writes it.
const LINE_END: &[u8] = b"\\n";
/// The same, after a value (the comma first).
const COMMA_LINE_END: &[u8] = b",\\n";
/// A quote of the indented JSON (a string's opening or closing one), escaped.
const QUOTE: &[u8] = b"\\\"";
const INDENT: &[u8] = b"  ";

/// serde_json's `PrettyFormatter` layout (two-space indent, `": "` between key and value, a
/// line end before each member and before the closing bracket of a non-empty container), with
/// its output escaped as a JSON string's contents.
///
/// What needs no second escaping is written as the compact formatter writes it: numbers,
/// `true`/`false`/`null`, brackets, and a string's unescaped runs, which by construction hold
/// no quote, backslash or control character (serde_json escapes exactly those, whichever side).
#[derive(Default)]
pub(crate) struct QuotedPretty {
    depth: usize,
    has_value: bool,
}

impl QuotedPretty {
    fn line<W: ?Sized + io::Write>(&self, writer: &mut W, line_end: &[u8]) -> io::Result<()> {
        writer.write_all(line_end)?;
        for _ in 0..self.depth {
            writer.write_all(INDENT)?;
        }
        Ok(())
    }

    fn open<W: ?Sized + io::Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    /// The line a member (of an array or an object) starts on.
    fn member<W: ?Sized + io::Write>(&self, writer: &mut W, first: bool) -> io::Result<()> {
        self.line(writer, if first { LINE_END } else { COMMA_LINE_END })
    }

    fn close<W: ?Sized + io::Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        // serde_json pairs every close with an open; saturating all the same, as nothing on a
        // request's path may panic.
        self.depth = self.depth.saturating_sub(1);
        if self.has_value {
            self.line(writer, LINE_END)?;
        }
        writer.write_all(bracket)
    }
}

impl Formatter for QuotedPretty {
    fn begin_string<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(QUOTE)
    }

    fn end_string<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(QUOTE)
    }

    /// An escape inside a string of the indented JSON (`\"`, `\n`, `\u001f`, ...): its backslash
    /// escaped, and the character after it too when that is a quote or a backslash.
    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        let escaped: &[u8] = match char_escape {
            CharEscape::Quote => b"\\\\\\\"",
            CharEscape::ReverseSolidus => b"\\\\\\\\",
            CharEscape::Solidus => b"\\\\/",
            CharEscape::Backspace => b"\\\\b",
            CharEscape::FormFeed => b"\\\\f",
            CharEscape::LineFeed => b"\\\\n",
            CharEscape::CarriageReturn => b"\\\\r",
            CharEscape::Tab => b"\\\\t",
            CharEscape::AsciiControl(byte) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hex = [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xF)]];
                let bytes = [b'\\', b'\\', b'u', b'0', b'0', hex[0], hex[1]];
                return writer.write_all(&bytes);
            }
        };
        writer.write_all(escaped)
    }

    /// A `RawValue` inside the value: the indented JSON carries its text as it is, so here it is
    /// escaped whole.
    fn write_raw_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let quoted = serde_json::to_string(fragment).map_err(io::Error::other)?;
        writer.write_all(&quoted.as_bytes()[1..quoted.len() - 1])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.member(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.member(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;
    use serde_json::{Value, json};
    use std::collections::BTreeMap;

    /// What the answer wrote before: the indented JSON, then escaped as a string.
    fn twice<T: Serialize + ?Sized>(value: &T) -> String {
        serde_json::to_string(&serde_json::to_string_pretty(value).unwrap()).unwrap()
    }

    fn same<T: Serialize + ?Sized>(value: &T) {
        let mut once = b"prefix ".to_vec();
        write_quoted_pretty_json(&mut once, value).unwrap();
        let once = String::from_utf8(once).unwrap();
        let once = once.strip_prefix("prefix ").unwrap();
        assert_eq!(once, twice(value));
        // And it reads back as the indented text.
        let text: String = serde_json::from_str(once).unwrap();
        assert_eq!(text, serde_json::to_string_pretty(value).unwrap());
    }

    #[test]
    fn every_escape_and_layout_matches_the_indented_json_escaped_again() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        same(&json!(null));
        same(&json!(true));
        same(&json!(-12.5e-7));
        same(&json!(u64::MAX));
        same(&json!(i64::MIN));
        same(&json!("plain"));
        same(&json!(
            "quote \" backslash \\ slash / newline \n tab \t é ✓ \u{2028}"
        ));
        same(&json!(every_control));
        same(&json!({}));
        same(&json!([]));
        same(&json!([[], {}, [[]], {"a": {}}]));
        same(&json!({"a\"b\\c\n": [1, 2.5, "x", null, false, {"k": [{}]}], "": ""}));
        same(&json!({"deep": {"deeper": {"deepest": [1, [2, [3, [4]]]]}}}));
    }

    #[test]
    fn typed_values_match_too() {
        #[derive(Serialize)]
        struct Task<'a> {
            id: &'a str,
            tags: Vec<&'a str>,
            score: Option<f64>,
            nan: f64,
            bytes: &'a [u8],
            unit: (),
            nested: BTreeMap<i32, Vec<char>>,
            raw: Box<RawValue>,
        }
        let task = Task {
            id: "T-1",
            tags: vec!["a\u{1f}", "\"b\""],
            score: Some(0.1),
            nan: f64::NAN,
            bytes: &[0, 255],
            unit: (),
            nested: BTreeMap::from([(-3, vec!['"', '\n']), (7, vec![])]),
            raw: RawValue::from_string(r#"{"a" : [1,"x\"y\n"]}"#.to_owned()).unwrap(),
        };
        same(&task);
        same(&[Some(1), None]);
        same(&BTreeMap::from([(true, 1u8)]));
    }

    /// Values built from a small generator (every shape to depth 4, strings drawn from the
    /// characters that escape), each compared with the two-pass text.
    #[test]
    fn generated_values_match() {
        const PIECES: [&str; 8] = ["", "a", "\"", "\\", "\n", "\u{0}", "é", "\u{7f}"];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        fn build(next: &mut impl FnMut() -> u64, depth: u32) -> Value {
            let pick = next() % if depth == 0 { 4 } else { 6 };
            match pick {
                0 => Value::Null,
                1 => json!(next().is_multiple_of(3)),
                2 => json!((next() % 2000) as f64 / 7.0 - 100.0),
                3 => Value::String(
                    (0..next() % 5)
                        .map(|_| PIECES[(next() % 8) as usize])
                        .collect(),
                ),
                4 => Value::Array((0..next() % 4).map(|_| build(next, depth - 1)).collect()),
                _ => Value::Object(
                    (0..next() % 4)
                        .map(|i| {
                            (
                                format!("k{i}{}", PIECES[(next() % 8) as usize]),
                                build(next, depth - 1),
                            )
                        })
                        .collect(),
                ),
            }
        }
        for _ in 0..3000 {
            same(&build(&mut next, 4));
        }
    }
}
