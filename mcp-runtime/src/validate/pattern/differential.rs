//! The translation held to `regress` (an ECMA-262 engine, the one patterns ran on before): on
//! generated patterns and inputs, both must give the same verdict. The inputs lean on the
//! characters where ECMA-262 and the `regex` crate differ (non-ASCII digits and letters, the
//! line terminators, Unicode spaces outside ECMA-262's `\s`, case-folding specials).

use super::Pattern;

/// A small deterministic generator (xorshift), so a failure reproduces from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const ATOMS: &[&str] = &[
    "a",
    "b",
    "A",
    "é",
    "1",
    "-",
    " ",
    "_",
    "k",
    "s",
    ".",
    r"\d",
    r"\D",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    r"\.",
    r"\-",
    r"\u00e9",
    r"\x41",
    r"\u{1F600}",
    r"\uD83D\uDE00",
    r"\p{L}",
    r"\p{Lu}",
    r"\P{Ll}",
    r"\p{Nd}",
    r"\p{Script=Greek}",
    r"\n",
    r"\r",
    r"\t",
    r"\0",
    r"\cJ",
    r"\/",
    "[ab]",
    "[^a-c]",
    r"[\d_]",
    r"[\s\S]",
    "[]",
    "[^]",
    r"[\w-]",
    r"[a\-z]",
    r"[\b]",
    r"[^\W]",
    r"[\u0000-\u007f]",
    "[é-ë]",
    r"[\uD800-\uDFFF]",
    r"[\p{Lu}\d]",
    "[-a]",
    "[.]",
    "[$^]",
];

const ASSERTIONS: &[&str] = &["^", "$", r"\b", r"\B"];

const QUANTIFIERS: &[&str] = &[
    "*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "+?", "??", "{1,3}?",
];

/// The prefixes of a group; the ones after the first four need the backtracking engine.
const GROUPS: &[&str] = &[
    "(", "(?:", "(?i:", "(?s:", "(?-i:", "(?i-s:", "(?=", "(?!", "(?<=", "(?<!", "(?m:",
];

const INPUT: &[&str] = &[
    "a", "b", "A", "B", "é", "É", "1", "١", "-", " ", "_", "k", "K", "\u{212A}", "s", "ſ", "\n",
    "\r", "\u{2028}", "\u{2029}", "\u{85}", "\u{A0}", "\u{FEFF}", "\u{180E}", "\u{3000}", "\t",
    "\u{B}", "\0", "/", ".", "😀", "α", "Ω", "\u{8}", "$", "^",
];

fn term(rng: &mut Rng, depth: u32, out: &mut String, groups: &mut u32, fancy: bool) {
    match rng.below(10) {
        0 => out.push_str(rng.pick(ASSERTIONS)),
        1 | 2 if depth < 3 => {
            let kinds = if fancy { GROUPS.len() } else { 6 };
            let open = GROUPS[rng.below(kinds)];
            let capturing = open == "(";
            out.push_str(open);
            if capturing {
                *groups += 1;
            }
            disjunction(rng, depth + 1, out, groups, fancy);
            out.push(')');
            // ECMA-262 with `u` quantifies no look-around.
            let look = ["(?=", "(?!", "(?<"].iter().any(|p| open.starts_with(p));
            if rng.below(2) == 0 && !look {
                out.push_str(rng.pick(QUANTIFIERS));
            }
        }
        3 if fancy && *groups > 0 => {
            let n = 1 + rng.below(*groups as usize);
            out.push_str(&format!("\\{n}"));
        }
        _ => {
            out.push_str(rng.pick(ATOMS));
            if rng.below(3) == 0 {
                out.push_str(rng.pick(QUANTIFIERS));
            }
        }
    }
}

fn disjunction(rng: &mut Rng, depth: u32, out: &mut String, groups: &mut u32, fancy: bool) {
    for alt in 0..1 + rng.below(2) {
        if alt > 0 {
            out.push('|');
        }
        for _ in 0..rng.below(4) {
            term(rng, depth, out, groups, fancy);
        }
    }
}

fn input(rng: &mut Rng) -> String {
    (0..rng.below(7)).map(|_| rng.pick(INPUT)).collect()
}

/// Runs `patterns` generated patterns against `inputs` inputs each; returns the disagreements.
fn run(seed: u64, patterns: usize, inputs: usize, fancy: bool) -> (usize, Vec<String>) {
    let mut rng = Rng(seed);
    let mut compared = 0;
    let mut failures = Vec::new();
    for _ in 0..patterns {
        let mut source = String::new();
        disjunction(&mut rng, 0, &mut source, &mut 0, fancy);
        let Ok(oracle) = regress::Regex::with_flags(&source, "u") else {
            continue;
        };
        let ours = match Pattern::compile(&source, "#") {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{source:?}: regress accepts it, we refuse: {e}"));
                continue;
            }
        };
        for _ in 0..inputs {
            let s = input(&mut rng);
            // `regress` tries zero-width matches inside a multi-byte character too (`\B` in
            // the middle of an emoji); ECMA-262 with `u` matches between code points only.
            let want = (oracle.find_iter(&s))
                .any(|m| s.is_char_boundary(m.start()) && s.is_char_boundary(m.end()));
            compared += 1;
            match ours.is_match(&s) {
                Ok(got) if got == want => {}
                got => failures.push(format!(
                    "{source:?} on {s:?}: regress {want}, ours {got:?} ({:?})",
                    ours.engine
                )),
            }
        }
    }
    (compared, failures)
}

/// Fails with the first disagreements, if any.
fn agree(seed: u64, fancy: bool) {
    let (compared, failures) = run(seed, 800, 40, fancy);
    assert!(compared > 10_000, "only {compared} comparisons");
    assert!(
        failures.is_empty(),
        "{} of {compared} disagree:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn translation_agrees_with_regress_on_generated_patterns() {
    agree(0x9E37_79B9_7F4A_7C15, false);
}

#[test]
fn look_around_and_backreferences_agree_with_regress() {
    agree(0xD1B5_4A32_D192_ED03, true);
}
