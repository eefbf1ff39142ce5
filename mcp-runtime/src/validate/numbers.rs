//! Numbers compared exactly, whatever their representation: `u64`, `i64` or `f64`.

use std::cmp::Ordering;

use serde_json::Number;

/// A JSON number compared exactly, whatever its representation.
#[derive(Debug, Clone, Copy)]
pub(super) enum Num {
    /// Non-negative integers.
    U(u64),
    /// Negative integers.
    I(i64),
    /// Everything serde_json keeps as a float.
    F(f64),
}

impl Num {
    #[inline]
    pub(super) fn of(n: &Number) -> Num {
        if let Some(u) = n.as_u64() {
            Num::U(u)
        } else if let Some(i) = n.as_i64() {
            Num::I(i)
        } else {
            Num::F(n.as_f64().unwrap_or(f64::NAN))
        }
    }

    fn int(self) -> Option<i128> {
        match self {
            Num::U(u) => Some(u as i128),
            Num::I(i) => Some(i as i128),
            Num::F(_) => None,
        }
    }

    #[inline]
    pub(super) fn cmp(self, other: Num) -> Ordering {
        match (self.int(), other.int(), self, other) {
            (Some(a), Some(b), _, _) => a.cmp(&b),
            (Some(a), None, _, Num::F(b)) => cmp_int_float(a, b),
            (None, Some(b), Num::F(a), _) => cmp_int_float(b, a).reverse(),
            (_, _, Num::F(a), Num::F(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            _ => unreachable!("every Num is an integer or a float"),
        }
    }

    pub(super) fn is_multiple_of(self, m: Num) -> bool {
        // An integral float is an exact integer: dividing it as one keeps every digit of the
        // other side (`4774500890372042018` is not a multiple of `3.0`, though as a float it is).
        let exact = |n: Num| {
            n.int().or(match n {
                Num::F(f) if f.fract() == 0.0 && f.abs() < 1.0e38 => Some(f as i128),
                _ => None,
            })
        };
        match (exact(self), exact(m)) {
            (Some(_), Some(0)) => false,
            (Some(a), Some(b)) => a % b == 0,
            _ => {
                let (a, b) = (self.as_f64(), m.as_f64());
                if m.int().is_some() || b.fract() == 0.0 {
                    // fmod is exact in binary floating point.
                    a % b == 0.0
                } else {
                    // A fractional divisor: divide the decimal values the JSON text names, not
                    // their binary approximations (0.3 is a multiple of 0.1; 0.3 / 0.1 in floats
                    // is 2.9999999999999996).
                    decimal_multiple(a, b)
                }
            }
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Num::U(u) => u as f64,
            Num::I(i) => i as f64,
            Num::F(f) => f,
        }
    }
}

/// A finite float as the shortest decimal that reads back as it: `mantissa × 10^exponent`.
fn decimal(f: f64) -> Option<(u128, i32)> {
    let text = format!("{:e}", f.abs());
    let (digits, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let mantissa: u128 = format!("{whole}{fraction}").parse().ok()?;
    Some((mantissa, exponent - fraction.len() as i32))
}

/// Whether `a / b` is an integer for the decimals `a` and `b` name (`b > 0`), exactly.
fn decimal_multiple(a: f64, b: f64) -> bool {
    let (Some((ma, ea)), Some((mb, eb))) = (decimal(a), decimal(b)) else {
        return false;
    };
    if ma == 0 {
        return true;
    }
    if mb == 0 {
        return false;
    }
    if ea >= eb {
        // ma × 10^(ea-eb) mod mb, by modular exponentiation: mb < 10^17, so products fit u128.
        let mut rest = ma % mb;
        let mut base = 10 % mb;
        let mut k = (ea - eb) as u32;
        while k > 0 && rest != 0 {
            if k & 1 == 1 {
                rest = rest * base % mb;
            }
            base = base * base % mb;
            k >>= 1;
        }
        rest == 0
    } else {
        // ma must be a multiple of mb × 10^(eb-ea); ma < 10^17.
        10u128
            .checked_pow((eb - ea) as u32)
            .and_then(|p| p.checked_mul(mb))
            .is_some_and(|divisor| ma % divisor == 0)
    }
}

/// Compares an integer in `[-2^63, 2^64)` with a finite float, exactly.
fn cmp_int_float(a: i128, b: f64) -> Ordering {
    if b.is_nan() {
        return Ordering::Equal;
    }
    if b >= 18_446_744_073_709_551_616.0 {
        return Ordering::Less;
    }
    if b < -9_223_372_036_854_775_808.0 {
        return Ordering::Greater;
    }
    let floor = b.floor();
    match a.cmp(&(floor as i128)) {
        Ordering::Equal if b > floor => Ordering::Less,
        o => o,
    }
}

/// An integral float as an integer Number, when it fits one.
pub(super) fn integral(f: f64) -> Option<Number> {
    if f.fract() != 0.0 || !f.is_finite() {
        return None;
    }
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Some(Number::from(f as i64))
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(Number::from(f as u64))
    } else {
        None
    }
}

/// The bound of a 64-bit integer type that an integral float beyond it breaks, unless the
/// schema declares that side's bound itself (`min`, `has_max`). The schema profile publishes no
/// bound beyond 2^53, so an integer type without a maximum is `i64` (no minimum either) or `u64`
/// (`minimum: 0`): `(">=", "-9223372036854775808")` at or below -2^63, `("<=",
/// "9223372036854775807")` at or above 2^63 without a minimum, and `("<=",
/// "18446744073709551615")` at or above 2^64 with a non-negative one. (-2^63 is where
/// serde_json puts every negative literal beyond 64 bits, `-9223372036854775809` included.)
pub(super) fn beyond_64_bits(
    f: f64,
    min: Option<Num>,
    has_max: bool,
) -> Option<(&'static str, &'static str)> {
    let unsigned = min.is_some_and(|m| m.cmp(Num::U(0)) != Ordering::Less);
    if f <= -9_223_372_036_854_775_808.0 && min.is_none() {
        Some((">=", "-9223372036854775808"))
    } else if has_max {
        None
    } else if unsigned && f >= 18_446_744_073_709_551_616.0 {
        Some(("<=", "18446744073709551615"))
    } else if !unsigned && f >= 9_223_372_036_854_775_808.0 {
        Some(("<=", "9223372036854775807"))
    } else {
        None
    }
}

/// serde's refusal of an integer outside a Rust integer type (`invalid value: integer
/// `9223372036854775808`, expected i64`), reworded as the bound it breaks: `must be <=
/// 9223372036854775807 (got 9223372036854775808)`. `None` for any other message.
pub fn integer_out_of_range(serde_message: &str) -> Option<String> {
    let rest = serde_message.strip_prefix("invalid value: integer `")?;
    let (got, ty) = rest.split_once("`, expected ")?;
    let (lo, hi): (i128, i128) = match ty {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        "isize" => (isize::MIN as i128, isize::MAX as i128),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        "usize" => (0, usize::MAX as i128),
        _ => return None,
    };
    let n: i128 = got.parse().ok()?;
    if n < lo {
        Some(format!("must be >= {lo} (got {got})"))
    } else if n > hi {
        Some(format!("must be <= {hi} (got {got})"))
    } else {
        None
    }
}

#[inline]
pub(super) fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `multipleOf` with a fractional divisor divides decimals, as the JSON text names them
    /// (found by the differential fuzzer: 0.3 against 0.1, f64::MAX against 0.001).
    #[test]
    fn fractional_multiples_are_decimal() {
        for (a, b, multiple) in [
            (0.3, 0.1, true),
            (0.07, 0.01, true),
            (1.7976931348623157e308, 0.001, true),
            (0.35, 0.1, false),
            (1e-5, 0.001, false),
            (0.0, 0.3, true),
            (2.5, 0.5, true),
            (123.456, 0.001, true),
            (123.4565, 0.001, false),
            (1e21, 0.7, false),
            (7e21, 0.7, true),
        ] {
            assert_eq!(
                Num::F(a).is_multiple_of(Num::F(b)),
                multiple,
                "{a} multipleOf {b}"
            );
        }
        // An integer beyond 2^53 against an integral float divisor: divided exactly (found by
        // the differential fuzzer).
        for (a, b, multiple) in [
            (Num::U(4774500890372042018), Num::F(3.0), false),
            (Num::U(4774500890372042018), Num::F(2.0), true),
            (Num::F(1e20), Num::U(3), false),
            (Num::F(1e20), Num::U(5), true),
        ] {
            assert_eq!(a.is_multiple_of(b), multiple, "{a:?} multipleOf {b:?}");
        }
    }

    #[test]
    fn serde_range_refusals_name_the_bound() {
        for (message, expected) in [
            (
                "invalid value: integer `9223372036854775808`, expected i64",
                Some("must be <= 9223372036854775807 (got 9223372036854775808)"),
            ),
            (
                "invalid value: integer `-1`, expected u64",
                Some("must be >= 0 (got -1)"),
            ),
            (
                "invalid value: integer `256`, expected u8",
                Some("must be <= 255 (got 256)"),
            ),
            (
                "invalid value: integer `-129`, expected i8",
                Some("must be >= -128 (got -129)"),
            ),
            (
                "invalid value: integer `18446744073709551615`, expected isize",
                Some("must be <= 9223372036854775807 (got 18446744073709551615)"),
            ),
            ("invalid value: integer `5`, expected i64", None),
            ("invalid value: integer `0`, expected a nonzero u8", None),
            ("invalid type: string \"x\", expected i64", None),
        ] {
            assert_eq!(
                integer_out_of_range(message).as_deref(),
                expected,
                "{message}"
            );
        }
    }

    #[test]
    fn floats_beyond_64_bits_name_the_types_bound_unless_the_schema_has_one() {
        let (zero, negative) = (Some(Num::U(0)), Some(Num::I(-5)));
        assert_eq!(
            beyond_64_bits(-9223372036854775808.0, None, false),
            Some((">=", "-9223372036854775808"))
        );
        assert_eq!(beyond_64_bits(-1e300, negative, false), None);
        // i64 (no minimum, no maximum published).
        assert_eq!(
            beyond_64_bits(18446744073709551616.0, None, false),
            Some(("<=", "9223372036854775807"))
        );
        assert_eq!(
            beyond_64_bits(9223372036854775808.0, negative, false),
            Some(("<=", "9223372036854775807"))
        );
        // u64 (`minimum: 0`): in range up to 2^64, where the float is only inexact.
        assert_eq!(
            beyond_64_bits(18446744073709551616.0, zero, false),
            Some(("<=", "18446744073709551615"))
        );
        assert_eq!(beyond_64_bits(9223372036854775808.0, zero, false), None);
        assert_eq!(beyond_64_bits(9223372036854775808.0, None, true), None);
        assert_eq!(beyond_64_bits(9007199254740994.0, None, false), None);
    }

    #[test]
    fn exact_number_comparison() {
        use Ordering::*;
        for (a, b, o) in [
            (Num::U(1), Num::F(1.0), Equal),
            (Num::U(u64::MAX), Num::F(18446744073709551616.0), Less),
            (Num::I(i64::MIN), Num::F(-9223372036854775808.0), Equal),
            (Num::I(i64::MIN), Num::F(-1e19), Greater),
            (
                Num::U(9007199254740993),
                Num::F(9007199254740992.0),
                Greater,
            ),
            (Num::I(-1), Num::F(-0.5), Less),
            (Num::U(0), Num::F(-0.0), Equal),
            (Num::F(0.1), Num::F(0.2), Less),
            (Num::I(-5), Num::U(3), Less),
        ] {
            assert_eq!(a.cmp(b), o, "{a:?} vs {b:?}");
            assert_eq!(b.cmp(a), o.reverse(), "{b:?} vs {a:?}");
        }
    }
}
