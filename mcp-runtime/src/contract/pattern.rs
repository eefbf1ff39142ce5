//! Strings that match an ECMA-262 `pattern`, for the witness generator: the pattern is read by
//! `regex-syntax` (most patterns published in schemas are in the common subset) and walked,
//! each repetition taken at its least, one more, and its most (capped), each alternation at
//! each of its first branches. A pattern outside that subset gives no sample.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Repetitions without a maximum are generated up to this count.
const LONG: u32 = 6;

/// Up to a dozen distinct strings matching `pattern` (none when it cannot be read).
pub(crate) fn samples(pattern: &str) -> Vec<String> {
    let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(pattern) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for reps in [Reps::Least, Reps::More, Reps::Most] {
        for branch in 0..3 {
            let mut s = String::new();
            walk(&hir, reps, branch, &mut s);
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

#[derive(Clone, Copy)]
enum Reps {
    Least,
    More,
    Most,
}

fn walk(hir: &Hir, reps: Reps, branch: usize, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(&String::from_utf8_lossy(&lit.0)),
        HirKind::Class(class) => out.extend(pick(class)),
        HirKind::Repetition(rep) => {
            let n = match (reps, rep.max) {
                (Reps::Least, _) => rep.min,
                (Reps::More, Some(max)) => (rep.min + 1).min(max),
                (Reps::More, None) => rep.min + 1,
                (Reps::Most, Some(max)) => max.min(rep.min + 64),
                (Reps::Most, None) => rep.min.max(LONG),
            };
            for _ in 0..n {
                walk(&rep.sub, reps, branch, out);
            }
        }
        HirKind::Capture(cap) => walk(&cap.sub, reps, branch, out),
        HirKind::Concat(parts) => parts.iter().for_each(|p| walk(p, reps, branch, out)),
        HirKind::Alternation(alts) => walk(&alts[branch % alts.len()], reps, branch, out),
    }
}

/// A printable character of the class, preferring a letter or a digit.
fn pick(class: &Class) -> Option<char> {
    let ranges: Vec<(char, char)> = match class {
        Class::Unicode(c) => c.ranges().iter().map(|r| (r.start(), r.end())).collect(),
        Class::Bytes(c) => c
            .ranges()
            .iter()
            .filter(|r| r.start() < 0x80)
            .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))))
            .collect(),
    };
    for want in ['a', 'x', '0', 'A', '-', ' '] {
        if ranges.iter().any(|(lo, hi)| *lo <= want && want <= *hi) {
            return Some(want);
        }
    }
    ranges
        .iter()
        .find_map(|(lo, hi)| (*lo..=*hi).find(|c| !c.is_control()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_match_their_pattern() {
        for p in [
            r"^T-\d+$",
            r"^[a-z]{2,4}(-[0-9]+)?$",
            r"^(red|green|blue)$",
            r"^bk_\d+$",
        ] {
            let re = regex::Regex::new(p).unwrap();
            let got = samples(p);
            assert!(!got.is_empty(), "{p}");
            for s in got {
                assert!(re.is_match(&s), "{p}: {s:?}");
            }
        }
    }
}
