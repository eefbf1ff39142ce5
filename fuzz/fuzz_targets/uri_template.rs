//! `UriTemplate` (RFC 6570 levels 1 and 2, as resources use them) against a backtracking oracle.
//!
//! The input is either literal text, `template` and `uri` on either side of the first newline
//! (what the seeds are), or bytes a generator reads with `arbitrary`: mostly valid level 1–2
//! templates (literal parts with separators and regex syntax, `{var}`, `{+var}`, `{#var}`, now and
//! then a name given twice or an expression of a higher level), and URIs that are expansions of
//! them (values made of pieces: separators, percent escapes whole, cut or not UTF-8, a multi-byte
//! character), random text, or long expansions (a piece repeated up to 20,000 bytes) where a
//! matcher slower than linear shows as a slow unit or a timeout.
//!
//! What must hold:
//! - nothing panics;
//! - `UriTemplate::parse` accepts exactly the templates the oracle's parser accepts;
//! - `matches` gives the oracle's answer (each variable, left to right, the shortest non-empty
//!   value that lets the rest match; `{var}` values without `/`, `?`, `#`; values percent-decoded,
//!   and no match when one does not decode to UTF-8), checked for URIs of at most 64 bytes and
//!   within a step budget, so that the oracle stays fast; for any URI, a match names the
//!   template's variables in order;
//! - a template with one variable that matched matches its own expansion with the values it
//!   returned (percent-encoded as RFC 6570 does for the operator) and returns them again; for
//!   `{+var}` and `{#var}` only when the value holds no `%`, which their expansion keeps as is. With
//!   several variables the split of an expansion may differ from the values expanded, so there is
//!   no such property for them.

#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use mcp_runtime::resource::UriTemplate;
use percent_encoding::percent_decode_str;

/// Literal parts: separators, the characters a simple value may not hold, regex syntax.
const LITERALS: &[&str] = &[
    "a://", "/", "-", ".", "#", "?", "a", "ab", "é", "*", "(", ")", "|", "$", "^", "\\", "[", "%",
    "+", "notes://", "file:///",
];

/// Expressions outside levels 1–2 or malformed: the parsers must both refuse them.
const BAD_EXPRESSIONS: &[&str] = &[
    "{", "}", "{}", "{a,b}", "{/a}", "{?q}", "{+}", "{#}", "{a-b}", "{é}", "{;x}", "{.x}",
];

/// Pieces of values and random URIs.
const PIECES: &[&str] = &[
    "a", "b", "/", "-", ".", "#", "?", "é", "*", "(", "%", "%2", "%20", "%C3", "%A9", "%C3%A9",
    "%FF", "%2F", "ab", "a://", "\n", "😀",
];

/// URIs longer than this are not given to the oracle.
const ORACLE_MAX_URI: usize = 64;

/// Steps (values tried) the oracle may take before its answer is not waited for.
const ORACLE_BUDGET: usize = 100_000;

/// The longest template read from a literal input: matching takes time linear in the URI times
/// the template's size, and templates come from the server's author, not from clients.
const MAX_TEMPLATE: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
}

/// One piece of a template, as the oracle's parser reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var { name: String, op: Op },
}

/// The grammar `UriTemplate::parse` had before templates were compiled (and must keep).
fn oracle_parse(template: &str) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut rest = template;
    let mut names: Vec<String> = Vec::new();
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            Some(i) if rest.as_bytes()[i] == b'}' => return None,
            Some(i) => {
                if i > 0 {
                    parts.push(Part::Literal(rest[..i].to_owned()));
                }
                let close = rest[i..].find('}')? + i;
                let expr = &rest[i + 1..close];
                let (op, name) = match expr.as_bytes().first() {
                    Some(b'+') => (Op::Reserved, &expr[1..]),
                    Some(b'#') => (Op::Fragment, &expr[1..]),
                    _ => (Op::Simple, expr),
                };
                let valid = !name.is_empty()
                    && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
                if !valid || names.iter().any(|n| n == name) {
                    return None;
                }
                names.push(name.to_owned());
                parts.push(Part::Var {
                    name: name.to_owned(),
                    op,
                });
                rest = &rest[close + 1..];
            }
            None => {
                parts.push(Part::Literal(rest.to_owned()));
                rest = "";
            }
        }
    }
    Some(parts)
}

/// The backtracking matcher `UriTemplate::matches` replaced: its first solution, the values then
/// decoded. `None` when it ran out of budget.
fn oracle_match(parts: &[Part], uri: &str) -> Option<Option<Vec<(String, String)>>> {
    let mut found = Vec::new();
    let mut budget = ORACLE_BUDGET;
    if !search(parts, uri, &mut found, &mut budget)? {
        return Some(None);
    }
    let decoded = found
        .into_iter()
        .map(|(name, raw)| {
            let value = percent_decode_str(raw).decode_utf8().ok()?;
            Some((name, value.into_owned()))
        })
        .collect();
    Some(decoded)
}

fn search<'u>(
    parts: &[Part],
    uri: &'u str,
    out: &mut Vec<(String, &'u str)>,
    budget: &mut usize,
) -> Option<bool> {
    let Some((first, rest)) = parts.split_first() else {
        return Some(uri.is_empty());
    };
    match first {
        Part::Literal(l) => match uri.strip_prefix(l.as_str()) {
            Some(tail) => search(rest, tail, out, budget),
            None => Some(false),
        },
        Part::Var { name, op } => {
            let uri = match op {
                Op::Fragment => match uri.strip_prefix('#') {
                    Some(tail) => tail,
                    None => return Some(false),
                },
                _ => uri,
            };
            let ends = uri.char_indices().skip(1).map(|(i, _)| i);
            for end in ends.chain([uri.len()]) {
                if end == 0 {
                    break;
                }
                *budget = budget.checked_sub(1)?;
                let candidate = &uri[..end];
                if *op == Op::Simple && candidate.contains(['/', '?', '#']) {
                    break;
                }
                out.push((name.clone(), candidate));
                if search(rest, &uri[end..], out, budget)? {
                    return Some(true);
                }
                out.pop();
            }
            Some(false)
        }
    }
}

/// `value` percent-encoded as RFC 6570 expands it: unreserved characters kept, and reserved ones
/// too for `{+var}` and `{#var}`; every other byte as `%XX`.
fn encode(value: &str, op: Op) -> String {
    let mut out = String::new();
    for &b in value.as_bytes() {
        let unreserved = b.is_ascii_alphanumeric() || b"-._~".contains(&b);
        let reserved = b":/?#[]@!$&'()*+,;=".contains(&b);
        if unreserved || (op != Op::Simple && reserved) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A template text and the oracle's view of how it was made: `None` for a piece that is not a
/// level 1–2 expression.
fn generate_template(u: &mut Unstructured) -> Result<(String, Vec<Option<Part>>)> {
    let mut text = String::new();
    let mut pieces = Vec::new();
    for _ in 0..u.int_in_range(0..=6)? {
        match u.int_in_range(0..=9)? {
            0..=3 => {
                let l = *u.choose(LITERALS)?;
                text.push_str(l);
                pieces.push(Some(Part::Literal(l.to_owned())));
            }
            4 => {
                let l: String = u.arbitrary::<String>()?.chars().take(8).collect();
                text.push_str(&l);
                pieces.push(Some(Part::Literal(l)));
            }
            5..=8 => {
                let op = *u.choose(&[Op::Simple, Op::Reserved, Op::Fragment])?;
                let name = format!("v{}", u.int_in_range(0..=3)?);
                let sigil = match op {
                    Op::Simple => "",
                    Op::Reserved => "+",
                    Op::Fragment => "#",
                };
                text.push_str(&format!("{{{sigil}{name}}}"));
                pieces.push(Some(Part::Var { name, op }));
            }
            _ => {
                text.push_str(u.choose(BAD_EXPRESSIONS)?);
                pieces.push(None);
            }
        }
    }
    Ok((text, pieces))
}

fn generate_uri(u: &mut Unstructured, pieces: &[Option<Part>]) -> Result<String> {
    let mut uri = String::new();
    match u.int_in_range(0..=3)? {
        0 => {
            for _ in 0..u.int_in_range(0..=12)? {
                uri.push_str(u.choose(PIECES)?);
            }
        }
        1 => uri = u.arbitrary()?,
        mode => {
            // An expansion; with mode 3, one variable's value is a piece repeated.
            let long = mode == 3;
            for piece in pieces {
                match piece {
                    Some(Part::Literal(l)) => uri.push_str(l),
                    Some(Part::Var { op, .. }) => {
                        if *op == Op::Fragment {
                            uri.push('#');
                        }
                        let value = u.choose(PIECES)?;
                        let times = if long && u.ratio(1, 2)? {
                            u.int_in_range(1..=20_000 / value.len())?
                        } else {
                            u.int_in_range(1..=3)?
                        };
                        uri.push_str(&value.repeat(times));
                    }
                    None => uri.push_str(u.choose(PIECES)?),
                }
            }
        }
    }
    Ok(uri)
}

fn input(data: &[u8]) -> Result<(String, String)> {
    if let Ok(text) = std::str::from_utf8(data)
        && let Some((template, uri)) = text.split_once('\n')
        && template.len() <= MAX_TEMPLATE
    {
        return Ok((template.to_owned(), uri.to_owned()));
    }
    let mut u = Unstructured::new(data);
    let (template, pieces) = generate_template(&mut u)?;
    let uri = generate_uri(&mut u, &pieces)?;
    Ok((template, uri))
}

fn check(data: &[u8]) {
    let Ok((text, uri)) = input(data) else {
        return;
    };
    let template = UriTemplate::parse(&text);
    let parts = oracle_parse(&text);
    assert_eq!(
        template.is_some(),
        parts.is_some(),
        "parse disagrees on {text:?}"
    );
    let (Some(template), Some(parts)) = (template, parts) else {
        return;
    };
    let found = template.matches(&uri);
    if let Some(values) = &found {
        let names: Vec<&str> = values.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            template.vars().collect::<Vec<_>>(),
            "{text:?} {uri:?}"
        );
    }
    if uri.len() <= ORACLE_MAX_URI
        && let Some(expected) = oracle_match(&parts, &uri)
    {
        assert_eq!(found, expected, "template {text:?}, uri {uri:?}");
    }
    // One variable: its value comes back from the template's own expansion of it.
    let vars: Vec<&Part> = parts
        .iter()
        .filter(|p| matches!(p, Part::Var { .. }))
        .collect();
    if let ([Part::Var { op, .. }], Some(values)) = (vars.as_slice(), &found) {
        let value = &values[0].1;
        if *op == Op::Simple || !value.contains('%') {
            let mut expansion = String::new();
            for part in &parts {
                match part {
                    Part::Literal(l) => expansion.push_str(l),
                    Part::Var { op, .. } => {
                        if *op == Op::Fragment {
                            expansion.push('#');
                        }
                        expansion.push_str(&encode(value, *op));
                    }
                }
            }
            assert_eq!(
                template.matches(&expansion).as_ref(),
                Some(values),
                "template {text:?}, expansion {expansion:?} of {value:?}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
});
