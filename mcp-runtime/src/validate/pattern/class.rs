//! Character classes and escapes of an ECMA-262 pattern, written as `regex` class items.

use std::fmt::Write;

use super::ecma::Parser;
use super::sets::{DIGIT, Item, NOTHING, SPACE, WORD};

impl Parser<'_> {
    /// After a `[`: the class, written as a `regex` class (whose own syntax, nesting and set
    /// operators included, never sees a raw character of the source).
    pub(super) fn class(&mut self) -> Result<(), String> {
        let negated = self.eat('^');
        let mut items = String::new();
        let mut any = false;
        loop {
            match self.peek() {
                None => return Err(self.unexpected()),
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            let lo = self.class_atom(&mut items)?;
            let range = self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None);
            match lo {
                Item::Cp(lo) if range => {
                    self.pos += 1;
                    let mut tmp = String::new();
                    let Item::Cp(hi) = self.class_atom(&mut tmp)? else {
                        return Err("a class escape cannot end a range".into());
                    };
                    any |= push_range(&mut items, lo, hi);
                }
                Item::Cp(c) => any |= push_range(&mut items, c, c),
                Item::Set => any = true,
            }
        }
        match (negated, any) {
            (false, true) => {
                let _ = write!(self.out, "[{items}]");
            }
            (true, true) => {
                let _ = write!(self.out, "[^{items}]");
            }
            (false, false) => self.out.push_str(NOTHING),
            (true, false) => self.out.push_str(r"[\x{0}-\x{10FFFF}]"),
        }
        Ok(())
    }

    fn class_atom(&mut self, items: &mut String) -> Result<Item, String> {
        let Some(c) = self.peek() else {
            return Err(self.unexpected());
        };
        self.pos += 1;
        if c != '\\' {
            return Ok(Item::Cp(c as u32));
        }
        match self.peek() {
            Some('b') => {
                self.pos += 1;
                Ok(Item::Cp(8))
            }
            Some('-') => {
                self.pos += 1;
                Ok(Item::Cp('-' as u32))
            }
            _ => self.class_escape(items),
        }
    }

    /// An escape that stands for a character or a set (both inside and outside classes). A set
    /// is appended to `items` as class items.
    pub(super) fn class_escape(&mut self, items: &mut String) -> Result<Item, String> {
        let Some(c) = self.peek() else {
            return Err(self.unexpected());
        };
        self.pos += 1;
        let set = |items: &mut String, body: &str, negated: bool| {
            let hat = if negated { "^" } else { "" };
            let _ = write!(items, "[{hat}{body}]");
            Ok(Item::Set)
        };
        let ch = |c: u32| Ok(Item::Cp(c));
        match c {
            'd' | 'D' => set(items, DIGIT, c == 'D'),
            'w' | 'W' => set(items, WORD, c == 'W'),
            's' | 'S' => set(items, SPACE, c == 'S'),
            'p' | 'P' => {
                let start = self.pos;
                self.expect('{')?;
                while self.peek().is_some_and(|c| c != '}') {
                    self.pos += 1;
                }
                self.expect('}')?;
                let name: String = self.chars[start + 1..self.pos - 1].iter().collect();
                if !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
                {
                    return Err(format!("unexpected property name {name:?}"));
                }
                let _ = write!(items, "\\{c}{{{name}}}");
                Ok(Item::Set)
            }
            'f' => ch(0xC),
            'n' => ch(0xA),
            'r' => ch(0xD),
            't' => ch(0x9),
            'v' => ch(0xB),
            '0' => ch(0),
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.pos += 1;
                    ch(l as u32 % 32)
                }
                _ => Err(self.unexpected()),
            },
            'x' => {
                let v = self.hex(2)?;
                ch(v)
            }
            'u' => {
                let v = self.unicode_escape()?;
                ch(v)
            }
            c if "^$\\.*+?()[]{}|/".contains(c) => Ok(Item::Cp(c as u32)),
            _ => {
                self.pos -= 1;
                Err(self.unexpected())
            }
        }
    }

    fn hex(&mut self, n: usize) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..n {
            let d = self.peek().and_then(|c| c.to_digit(16));
            let Some(d) = d else {
                return Err(self.unexpected());
            };
            self.pos += 1;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// After `\u`: `{X…}`, or four hex digits, a surrogate pair joined into one code point.
    fn unicode_escape(&mut self) -> Result<u32, String> {
        if self.eat('{') {
            let mut v = 0u32;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                self.pos += 1;
                v = v.saturating_mul(16).saturating_add(d);
            }
            self.expect('}')?;
            return Ok(v);
        }
        let hi = self.hex(4)?;
        if (0xD800..0xDC00).contains(&hi)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let save = self.pos;
            self.pos += 2;
            match self.hex(4) {
                Ok(lo) if (0xDC00..0xE000).contains(&lo) => {
                    return Ok(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
                }
                _ => self.pos = save,
            }
        }
        Ok(hi)
    }
}

/// Appends the range `lo-hi` of code points, surrogates left out; `false` when nothing is left.
fn push_range(items: &mut String, lo: u32, hi: u32) -> bool {
    let mut any = false;
    for (a, b) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi.min(0x10FFFF))] {
        if a <= b {
            let _ = write!(items, "\\x{{{a:X}}}-\\x{{{b:X}}}");
            any = true;
        }
    }
    any
}
