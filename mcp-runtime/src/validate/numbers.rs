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
        match (self.int(), m.int()) {
            (Some(a), Some(b)) => a % b == 0,
            _ => {
                let (a, b) = (self.as_f64(), m.as_f64());
                if m.int().is_some() || b.fract() == 0.0 {
                    // fmod is exact in binary floating point.
                    a % b == 0.0
                } else {
                    let q = a / b;
                    q.is_finite() && q.fract() == 0.0
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

#[inline]
pub(super) fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

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
