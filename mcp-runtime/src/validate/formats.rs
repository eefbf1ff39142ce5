//! `format`: the formats schemars publishes for types whose deserializer would refuse a value
//! anyway are asserted; every other format stays an annotation.
//!
//! Strings: `ipv4`, `ipv6`, `ip` (either; `IpAddr`) with the std parsers the Rust types use;
//! `uuid` (the hyphenated 8-4-4-4-12 hex form); `date`, `time`, `date-time` (RFC 3339 §5.6, a
//! leap second only at 23:59 UTC); `duration` (RFC 3339 Appendix A); `uri` (RFC 3986 §3: a
//! scheme, `:`, then only URI characters and well-formed `%` escapes).
//!
//! Integers: `int8` … `int64`, `uint8` … `uint64`, `int`/`uint` (`isize`/`usize`, 64 bits),
//! `int128`/`uint128` (what `serde_json::Value` holds: `i64::MIN..=u64::MAX`). A value outside
//! the range is refused naming the bound, never clamped; a float at or beyond 2^53 within the
//! range is refused as inexact (serde_json parses every integer literal that fits 64 bits as an
//! integer, so such a float was written with a fraction or an exponent and may have been rounded).

use serde_json::Number;

use super::numbers::Num;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StrFormat {
    Ipv4,
    Ipv6,
    Ip,
    Uuid,
    Date,
    Time,
    DateTime,
    Duration,
    Uri,
}

/// An integer format's range and the bounds as written in messages.
#[derive(Debug, Clone, Copy)]
pub(super) struct IntFormat {
    pub(super) lo: i128,
    pub(super) hi: i128,
    pub(super) lo_text: &'static str,
    pub(super) hi_text: &'static str,
}

pub(super) enum Format {
    Str(StrFormat, &'static str),
    Int(IntFormat),
}

macro_rules! int {
    ($lo:expr, $hi:expr) => {
        IntFormat {
            lo: $lo as i128,
            hi: $hi as i128,
            lo_text: stringify_num($lo as i128),
            hi_text: stringify_num($hi as i128),
        }
    };
}

const fn stringify_num(n: i128) -> &'static str {
    match n {
        -128 => "-128",
        127 => "127",
        -32768 => "-32768",
        32767 => "32767",
        -2147483648 => "-2147483648",
        2147483647 => "2147483647",
        -9223372036854775808 => "-9223372036854775808",
        9223372036854775807 => "9223372036854775807",
        0 => "0",
        255 => "255",
        65535 => "65535",
        4294967295 => "4294967295",
        18446744073709551615 => "18446744073709551615",
        _ => "?",
    }
}

/// The format of this name, when this validator asserts it.
pub(super) fn parse(name: &str) -> Option<Format> {
    use StrFormat::*;
    let s = |f, n| Some(Format::Str(f, n));
    match name {
        "ipv4" => s(Ipv4, "ipv4"),
        "ipv6" => s(Ipv6, "ipv6"),
        "ip" => s(Ip, "ip"),
        "uuid" => s(Uuid, "uuid"),
        "date" => s(Date, "date"),
        "time" => s(Time, "time"),
        "date-time" => s(DateTime, "date-time"),
        "duration" => s(Duration, "duration"),
        "uri" => s(Uri, "uri"),
        "int8" => Some(Format::Int(int!(i8::MIN, i8::MAX))),
        "int16" => Some(Format::Int(int!(i16::MIN, i16::MAX))),
        "int32" => Some(Format::Int(int!(i32::MIN, i32::MAX))),
        "int64" | "int" => Some(Format::Int(int!(i64::MIN, i64::MAX))),
        "int128" => Some(Format::Int(int!(i64::MIN, u64::MAX))),
        "uint8" => Some(Format::Int(int!(0, u8::MAX))),
        "uint16" => Some(Format::Int(int!(0, u16::MAX))),
        "uint32" => Some(Format::Int(int!(0, u32::MAX))),
        "uint64" | "uint" | "uint128" => Some(Format::Int(int!(0, u64::MAX))),
        _ => None,
    }
}

/// Why a number breaks an integer format.
pub(super) enum IntFault {
    Below,
    Above,
    Fraction,
    Inexact,
}

pub(super) const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

impl IntFormat {
    pub(super) fn check(&self, n: &Number) -> Option<IntFault> {
        let x = match Num::of(n) {
            Num::U(u) => u as i128,
            Num::I(i) => i as i128,
            Num::F(f) => {
                if f.fract() != 0.0 || !f.is_finite() {
                    return Some(IntFault::Fraction);
                }
                // -2^63 and 2^64 as floats: literals beyond 64 bits land there after rounding.
                if f <= -9_223_372_036_854_775_808.0 {
                    return Some(IntFault::Below);
                }
                if f >= 18_446_744_073_709_551_616.0 {
                    return Some(IntFault::Above);
                }
                let i = f as i128;
                if i < self.lo {
                    return Some(IntFault::Below);
                }
                if i > self.hi {
                    return Some(IntFault::Above);
                }
                if f.abs() >= EXACT {
                    return Some(IntFault::Inexact);
                }
                i
            }
        };
        if x < self.lo {
            Some(IntFault::Below)
        } else if x > self.hi {
            Some(IntFault::Above)
        } else {
            None
        }
    }
}

/// True when `s` is in the format.
pub(super) fn is_valid(f: StrFormat, s: &str) -> bool {
    match f {
        StrFormat::Ipv4 => s.parse::<std::net::Ipv4Addr>().is_ok(),
        StrFormat::Ipv6 => s.parse::<std::net::Ipv6Addr>().is_ok(),
        StrFormat::Ip => s.parse::<std::net::IpAddr>().is_ok(),
        StrFormat::Uuid => is_uuid(s),
        StrFormat::Date => is_date(s),
        StrFormat::Time => is_time(s),
        StrFormat::DateTime => match s.find(['T', 't']) {
            Some(i) => is_date(&s[..i]) && is_time(&s[i + 1..]),
            None => false,
        },
        StrFormat::Duration => is_duration(s),
        StrFormat::Uri => is_uri(s),
    }
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hex digits of either case.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |n, c| {
        c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
    })
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, the day within its month (leap years included).
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..])) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac](Z|±HH:MM)`; second 60 only when it is 23:59:60 UTC.
fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (digits(&b[..2]), digits(&b[3..5]), digits(&b[6..8]))
    else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut i = 8;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    let utc_minutes = match &b[i..] {
        [b'Z' | b'z'] => (h * 60 + m) as i32,
        [sign @ (b'+' | b'-'), oh @ .., b':', _, _] if oh.len() == 2 => {
            let (Some(oh), Some(om)) = (digits(oh), digits(&b[b.len() - 2..])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let offset = (oh * 60 + om) as i32;
            let local = (h * 60 + m) as i32;
            let utc = if *sign == b'+' {
                local - offset
            } else {
                local + offset
            };
            utc.rem_euclid(24 * 60)
        }
        _ => return false,
    };
    sec != 60 || utc_minutes == 23 * 60 + 59
}

/// RFC 3339 Appendix A `duration`: `P` then weeks alone, or date parts (Y, M, D in order, no
/// gaps) and/or `T` with time parts (H, M, S in order, no gaps); at least one part.
fn is_duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('P') else {
        return false;
    };
    let (date, time) = match rest.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (rest, None),
    };
    // Each part: digits then a unit; returns the units in order.
    fn units(s: &str) -> Option<Vec<u8>> {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start || i == b.len() {
                return None;
            }
            out.push(b[i]);
            i += 1;
        }
        Some(out)
    }
    // A run of consecutive units from `order` (no gaps, in order).
    fn run(got: &[u8], order: &[u8]) -> bool {
        got.is_empty() || order.windows(got.len()).any(|w| w == got)
    }
    let Some(d) = units(date) else { return false };
    if d == [b'W'] {
        return time.is_none();
    }
    if !run(&d, b"YMD") {
        return false;
    }
    match time {
        None => !d.is_empty(),
        Some(t) => match units(t) {
            Some(t) => !t.is_empty() && run(&t, b"HMS"),
            None => false,
        },
    }
}

/// RFC 3986 `URI`: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`, checked at the level
/// of its characters: a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`), and after it only
/// unreserved, reserved and `%HH` escapes, with at most one `#`.
fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut sc = scheme.bytes();
    if !sc.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !sc.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return false;
    }
    let b = rest.as_bytes();
    let mut hashes = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if !(i + 2 < b.len()
                    && b[i + 1].is_ascii_hexdigit()
                    && b[i + 2].is_ascii_hexdigit())
                {
                    return false;
                }
                i += 2;
            }
            b'#' => hashes += 1,
            c if c.is_ascii_alphanumeric() => {}
            b'-' | b'.' | b'_' | b'~' | b':' | b'/' | b'?' | b'[' | b']' | b'@' | b'!' | b'$'
            | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' => {}
            _ => return false,
        }
        i += 1;
    }
    hashes <= 1
}

#[cfg(test)]
mod tests {
    use crate::validate::tests::table;
    use serde_json::{Value, json};

    #[test]
    fn string_formats() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &[&str])> = vec![
            (json!({"format": "ipv4"}), json!("127.0.0.1"), &[]),
            (json!({"format": "ipv4"}), json!("1.2.3"), &[r#"/x: must be a valid ipv4 (got "1.2.3")"#]),
            (json!({"format": "ipv6"}), json!("::1"), &[]),
            (json!({"format": "ip"}), json!("::1"), &[]),
            (json!({"format": "ip"}), json!("localhost"), &[r#"/x: must be a valid ip (got "localhost")"#]),
            (json!({"format": "uuid"}), json!("123e4567-e89b-12d3-a456-426614174000"), &[]),
            (json!({"format": "uuid"}), json!("123e4567e89b12d3a456426614174000"), &[r#"/x: must be a valid uuid (got "123e4567e89b12d3a456426614174000")"#]),
            (json!({"format": "date"}), json!("2024-02-29"), &[]),
            (json!({"format": "date"}), json!("2023-02-29"), &[r#"/x: must be a valid date (got "2023-02-29")"#]),
            (json!({"format": "time"}), json!("15:59:60-08:00"), &[]),
            (json!({"format": "time"}), json!("12:00:60Z"), &[r#"/x: must be a valid time (got "12:00:60Z")"#]),
            (json!({"format": "date-time"}), json!("2024-02-29T12:00:00.25+05:30"), &[]),
            (json!({"format": "date-time"}), json!("2024-02-29 12:00:00Z"), &[r#"/x: must be a valid date-time (got "2024-02-29 12:00:00Z")"#]),
            (json!({"format": "duration"}), json!("P1Y2M3DT4H5M6S"), &[]),
            (json!({"format": "duration"}), json!("P1Y3D"), &[r#"/x: must be a valid duration (got "P1Y3D")"#]),
            (json!({"format": "uri"}), json!("https://example.com/a?b=c#d"), &[]),
            (json!({"format": "uri"}), json!("/relative"), &[r#"/x: must be a valid uri (got "/relative")"#]),
            // unknown formats annotate; a format applies to strings only
            (json!({"format": "email"}), json!("not an email"), &[]),
            (json!({"format": "ipv4"}), json!(5), &[]),
        ];
        table(rows);
    }

    #[test]
    fn integer_formats() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &[&str])> = vec![
            (json!({"type": "integer", "format": "int64"}), json!(9223372036854775807i64), &[]),
            (json!({"type": "integer", "format": "int64"}), json!(9223372036854775808u64), &["/x: must be <= 9223372036854775807 (got 9223372036854775808)"]),
            // -9223372036854775809 parses as the float -2^63: out of range, not clamped to i64::MIN
            (json!({"type": "integer", "format": "int64"}), serde_json::from_str::<Value>("-9223372036854775809").unwrap(), &["/x: must be >= -9223372036854775808 (got -9.223372036854776e+18)"]),
            (json!({"type": "integer", "format": "int64"}), json!(9007199254740992.0), &["/x: must be an integer literal: a float this large is not exact (got 9007199254740992.0)"]),
            (json!({"type": "integer", "format": "int64"}), json!(9007199254740991.0), &[]),
            (json!({"type": "integer", "format": "int64"}), json!(1.5), &["/x: must be an integer (got 1.5)"]),
            (json!({"type": "integer", "format": "uint64"}), json!(18446744073709551615u64), &[]),
            (json!({"type": "integer", "format": "uint64"}), json!(1.8446744073709552e19), &["/x: must be <= 18446744073709551615 (got 1.8446744073709552e+19)"]),
            (json!({"type": "integer", "format": "uint64"}), json!(-1), &["/x: must be >= 0 (got -1)"]),
            (json!({"type": "integer", "format": "uint8"}), json!(256), &["/x: must be <= 255 (got 256)"]),
            (json!({"type": "integer", "format": "uint8"}), json!(255.0), &[]),
            (json!({"type": "integer", "format": "int8"}), json!(-1e300), &["/x: must be >= -128 (got -1e+300)"]),
            (json!({"type": "integer", "format": "int32"}), json!(-2147483649i64), &["/x: must be >= -2147483648 (got -2147483649)"]),
            // without a format, today's rules
            (json!({"type": "integer"}), json!(9007199254740992.0), &["/x: must be an integer literal: a float this large is not exact (got 9007199254740992.0)"]),
        ];
        table(rows);
    }
}
