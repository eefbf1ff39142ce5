//! References: `uri` and `uri-reference` (RFC 3986 §3 and §4.1), `iri` and `iri-reference`
//! (RFC 3987 §2.2), `uri-template` (RFC 6570 §2), checked against the grammars' productions:
//! scheme, authority (userinfo, host as IP-literal, IPv4 or reg-name, port), path, query and
//! fragment, each with only its own characters and well-formed `%` escapes.

use super::net::is_ipv6;

/// What may stand for itself beyond ASCII: nothing in a URI, `ucschar` in an IRI (and
/// `iprivate` in its query).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chars {
    Uri,
    Iri,
}

/// RFC 3986 `URI`; with `reference`, `URI-reference` (a relative reference too). With `iri`,
/// the RFC 3987 forms.
pub(super) fn is_uri(s: &str, iri: bool, reference: bool) -> bool {
    let chars = if iri { Chars::Iri } else { Chars::Uri };
    let (rest, fragment) = match s.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (s, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    if let Some(f) = fragment
        && !all_chars(f, chars, |c| pchar(c) || c == '/' || c == '?', false)
    {
        return false;
    }
    if let Some(q) = query
        && !all_chars(q, chars, |c| pchar(c) || c == '/' || c == '?', true)
    {
        return false;
    }
    match scheme_end(rest) {
        Some(i) => hier_part(&rest[i + 1..], chars, false),
        None if reference => hier_part(rest, chars, true),
        None => false,
    }
}

/// The index of the `:` ending a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`).
fn scheme_end(s: &str) -> Option<usize> {
    let i = s.find(':')?;
    let mut b = s[..i].bytes();
    let ok = b.next().is_some_and(|c| c.is_ascii_alphabetic())
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
    ok.then_some(i)
}

/// `hier-part` (or `relative-part`, where a first segment without an authority holds no `:`).
fn hier_part(s: &str, chars: Chars, relative: bool) -> bool {
    if let Some(rest) = s.strip_prefix("//") {
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        return authority_ok(authority, chars) && segments(path, chars);
    }
    if relative {
        let first = s.split('/').next().unwrap_or("");
        if first.contains(':') {
            return false;
        }
    }
    segments(s, chars)
}

fn segments(path: &str, chars: Chars) -> bool {
    path.split('/')
        .all(|seg| all_chars(seg, chars, pchar, false))
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn authority_ok(a: &str, chars: Chars) -> bool {
    let (userinfo, hostport) = match a.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, a),
    };
    if let Some(u) = userinfo
        && !all_chars(
            u,
            chars,
            |c| unreserved(c) || sub_delim(c) || c == ':',
            false,
        )
    {
        return false;
    }
    let (host, port) = if let Some(literal) = hostport.strip_prefix('[') {
        let Some((inside, after)) = literal.split_once(']') else {
            return false;
        };
        if !(is_ipv6(inside) || ipv_future(inside)) {
            return false;
        }
        match after {
            "" => return true,
            p => match p.strip_prefix(':') {
                Some(port) => ("", port),
                None => return false,
            },
        }
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h, p),
            None => (hostport, ""),
        }
    };
    port.bytes().all(|c| c.is_ascii_digit())
        && all_chars(host, chars, |c| unreserved(c) || sub_delim(c), false)
}

/// `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
fn ipv_future(s: &str) -> bool {
    let Some(rest) = s.strip_prefix(['v', 'V']) else {
        return false;
    };
    let Some((version, tail)) = rest.split_once('.') else {
        return false;
    };
    !version.is_empty()
        && version.bytes().all(|c| c.is_ascii_hexdigit())
        && !tail.is_empty()
        && tail
            .chars()
            .all(|c| unreserved(c) || sub_delim(c) || c == ':')
}

fn unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn sub_delim(c: char) -> bool {
    matches!(
        c,
        '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '='
    )
}

fn pchar(c: char) -> bool {
    unreserved(c) || sub_delim(c) || c == ':' || c == '@'
}

/// RFC 3987 `ucschar`.
fn ucschar(c: char) -> bool {
    let c = c as u32;
    matches!(c, 0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF)
        || (c >= 0x10000 && c & 0xFFFF <= 0xFFFD && c < 0xE0000)
        || (0xE1000..=0xEFFFD).contains(&c)
}

/// RFC 3987 `iprivate`.
fn iprivate(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// Every character of `s` is `allowed` (ASCII), a `%HH` escape, or, in an IRI, a `ucschar`
/// (and, in a query, an `iprivate`).
fn all_chars(s: &str, chars: Chars, allowed: impl Fn(char) -> bool, query: bool) -> bool {
    let mut it = s.chars();
    while let Some(c) = it.next() {
        let ok = match c {
            '%' => {
                let (a, b) = (it.next(), it.next());
                a.is_some_and(|a| a.is_ascii_hexdigit()) && b.is_some_and(|b| b.is_ascii_hexdigit())
            }
            c if c.is_ascii() => allowed(c),
            c => chars == Chars::Iri && (ucschar(c) || (query && iprivate(c))),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// RFC 6570 §2: literals (any character but controls, space, `"'%<>\^`{|}`, unless
/// `%`-escaped) and expressions `{` [operator] varspec *( "," varspec ) `}`, a varspec being a
/// varname (`ALPHA / DIGIT / "_" / pct-encoded`, dots between) with an optional prefix
/// modifier `:` 1 to 4 digits (not starting with 0) or explode `*`.
pub(super) fn is_uri_template(s: &str) -> bool {
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        match c {
            '{' => {
                let Some(end) = rest.find('}') else {
                    return false;
                };
                if !expression(&rest[1..end]) {
                    return false;
                }
                rest = &rest[end + 1..];
                continue;
            }
            '%' => {
                let b = rest.as_bytes();
                if b.len() < 3 || !b[1].is_ascii_hexdigit() || !b[2].is_ascii_hexdigit() {
                    return false;
                }
                rest = &rest[3..];
                continue;
            }
            c if c.is_ascii_control() || c.is_ascii_whitespace() => return false,
            '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '|' | '}' => return false,
            c if !(c.is_ascii() || ucschar(c) || iprivate(c)) => return false,
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    true
}

/// `operator` is `op-level2 / op-level3 / op-reserve`: the grammar admits the operators
/// reserved for future extensions (`=`, `,`, `!`, `@`, `|`); only expanding them is an error.
fn expression(e: &str) -> bool {
    let body = e
        .strip_prefix(['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'])
        .unwrap_or(e);
    body.split(',').all(varspec)
}

fn varspec(v: &str) -> bool {
    let (name, modifier) = match v.find([':', '*']) {
        Some(i) => (&v[..i], &v[i..]),
        None => (v, ""),
    };
    let modifier_ok = match modifier.strip_prefix(':') {
        Some(len) => {
            (1..=4).contains(&len.len())
                && !len.starts_with('0')
                && len.bytes().all(|c| c.is_ascii_digit())
        }
        None => modifier.is_empty() || modifier == "*",
    };
    modifier_ok
        && !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && all_chars(
                    part,
                    Chars::Uri,
                    |c| c.is_ascii_alphanumeric() || c == '_',
                    false,
                )
        })
}
