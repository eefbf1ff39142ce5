//! Names and addresses: `email` (RFC 5321 §4.1.2 `Mailbox`), `idn-email` (RFC 6531 §3.3),
//! `hostname` (RFC 1123 §2.1, with RFC 5891 §4.2.3.1 on A-labels), `idn-hostname` (RFC 5890,
//! RFC 5891 §5.4, RFC 5892), `ipv4` (RFC 2673 §3.2 dotted-quad) and `ipv6` (RFC 4291 §2.2).

use std::net::{Ipv4Addr, Ipv6Addr};

use unicode_general_category::{GeneralCategory as Gc, get_general_category};

/// A dotted-quad of four decimal octets without leading zeros (std's parser is exactly that).
pub(super) fn is_ipv4(s: &str) -> bool {
    s.parse::<Ipv4Addr>().is_ok()
}

/// The RFC 4291 §2.2 text forms, `::` compression and a trailing dotted-quad included; no zone.
pub(super) fn is_ipv6(s: &str) -> bool {
    s.parse::<Ipv6Addr>().is_ok()
}

/// RFC 1123 §2.1: dot-separated labels of letters, digits and hyphens, 1 to 63 characters each,
/// neither starting nor ending with a hyphen; at most 253 characters in all (255 octets on the
/// wire). A label with `--` in its third and fourth places must be an A-label (`xn--`) whose
/// Punycode decodes to a valid U-label (RFC 5891 §4.2.3.1, RFC 5890 §2.3.2.1).
pub(super) fn is_hostname(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(|l| ldh_label(l) && a_label_ok(l))
}

fn ldh_label(l: &str) -> bool {
    let b = l.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
}

fn a_label_ok(l: &str) -> bool {
    let b = l.as_bytes();
    if b.len() < 4 || &b[2..4] != b"--" {
        return true;
    }
    if !b[..2].eq_ignore_ascii_case(b"xn") {
        return false;
    }
    match idna::punycode::decode_to_string(&l[4..]) {
        Some(u) => !u.is_empty() && !u.is_ascii() && is_u_label(&u),
        None => false,
    }
}

/// RFC 5890 §2.3.2.1 and RFC 5891 §5.4: the string, with `.` (or the ideographic full stops
/// RFC 3490 §3.1 admits) between labels, is a sequence of U-labels and LDH labels. UTS 46 (the
/// `idna` crate) checks Punycode, hyphens, joiners (CONTEXTJ) and bidi and makes the A-label
/// form; the input must already be that form's Unicode (no mapping: upper case or compatibility
/// characters are not U-labels), every code point must be a letter, mark or digit (RFC 5892
/// §2.1) and the CONTEXTO rules of RFC 5892 Appendix A hold.
pub(super) fn is_idn_hostname(s: &str) -> bool {
    let dotted: String = s
        .chars()
        .map(|c| match c {
            '\u{3002}' | '\u{FF0E}' | '\u{FF61}' => '.',
            c => c,
        })
        .collect();
    if dotted.is_empty() || dotted.ends_with('.') {
        return false;
    }
    let Ok(ascii) = idna::domain_to_ascii_strict(&dotted) else {
        return false;
    };
    if !is_hostname(&ascii) {
        return false;
    }
    dotted.split('.').all(|label| {
        label.is_ascii() || (label.chars().all(|c| !c.is_uppercase()) && is_u_label(label))
    })
}

/// A label of Unicode letters, marks and digits (and the ASCII hyphen) that UTS 46 leaves as it
/// is, with IDNA 2008's exceptions and contextual rules.
fn is_u_label(label: &str) -> bool {
    let (unicode, ok) = idna::domain_to_unicode(label);
    if ok.is_err() || unicode != label.to_ascii_lowercase() || label.contains('.') {
        return false;
    }
    // RFC 5891 §4.2.3.1: no hyphen first or last, none in both the third and fourth places.
    if label.starts_with('-') || label.ends_with('-') || label.get(2..4) == Some("--") {
        return false;
    }
    let chars: Vec<char> = label.chars().collect();
    chars
        .iter()
        .enumerate()
        .all(|(i, &c)| pvalid(c) && context_ok(&chars, i))
}

/// RFC 5892 §2.1 LetterDigits and §2.6 Exceptions (the DISALLOWED ones refused; CONTEXTJ and
/// CONTEXTO ones let through to their rules).
fn pvalid(c: char) -> bool {
    match c {
        '-' | '0'..='9' | 'a'..='z' => true,
        '\u{00DF}' | '\u{03C2}' | '\u{06FD}' | '\u{06FE}' | '\u{0F0B}' | '\u{3007}' => true,
        '\u{0640}'
        | '\u{07FA}'
        | '\u{302E}'
        | '\u{302F}'
        | '\u{3031}'..='\u{3035}'
        | '\u{303B}' => false,
        '\u{00B7}' | '\u{0375}' | '\u{05F3}' | '\u{05F4}' | '\u{30FB}' => true,
        '\u{200C}' | '\u{200D}' => true,
        c if c.is_ascii() => false,
        c => matches!(
            get_general_category(c),
            Gc::LowercaseLetter
                | Gc::OtherLetter
                | Gc::DecimalNumber
                | Gc::ModifierLetter
                | Gc::NonspacingMark
                | Gc::SpacingMark
        ),
    }
}

/// RFC 5892 Appendix A's CONTEXTO rules (A.3 to A.9); CONTEXTJ (A.1, A.2) is UTS 46's.
fn context_ok(label: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| label[j]);
    let after = label.get(i + 1).copied();
    match label[i] {
        '\u{00B7}' => before == Some('l') && after == Some('l'),
        '\u{0375}' => after.is_some_and(greek),
        '\u{05F3}' | '\u{05F4}' => before.is_some_and(hebrew),
        '\u{30FB}' => label.iter().any(|&c| c != '\u{30FB}' && japanese(c)),
        '\u{0660}'..='\u{0669}' => !label.iter().any(|c| ('\u{06F0}'..='\u{06F9}').contains(c)),
        '\u{06F0}'..='\u{06F9}' => !label.iter().any(|c| ('\u{0660}'..='\u{0669}').contains(c)),
        _ => true,
    }
}

fn greek(c: char) -> bool {
    matches!(c, '\u{0370}'..='\u{03E1}' | '\u{03F0}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}')
}

fn hebrew(c: char) -> bool {
    matches!(c, '\u{0591}'..='\u{05F4}' | '\u{FB1D}'..='\u{FB4F}')
}

/// Hiragana, Katakana or Han (RFC 5892 A.7).
fn japanese(c: char) -> bool {
    matches!(c,
        '\u{3041}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}'
        | '\u{3005}' | '\u{3007}' | '\u{3021}'..='\u{3029}' | '\u{3038}'..='\u{303B}'
        | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{FF66}'..='\u{FF9D}' | '\u{1B000}'..='\u{1B16F}' | '\u{20000}'..='\u{3FFFF}')
}

/// RFC 5321 §4.1.2 `Mailbox` (`Local-part "@" ( Domain / address-literal )`), with the size
/// limits of §4.5.3.1 (a local part of at most 64 octets, a domain of at most 255). With `intl`,
/// RFC 6531 §3.3: UTF-8 beyond ASCII in atoms and quoted text, and U-labels in the domain.
pub(super) fn is_email(s: &str, intl: bool) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    local.len() <= 64 && domain.len() <= 255 && local_part(local, intl) && mail_domain(domain, intl)
}

fn atext(c: char, intl: bool) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || (intl && !c.is_ascii())
}

fn local_part(l: &str, intl: bool) -> bool {
    if let Some(quoted) = l.strip_prefix('"') {
        let Some(inner) = quoted.strip_suffix('"') else {
            return false;
        };
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            let ok = match c {
                '\\' => chars.next().is_some_and(|e| matches!(e, ' '..='~')),
                ' ' | '!' | '#'..='[' | ']'..='~' => true,
                c => intl && !c.is_ascii(),
            };
            if !ok {
                return false;
            }
        }
        return true;
    }
    l.split('.')
        .all(|atom| !atom.is_empty() && atom.chars().all(|c| atext(c, intl)))
}

fn mail_domain(d: &str, intl: bool) -> bool {
    if let Some(literal) = d.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.strip_prefix("IPv6:") {
            Some(v6) => is_ipv6(v6),
            None => is_ipv4(literal),
        };
    }
    if d.ends_with('.') {
        return false;
    }
    if intl && !d.is_ascii() {
        is_idn_hostname(d)
    } else {
        is_hostname(d)
    }
}
