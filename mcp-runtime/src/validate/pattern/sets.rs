//! The sets both the translator (`ecma.rs`) and its character classes (`class.rs`) use: ECMA-262's
//! `\s`, `\d`, `\w` as `regex` class items, the class that matches nothing, and what a class
//! atom stands for.

/// ECMA-262's `\s`: WhiteSpace (tab, vertical tab, form feed, space, no-break space, zero width
/// no-break space, the `Zs` category) and LineTerminator.
pub(super) const SPACE: &str = r"\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
pub(super) const DIGIT: &str = r"0-9";
pub(super) const WORD: &str = r"0-9A-Za-z_";

/// A class that matches no character.
pub(super) const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";

/// What a class atom or escape stands for.
pub(super) enum Item {
    /// One code point (a lone surrogate among them, which no Rust string holds).
    Cp(u32),
    /// A set, already appended to the class items.
    Set,
}
