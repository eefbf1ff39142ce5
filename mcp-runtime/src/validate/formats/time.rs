//! Dates and times: `date`, `time`, `date-time` (RFC 3339 §5.6, a leap second only at 23:59
//! UTC) and `duration` (RFC 3339 Appendix A).

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |n, c| {
        c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
    })
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, the day within its month (leap years included).
pub(super) fn is_date(s: &str) -> bool {
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
pub(super) fn is_time(s: &str) -> bool {
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
pub(super) fn is_duration(s: &str) -> bool {
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

/// RFC 3339 `date-time`: a `full-date`, `T` (either case), a `full-time`.
pub(super) fn is_date_time(s: &str) -> bool {
    match s.find(['T', 't']) {
        Some(i) => is_date(&s[..i]) && is_time(&s[i + 1..]),
        None => false,
    }
}
