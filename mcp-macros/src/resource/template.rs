//! The URI of a `#[resource]`, checked when the macro expands: a scheme, then literal text and
//! RFC 6570 level 1–2 expressions (`{var}`, `{+var}`, `{#var}`), each naming one variable once.
//! The runtime matches URIs against the same grammar (`mcp_runtime::resource::UriTemplate`).

/// What is wrong with a URI, as a message for the user.
pub type Problem = String;

/// The template's variables, in order, or why the URI cannot be served.
pub fn variables(uri: &str) -> Result<Vec<String>, Problem> {
    let scheme_end = uri.find(':').filter(|&i| i > 0).ok_or_else(|| {
        format!("`{uri}` is not a URI: it needs a scheme, such as `file://` or `notes://`")
    })?;
    let scheme = &uri[..scheme_end];
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err(format!(
            "`{scheme}` is not a URI scheme: a letter, then letters, digits, `+`, `-` or `.`"
        ));
    }
    if let Some(c) = uri.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "a URI cannot contain {c:?}: percent-encode it (a space is `%20`)"
        ));
    }
    let mut vars: Vec<String> = Vec::new();
    let mut rest = &uri[scheme_end..];
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err("a `}` closes no `{`: write a template expression as `{name}`".into());
        }
        let close = rest[open..]
            .find('}')
            .map(|c| c + open)
            .ok_or("a `{` is never closed: write a template expression as `{name}`")?;
        let expr = &rest[open + 1..close];
        let name = expr.strip_prefix(['+', '#']).unwrap_or(expr);
        if let Some(op) = name.chars().next().filter(|c| "/;?&.=,!@|".contains(*c)) {
            return Err(format!(
                "`{{{expr}}}` uses the operator `{op}` of RFC 6570 level 3 or 4: a resource template uses `{{name}}`, `{{+name}}` or `{{#name}}`"
            ));
        }
        if name.contains([',', ':', '*']) {
            return Err(format!(
                "`{{{expr}}}` is a level 3–4 expression (several variables or a modifier): write one variable per expression"
            ));
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{{{expr}}}` does not name a variable: a variable is a Rust identifier, such as `{{title}}`"
            ));
        }
        if vars.iter().any(|v| v == name) {
            return Err(format!(
                "the template names `{{{name}}}` twice: each variable is one parameter, named once"
            ));
        }
        vars.push(name.to_owned());
        rest = &rest[close + 1..];
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::variables;

    #[test]
    fn uris_and_templates_are_checked() {
        let ok = |uri: &str, vars: &[&str]| {
            assert_eq!(
                variables(uri).as_deref(),
                Ok(vars
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .as_slice()),
                "{uri}"
            )
        };
        ok("test://static-text", &[]);
        ok("notes://{title}", &["title"]);
        ok("file:///{+path}", &["path"]);
        ok("a://{x}/b{#y}", &["x", "y"]);
        for bad in [
            "no-scheme",
            "://x",
            "1a://x",
            "a://x y",
            "a://{x",
            "a://x}",
            "a://{}",
            "a://{x,y}",
            "a://{/x}",
            "a://{?q}",
            "a://{x:3}",
            "a://{x*}",
            "a://{x-y}",
            "a://{x}/{x}",
        ] {
            assert!(variables(bad).is_err(), "{bad}");
        }
    }
}
