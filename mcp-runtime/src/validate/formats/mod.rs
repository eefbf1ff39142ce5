//! `format`: every string format of JSON Schema 2020-12 (§7.3) is asserted, each by the RFC it
//! names (`net.rs`, `uri.rs`, `time.rs`, `pointer.rs`), and so are the integer formats schemars
//! publishes for Rust's integer types. A format neither knows nor the server registered
//! ([`super::Formats`]) is reported when the schema is compiled, so the server refuses to
//! publish a promise nobody keeps. `custom.rs` holds [`super::Formats`], the formats a server
//! defines.
//!
//! Integers: `int8` … `int64`, `uint8` … `uint64`, `int`/`uint` (`isize`/`usize`, 64 bits),
//! `int128`/`uint128` (what `serde_json::Value` holds: `i64::MIN..=u64::MAX`). A value outside
//! the range is refused naming the bound, never clamped; a float at or beyond 2^53 within the
//! range is refused as inexact (serde_json parses every integer literal that fits 64 bits as an
//! integer, so such a float was written with a fraction or an exponent and may have been rounded).

mod custom;
mod net;
mod pointer;
mod time;
mod uri;

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Number;

pub use self::custom::{FormatCheck, Formats};

use super::numbers::Num;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StrFormat {
    Email,
    IdnEmail,
    Hostname,
    IdnHostname,
    Ipv4,
    Ipv6,
    Ip,
    Uri,
    UriReference,
    Iri,
    IriReference,
    UriTemplate,
    Uuid,
    Date,
    Time,
    DateTime,
    Duration,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

/// The string formats asserted, by name: the whole JSON Schema 2020-12 vocabulary (§7.3), and
/// `ip` (either address family), which schemars publishes for `IpAddr` and the schema profile
/// rewrites into the standard `ipv4`/`ipv6`.
pub(super) const STRING_FORMATS: [(&str, StrFormat); 20] = [
    ("email", StrFormat::Email),
    ("idn-email", StrFormat::IdnEmail),
    ("hostname", StrFormat::Hostname),
    ("idn-hostname", StrFormat::IdnHostname),
    ("ipv4", StrFormat::Ipv4),
    ("ipv6", StrFormat::Ipv6),
    ("ip", StrFormat::Ip),
    ("uri", StrFormat::Uri),
    ("uri-reference", StrFormat::UriReference),
    ("iri", StrFormat::Iri),
    ("iri-reference", StrFormat::IriReference),
    ("uri-template", StrFormat::UriTemplate),
    ("uuid", StrFormat::Uuid),
    ("date", StrFormat::Date),
    ("time", StrFormat::Time),
    ("date-time", StrFormat::DateTime),
    ("duration", StrFormat::Duration),
    ("json-pointer", StrFormat::JsonPointer),
    ("relative-json-pointer", StrFormat::RelativeJsonPointer),
    ("regex", StrFormat::Regex),
];

/// An integer format's range and the bounds as written in messages.
#[derive(Debug, Clone, Copy)]
pub(super) struct IntFormat {
    pub(super) lo: i128,
    pub(super) hi: i128,
    pub(super) lo_text: &'static str,
    pub(super) hi_text: &'static str,
}

pub(super) enum Format {
    Str(StrFormat),
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
    if let Some((_, f)) = STRING_FORMATS.iter().find(|(n, _)| *n == name) {
        return Some(Format::Str(*f));
    }
    match name {
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
    use StrFormat::*;
    match f {
        Email => net::is_email(s, false),
        IdnEmail => net::is_email(s, true),
        Hostname => net::is_hostname(s),
        IdnHostname => net::is_idn_hostname(s),
        Ipv4 => net::is_ipv4(s),
        Ipv6 => net::is_ipv6(s),
        Ip => net::is_ipv4(s) || net::is_ipv6(s),
        Uri => uri::is_uri(s, false, false),
        UriReference => uri::is_uri(s, false, true),
        Iri => uri::is_uri(s, true, false),
        IriReference => uri::is_uri(s, true, true),
        UriTemplate => uri::is_uri_template(s),
        Uuid => pointer::is_uuid(s),
        Date => time::is_date(s),
        Time => time::is_time(s),
        DateTime => time::is_date_time(s),
        Duration => time::is_duration(s),
        JsonPointer => pointer::is_json_pointer(s),
        RelativeJsonPointer => pointer::is_relative_json_pointer(s),
        Regex => pointer::is_regex(s),
    }
}

/// How a node checks its string format.
#[derive(Clone)]
pub(in crate::validate) enum StrCheck {
    Std(StrFormat),
    Custom(FormatCheck),
    /// Any of these (an `anyOf` of formats).
    Any(Vec<StrCheck>),
}

impl StrCheck {
    pub(in crate::validate) fn is_valid(&self, s: &str) -> bool {
        match self {
            StrCheck::Std(f) => is_valid(*f, s),
            StrCheck::Any(checks) => checks.iter().any(|c| c.is_valid(s)),
            StrCheck::Custom(check) => {
                catch_unwind(AssertUnwindSafe(|| check(s))).unwrap_or_else(|_| {
                    tracing::error!("a user-defined format check panicked; the value is refused");
                    false
                })
            }
        }
    }
}

impl std::fmt::Debug for StrCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StrCheck::Std(s) => write!(f, "Std({s:?})"),
            StrCheck::Custom(_) => f.write_str("Custom"),
            StrCheck::Any(checks) => f.debug_tuple("Any").field(checks).finish(),
        }
    }
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
            (json!({"format": "email"}), json!("not an email"), &[r#"/x: must be a valid email (got "not an email")"#]),
            (json!({"format": "email"}), json!("joe@example.com"), &[]),
            // unknown formats annotate here (the server refuses to publish them); a format
            // applies to strings only
            (json!({"format": "sku"}), json!("anything"), &[]),
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
