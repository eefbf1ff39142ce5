//! URI templates as resources use them: RFC 6570 levels 1 and 2 (`{var}`, `{+var}`, `{#var}`), one
//! variable per expression. `#[resource]` checks the same grammar at compile time; here a template
//! is parsed once and matched against the URIs `resources/read` asks for.

use percent_encoding::percent_decode_str;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses `template`; `None` when it is not a level 1–2 template or names a variable twice.
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
        Some(UriTemplate { parts })
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
    /// the order of [`UriTemplate::vars`].
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        match_from(&self.parts, uri, &mut out).then_some(out)
    }
}

/// Backtracking match of `parts` against all of `uri`; a variable takes the shortest value that
/// lets the rest match, and never an empty one.
fn match_from(parts: &[Part], uri: &str, out: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        Part::Literal(l) => uri
            .strip_prefix(l.as_str())
            .is_some_and(|tail| match_from(rest, tail, out)),
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
                let Ok(value) = percent_decode_str(candidate).decode_utf8() else {
                    return false;
                };
                out.push((name.clone(), value.into_owned()));
                if match_from(rest, &uri[end..], out) {
                    return true;
                }
                out.pop();
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).unwrap().matches(uri)
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
    }

    #[test]
    fn uris_match_with_decoded_values() {
        let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
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
}
