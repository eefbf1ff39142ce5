//! URI templates as resources use them: RFC 6570 levels 1 and 2 (`{var}`, `{+var}`, `{#var}`), one
//! variable per expression. `#[resource]` checks the same grammar at compile time; here a template
//! is parsed once and matched against the URIs `resources/read` asks for.
//!
//! A URI matches when the template's literal parts and its variables' values make it up exactly.
//! Where several splits do, the first in this order wins: each variable, left to right, takes the
//! shortest non-empty value that lets the rest match. A `{var}` value holds no `/`, `?` or `#`; a
//! `{#var}` expression needs a literal `#` first. The values are then percent-decoded: one that does
//! not decode to UTF-8 means that the URI does not match (no other split is tried).
//!
//! That split is the first one a backtracking search finds, but such a search takes time quadratic
//! or worse in the URI's length (seconds for 40,000 characters). Instead, [`UriTemplate::parse`]
//! compiles the template once into an anchored regex with one lazy group per variable: literal
//! parts escaped, `{var}` as `([^/?#]+?)`, `{+var}` as `((?s:.)+?)`, `{#var}` as `#((?s:.)+?)`. The
//! regex crate reports the match and groups a backtracking engine would (leftmost-first, lazy
//! repetition preferring fewer), and its engines run in time linear in the URI (times the
//! template's size). The unit tests keep a backtracking search as the oracle and compare the two on
//! generated templates and URIs.

use percent_encoding::percent_decode_str;
use regex::Regex;

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `{name}` (simple: no `/`, `?` or `#` in the value), `{+name}` (reserved) or `{#name}`
    /// (fragment: a `#` first, then reserved).
    Var {
        name: String,
        op: Op,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
}

/// A parsed URI template.
#[derive(Debug, Clone)]
pub struct UriTemplate {
    parts: Vec<Part>,
    /// The parts as one anchored regex, a group per variable in order (see the module docs).
    regex: Regex,
}

/// Two templates are equal when their parts are: the regex is made from them.
impl PartialEq for UriTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts
    }
}

impl Eq for UriTemplate {}

impl UriTemplate {
    /// Parses `template`; `None` when it is not a level 1–2 template or names a variable twice
    /// (or is too large to compile into a matcher, which takes hundreds of kilobytes).
    pub fn parse(template: &str) -> Option<UriTemplate> {
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
        let regex = compile(&parts)?;
        Some(UriTemplate { parts, regex })
    }

    /// True when the template has no variable: it names one resource.
    pub fn is_fixed(&self) -> bool {
        self.vars().next().is_none()
    }

    /// The variables, in order.
    pub fn vars(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables' values when `uri` is an expansion of this template (percent-decoded), in
    /// the order of [`UriTemplate::vars`]. Each variable, left to right, takes the shortest
    /// non-empty value that lets the rest match; `None` when nothing does, or when a value does
    /// not percent-decode to UTF-8. Takes time linear in the length of `uri`.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let found = self.regex.captures(uri)?;
        // Group 0 is the whole match; the others are the variables, every one taking part.
        let values = found.iter().skip(1);
        self.vars()
            .zip(values)
            .map(|(name, value)| {
                let value = percent_decode_str(value?.as_str()).decode_utf8().ok()?;
                Some((name.to_owned(), value.into_owned()))
            })
            .collect()
    }
}

/// The anchored regex of `parts`: literals escaped, one lazy group per variable. `None` only
/// when it exceeds the regex crate's size limit.
fn compile(parts: &[Part]) -> Option<Regex> {
    let mut pattern = String::from(r"\A");
    for part in parts {
        match part {
            Part::Literal(literal) => pattern.push_str(&regex::escape(literal)),
            Part::Var { op: Op::Simple, .. } => pattern.push_str("([^/?#]+?)"),
            Part::Var {
                op: Op::Reserved, ..
            } => pattern.push_str("((?s:.)+?)"),
            Part::Var {
                op: Op::Fragment, ..
            } => pattern.push_str("#((?s:.)+?)"),
        }
    }
    pattern.push_str(r"\z");
    Regex::new(&pattern).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).unwrap().matches(uri)
    }

    fn pair(name: &str, value: &str) -> (String, String) {
        (name.to_owned(), value.to_owned())
    }

    #[test]
    fn templates_parse_at_levels_one_and_two_only() {
        let cases = [
            ("test://static-text", true),
            ("notes://{title}", true),
            ("file:///{+path}", true),
            ("page://x{#section}", true),
            ("a://{a}/{b}", true),
            ("a://{a,b}", false),
            ("a://{/a}", false),
            ("a://{?q}", false),
            ("a://{}", false),
            ("a://{a", false),
            ("a://a}", false),
            ("a://{a}/{a}", false),
        ];
        for (t, ok) in cases {
            assert_eq!(UriTemplate::parse(t).is_some(), ok, "{t}");
        }
        let parse = |t: &str| UriTemplate::parse(t).unwrap();
        assert_eq!(parse("a://{a}/{+b}"), parse("a://{a}/{+b}"));
        assert_ne!(parse("a://{a}/{+b}"), parse("a://{a}/{b}"));
    }

    #[test]
    fn uris_match_with_decoded_values() {
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            Some(vec![pair("id", "123")])
        );
        assert_eq!(
            vars("notes://{title}", "notes://my%20list"),
            Some(vec![pair("title", "my list")])
        );
        assert_eq!(vars("notes://{title}", "notes://a/b"), None);
        assert_eq!(vars("notes://{title}", "notes://"), None);
        assert_eq!(
            vars("file:///{+path}", "file:///a/b/c.txt"),
            Some(vec![pair("path", "a/b/c.txt")])
        );
        assert_eq!(
            vars("a://{x}-{y}", "a://1-2-3"),
            Some(vec![pair("x", "1"), pair("y", "2-3")])
        );
        assert_eq!(
            vars("page://x{#s}", "page://x#top"),
            Some(vec![pair("s", "top")])
        );
        assert_eq!(
            vars("test://static-text", "test://static-text"),
            Some(vec![])
        );
        assert_eq!(vars("test://static-text", "test://static"), None);
    }

    #[test]
    fn a_value_is_matched_whole_then_decoded() {
        // A multi-byte character, percent-encoded: its first byte alone is not UTF-8.
        assert_eq!(
            vars("notes://{title}", "notes://%C3%A9"),
            Some(vec![pair("title", "é")])
        );
        assert_eq!(
            vars("notes://{title}/{n}", "notes://caf%C3%A9/%31"),
            Some(vec![pair("title", "café"), pair("n", "1")])
        );
        assert_eq!(
            vars("files://{+path}", "files://%C3%A9t%C3%A9/%E2%82%AC"),
            Some(vec![pair("path", "été/€")])
        );
        // A value that does not decode to UTF-8 as a whole: no match.
        assert_eq!(vars("notes://{title}", "notes://%C3"), None);
        assert_eq!(vars("notes://{title}", "notes://a%FFb"), None);
        // A `%` that starts no escape is kept as it is.
        assert_eq!(
            vars("notes://{title}", "notes://100%"),
            Some(vec![pair("title", "100%")])
        );
        // Regex syntax in a literal part is literal.
        assert_eq!(
            vars("a://x.y*(z)|[{id}]$", "a://x.y*(z)|[7]$"),
            Some(vec![pair("id", "7")])
        );
        assert_eq!(vars("a://x.y*(z)|[{id}]$", "a://xzy*(z)|[7]$"), None);
    }

    #[test]
    fn long_uris_get_their_answer_for_every_operator() {
        const N: usize = 200_000;
        let a = "a".repeat(N);
        // `{+var}`: everything, or everything up to the last literal suffix.
        assert_eq!(
            vars("files://{+path}", &format!("files://{a}")),
            Some(vec![pair("path", &a)])
        );
        let dirs = "x/".repeat(N / 2);
        assert_eq!(
            vars("files://{+path}/end", &format!("files://{dirs}end")),
            Some(vec![pair("path", &dirs[..N - 1])])
        );
        assert_eq!(
            vars("files://{+path}/end", &format!("files://{dirs}")),
            None
        );
        // Adjacent reserved variables: each before the last as short as can be.
        assert_eq!(
            vars("a://{+x}{+y}{+z}!", &format!("a://{a}!")),
            Some(vec![pair("x", "a"), pair("y", "a"), pair("z", &a[2..])])
        );
        assert_eq!(vars("a://{+x}{+y}{+z}!", &format!("a://{a}")), None);
        // `{var}`: no `/`, `?` or `#` anywhere in the value.
        assert_eq!(
            vars("notes://{title}", &format!("notes://{a}")),
            Some(vec![pair("title", &a)])
        );
        assert_eq!(vars("notes://{title}", &format!("notes://{a}/")), None);
        assert_eq!(
            vars("notes://{title}/{section}", &format!("notes://{a}")),
            None
        );
        assert_eq!(
            vars("notes://{title}/{section}", &format!("notes://{dirs}")),
            None
        );
        assert_eq!(
            vars("notes://{title}/{section}", &format!("notes://{a}/{a}")),
            Some(vec![pair("title", &a), pair("section", &a)])
        );
        let dashes = format!("{}x", "x-".repeat(N / 2));
        assert_eq!(
            vars("notes://{a}-{b}-{c}", &format!("notes://{dashes}")),
            Some(vec![
                pair("a", "x"),
                pair("b", "x"),
                pair("c", &dashes[4..])
            ])
        );
        let hyphens = "-".repeat(N);
        assert_eq!(
            vars("notes://{a}-{b}-{c}", &format!("notes://{hyphens}/")),
            None
        );
        // `{#var}`: a `#` first, then anything.
        let hashes = "#".repeat(N);
        assert_eq!(
            vars("page://x{#s}", &format!("page://x{hashes}")),
            Some(vec![pair("s", &hashes[1..])])
        );
        assert_eq!(vars("page://x{#s}", &format!("page://x{a}")), None);
        assert_eq!(
            vars("page://{+p}{#s}", &format!("page://{hashes}")),
            Some(vec![pair("p", "#"), pair("s", &hashes[2..])])
        );
        // Percent escapes all the way.
        let escaped = "%C3%A9".repeat(N / 6);
        assert_eq!(
            vars("notes://{title}", &format!("notes://{escaped}")),
            Some(vec![pair("title", &"é".repeat(N / 6))])
        );
    }

    /// The matcher this module had before templates were compiled: a backtracking search (each
    /// variable tries its values shortest first) whose first solution is the one specified, kept
    /// as the oracle. It took time quadratic or worse in the URI's length, so the tests give it
    /// short URIs only. One change: the values are decoded once the search has found them (it used
    /// to give up on the first prefix of a value that did not decode to UTF-8 alone, so that
    /// `notes://%C3%A9` never matched `notes://{title}`).
    fn oracle(parts: &[Part], uri: &str) -> Option<Vec<(String, String)>> {
        let mut found = Vec::new();
        if !search(parts, uri, &mut found) {
            return None;
        }
        found
            .into_iter()
            .map(|(name, raw)| {
                let value = percent_decode_str(raw).decode_utf8().ok()?;
                Some((name, value.into_owned()))
            })
            .collect()
    }

    fn search<'u>(parts: &[Part], uri: &'u str, out: &mut Vec<(String, &'u str)>) -> bool {
        let Some((first, rest)) = parts.split_first() else {
            return uri.is_empty();
        };
        match first {
            Part::Literal(l) => uri
                .strip_prefix(l.as_str())
                .is_some_and(|tail| search(rest, tail, out)),
            Part::Var { name, op } => {
                let uri = match op {
                    Op::Fragment => match uri.strip_prefix('#') {
                        Some(tail) => tail,
                        None => return false,
                    },
                    _ => uri,
                };
                for end in uri
                    .char_indices()
                    .skip(1)
                    .map(|(i, _)| i)
                    .chain([uri.len()])
                {
                    if end == 0 {
                        break;
                    }
                    let candidate = &uri[..end];
                    if *op == Op::Simple && candidate.contains(['/', '?', '#']) {
                        break;
                    }
                    out.push((name.clone(), candidate));
                    if search(rest, &uri[end..], out) {
                        return true;
                    }
                    out.pop();
                }
                false
            }
        }
    }

    // xorshift64* from test-support: the same templates and URIs on every run.
    use test_support::rng::Rng;

    /// Literal parts: separators, the characters a simple value may not hold, regex syntax, and
    /// text that values also contain.
    const LITERALS: &[&str] = &[
        "a://", "/", "-", ".", "#", "?", "a", "ab", "é", "*", "(", "|", "$", "\\", "[", "%",
    ];

    /// Pieces of values and of random URIs: the same characters, percent escapes (whole, cut,
    /// not UTF-8) and a multi-byte character.
    const PIECES: &[&str] = &[
        "a", "b", "/", "-", ".", "#", "?", "é", "*", "(", "%", "%2", "%20", "%C3", "%A9", "%C3%A9",
        "%FF", "%2F", "ab", "a://",
    ];

    fn template(rng: &mut Rng) -> String {
        let mut text = String::new();
        for i in 0..1 + rng.below(5) {
            match rng.below(5) {
                0 | 1 => text.push_str(rng.pick::<&str>(LITERALS)),
                2 => text.push_str(&format!("{{v{i}}}")),
                3 => text.push_str(&format!("{{+v{i}}}")),
                _ => text.push_str(&format!("{{#v{i}}}")),
            }
        }
        text
    }

    /// A URI made from the template's parts (each variable given one to three pieces, which
    /// may not fit it), or a random one.
    fn uri(rng: &mut Rng, parts: &[Part]) -> String {
        let mut uri = String::new();
        if rng.below(4) == 0 {
            for _ in 0..rng.below(10) {
                uri.push_str(rng.pick::<&str>(PIECES));
            }
            return uri;
        }
        for part in parts {
            match part {
                Part::Literal(l) => uri.push_str(l),
                Part::Var { op, .. } => {
                    if *op == Op::Fragment {
                        uri.push('#');
                    }
                    for _ in 0..1 + rng.below(3) {
                        uri.push_str(rng.pick::<&str>(PIECES));
                    }
                }
            }
        }
        uri
    }

    #[test]
    fn the_compiled_matcher_agrees_with_the_backtracking_search() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut matched, mut unmatched, mut several_vars) = (0, 0, 0);
        for _ in 0..2_000 {
            let text = template(&mut rng);
            let t = UriTemplate::parse(&text).unwrap_or_else(|| panic!("{text} parses"));
            for _ in 0..12 {
                let uri = uri(&mut rng, &t.parts);
                let expected = oracle(&t.parts, &uri);
                assert_eq!(t.matches(&uri), expected, "template {text:?}, uri {uri:?}");
                match expected {
                    Some(values) if values.len() > 1 => several_vars += 1,
                    Some(_) => matched += 1,
                    None => unmatched += 1,
                }
            }
        }
        // The generator reaches both answers, and splits between several variables.
        assert!(matched > 2_500, "{matched} matched");
        assert!(several_vars > 1_500, "{several_vars} matched several");
        assert!(unmatched > 2_500, "{unmatched} unmatched");
    }
}
