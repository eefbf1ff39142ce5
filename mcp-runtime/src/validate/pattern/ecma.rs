//! ECMA-262 patterns (`u` flag, as JSON Schema validators read them) translated to the syntax of
//! the `regex` crate, whose engines run in time linear in the input, or, for the constructs a
//! finite automaton cannot express (look-around, backreferences, a multiline modifier), to
//! `fancy-regex`'s syntax, which runs them by backtracking under a step budget.
//!
//! The source is first accepted by `regress` (an ECMA-262 engine), so this parser only has to
//! read valid patterns; anything it does not expect is still refused rather than guessed.
//!
//! ECMA-262 meanings kept where the `regex` crate's differ:
//! - `\d`, `\w`, `\b` are ASCII (`[0-9]`, `[0-9A-Za-z_]`), not Unicode;
//! - `\s` is ECMA-262's WhiteSpace and LineTerminator set, not Unicode's `White_Space`;
//! - `.` excludes the four line terminators `\n`, `\r`, U+2028 and U+2029 (all of them with `s`);
//! - `^` and `$` under the `m` modifier stop at those four terminators;
//! - case-insensitivity (`(?i:…)`) is simple case folding in both;
//! - an escaped lone surrogate (`\uD800`) can never match a Rust string.
//!
//! Every literal is written as `\x{…}`, so no character of the source is ever read as syntax by
//! the engine it is handed to.

use std::fmt::Write;

use super::sets::{Item, NOTHING};

/// What the translation needs: a finite automaton (linear time), or a backtracking engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Translation {
    /// The pattern in the target engine's syntax.
    pub(crate) source: String,
    /// `true` when `source` is for the `regex` crate; `false` for `fancy-regex`.
    pub(crate) linear: bool,
    /// What makes it non-linear, for the developer's warning (`None` when linear).
    pub(crate) reason: Option<&'static str>,
}

const LINE_END: &str = r"\x{A}\x{D}\x{2028}\x{2029}";

/// Translates a pattern `regress` accepted with the `u` flag.
pub(crate) fn translate(source: &str) -> Result<Translation, String> {
    let chars: Vec<char> = source.chars().collect();
    let scan = prescan(&chars);
    let mut p = Parser {
        chars: &chars,
        pos: 0,
        out: String::with_capacity(source.len() * 2),
        linear: scan.reason.is_none(),
        names: scan.names,
        flags: Flags::default(),
    };
    p.disjunction()?;
    if p.pos != chars.len() {
        return Err(p.unexpected());
    }
    Ok(Translation {
        source: p.out,
        linear: scan.reason.is_none(),
        reason: scan.reason,
    })
}

/// Modifiers in force: `i` (case-insensitive), `m` (multiline `^`/`$`), `s` (`.` matches all).
#[derive(Debug, Clone, Copy, Default)]
struct Flags {
    m: bool,
    s: bool,
}

struct Scan {
    /// The capturing groups' names, by group number (1-based: index 0 is group 1).
    pub(super) names: Vec<Option<String>>,
    reason: Option<&'static str>,
}

/// One pass over the source for what the translation depends on before it starts: the
/// capturing groups in order (backreferences name them by number) and whether anything needs
/// the backtracking engine.
fn prescan(chars: &[char]) -> Scan {
    let mut names = Vec::new();
    let mut reason = None;
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let at = |k: usize| chars.get(i + k).copied();
        match chars[i] {
            '\\' => {
                if !in_class {
                    match at(1) {
                        Some('1'..='9') => reason = reason.or(Some("a backreference")),
                        Some('k') => reason = reason.or(Some("a named backreference")),
                        _ => {}
                    }
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => match (at(1), at(2), at(3)) {
                (Some('?'), Some('=' | '!'), _) => reason = reason.or(Some("a look-ahead")),
                (Some('?'), Some('<'), Some('=' | '!')) => {
                    reason = reason.or(Some("a look-behind"));
                }
                (Some('?'), Some('<'), _) => {
                    let name: String = chars[i + 3..].iter().take_while(|&&c| c != '>').collect();
                    names.push(Some(name));
                }
                (Some('?'), ..) => {
                    // A modifier group: `m` turned on needs look-around for `^` and `$`.
                    let mods = chars[i + 2..].iter().take_while(|&&c| c != ':' && c != '-');
                    if mods.clone().any(|&c| c == 'm') {
                        reason = reason.or(Some("the multiline modifier"));
                    }
                }
                _ => names.push(None),
            },
            _ => {}
        }
        i += 1;
    }
    Scan { names, reason }
}

pub(super) struct Parser<'a> {
    pub(super) chars: &'a [char],
    pub(super) pos: usize,
    pub(super) out: String,
    pub(super) linear: bool,
    names: Vec<Option<String>>,
    flags: Flags,
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    pub(super) fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        self.pos += usize::from(hit);
        hit
    }

    pub(super) fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn unexpected(&self) -> String {
        match self.peek() {
            Some(c) => format!("unexpected {c:?} at character {}", self.pos),
            None => "unexpected end of pattern".into(),
        }
    }

    fn disjunction(&mut self) -> Result<(), String> {
        self.alternative()?;
        while self.eat('|') {
            self.out.push('|');
            self.alternative()?;
        }
        Ok(())
    }

    fn alternative(&mut self) -> Result<(), String> {
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let start = self.out.len();
            let quantifiable = self.term()?;
            if quantifiable && matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
                if !self.linear {
                    // `fancy-regex` repeats no empty or look-around group: an empty match
                    // joined to the target changes nothing and makes it repeatable.
                    self.out.insert_str(start, "(?:");
                    self.out.push_str(r"\x{0}{0})");
                }
                self.quantifier()?;
            }
        }
        Ok(())
    }

    /// One assertion or atom; `true` when a quantifier may follow.
    fn term(&mut self) -> Result<bool, String> {
        let Some(c) = self.peek() else {
            return Err(self.unexpected());
        };
        self.pos += 1;
        match c {
            '^' => {
                let s = if self.flags.m {
                    "(?:^|(?<=[\\x{A}\\x{D}\\x{2028}\\x{2029}]))"
                } else {
                    "^"
                };
                self.out.push_str(s);
                Ok(false)
            }
            '$' => {
                let s = if self.flags.m {
                    "(?:$|(?=[\\x{A}\\x{D}\\x{2028}\\x{2029}]))"
                } else {
                    "$"
                };
                self.out.push_str(s);
                Ok(false)
            }
            '.' => {
                if self.flags.s {
                    self.out.push_str("(?s:.)");
                } else {
                    let _ = write!(self.out, "[^{LINE_END}]");
                }
                Ok(true)
            }
            '(' => self.group(),
            '[' => {
                self.class()?;
                Ok(true)
            }
            '\\' => self.atom_escape(),
            '*' | '+' | '?' | '{' | '}' | ']' | ')' | '|' => {
                self.pos -= 1;
                Err(self.unexpected())
            }
            c => {
                literal(&mut self.out, c);
                Ok(true)
            }
        }
    }

    fn group(&mut self) -> Result<bool, String> {
        if !self.eat('?') {
            self.out.push_str(if self.linear { "(?:" } else { "(" });
            return self.group_body(true);
        }
        match self.peek() {
            Some(':') => {
                self.pos += 1;
                self.out.push_str("(?:");
                self.group_body(true)
            }
            Some('=' | '!') => {
                let c = self.chars[self.pos];
                self.pos += 1;
                let _ = write!(self.out, "(?{c}");
                // ECMA-262 with `u` allows no quantifier on a look-ahead.
                self.group_body(false)
            }
            Some('<') if matches!(self.peek_at(1), Some('=' | '!')) => {
                let c = self.chars[self.pos + 1];
                self.pos += 2;
                let _ = write!(self.out, "(?<{c}");
                self.group_body(false)
            }
            Some('<') => {
                while self.peek().is_some_and(|c| c != '>') {
                    self.pos += 1;
                }
                self.expect('>')?;
                self.out.push_str(if self.linear { "(?:" } else { "(" });
                self.group_body(true)
            }
            _ => self.modifiers(),
        }
    }

    /// `(?ims-ims:…)`: `i` is handed to the engine; `m` and `s` change how `^`, `$` and `.` are
    /// written inside the group.
    fn modifiers(&mut self) -> Result<bool, String> {
        let saved = self.flags;
        let (mut on, mut off) = (String::new(), String::new());
        let mut adding = true;
        loop {
            match self.peek() {
                Some(':') => break,
                Some('-') if adding => adding = false,
                Some(c @ ('i' | 'm' | 's')) => match c {
                    'm' => self.flags.m = adding,
                    's' => self.flags.s = adding,
                    _ => (if adding { &mut on } else { &mut off }).push('i'),
                },
                _ => return Err(self.unexpected()),
            }
            self.pos += 1;
        }
        self.pos += 1;
        self.out.push_str("(?");
        self.out.push_str(&on);
        if !off.is_empty() {
            self.out.push('-');
            self.out.push_str(&off);
        }
        self.out.push(':');
        let r = self.group_body(true);
        self.flags = saved;
        r
    }

    fn group_body(&mut self, quantifiable: bool) -> Result<bool, String> {
        self.disjunction()?;
        self.expect(')')?;
        self.out.push(')');
        Ok(quantifiable)
    }

    fn quantifier(&mut self) -> Result<(), String> {
        match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.pos += 1;
                self.out.push(c);
            }
            Some('{') => {
                self.pos += 1;
                let min = self.number()?;
                let _ = write!(self.out, "{{{min}");
                if self.eat(',') {
                    self.out.push(',');
                    if self.peek() != Some('}') {
                        let max = self.number()?;
                        let _ = write!(self.out, "{max}");
                    }
                }
                self.expect('}')?;
                self.out.push('}');
            }
            _ => return Ok(()),
        }
        if self.eat('?') {
            self.out.push('?');
        }
        Ok(())
    }

    fn number(&mut self) -> Result<u32, String> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        digits
            .parse()
            .map_err(|_| format!("repetition count {digits:?} out of range"))
    }

    /// After a `\` outside a class.
    fn atom_escape(&mut self) -> Result<bool, String> {
        let Some(c) = self.peek() else {
            return Err(self.unexpected());
        };
        match c {
            'b' | 'B' => {
                self.pos += 1;
                let s = match (self.linear, c) {
                    (true, 'b') => r"(?-u:\b)",
                    (true, _) => r"(?-u:\B)",
                    (false, 'b') => {
                        "(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))"
                    }
                    (false, _) => {
                        "(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))"
                    }
                };
                self.out.push_str(s);
                Ok(false)
            }
            '1'..='9' => {
                let n = self.number()? as usize;
                // ECMA-262: a group that did not take part matches the empty string.
                let _ = write!(self.out, "(?({n})\\{n}|)");
                Ok(true)
            }
            'k' => {
                self.pos += 1;
                self.expect('<')?;
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '>') {
                    self.pos += 1;
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                self.expect('>')?;
                let groups: Vec<usize> = (self.names.iter().enumerate())
                    .filter(|(_, n)| n.as_deref() == Some(name.as_str()))
                    .map(|(i, _)| i + 1)
                    .collect();
                if groups.is_empty() {
                    return Err(format!("no group named {name:?}"));
                }
                self.out.push_str("(?:");
                for (k, g) in groups.iter().enumerate() {
                    let bar = if k == 0 { "" } else { "|" };
                    let _ = write!(self.out, "{bar}(?({g})\\{g}|)");
                }
                self.out.push(')');
                Ok(true)
            }
            _ => {
                let mut class = String::new();
                match self.class_escape(&mut class)? {
                    Item::Cp(c) => match char::from_u32(c) {
                        Some(c) => literal(&mut self.out, c),
                        None => self.out.push_str(NOTHING),
                    },
                    Item::Set => {
                        let _ = write!(self.out, "[{class}]");
                    }
                }
                Ok(true)
            }
        }
    }
}

fn literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || c == '_' {
        out.push(c);
    } else {
        let _ = write!(out, "\\x{{{:X}}}", c as u32);
    }
}
