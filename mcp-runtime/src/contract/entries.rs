//! The entries of two snapshots matched by name (a resource by URI) and compared: what was
//! removed or added, and, for an entry in both, each member by its own rules.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::normalize::key_of;
use super::report::{Change, Class, Kind};
use super::schema::{self, Side};
use super::snapshot::Snapshot;

/// Every change between `old` and `new`, without witnesses.
pub(crate) fn changes(old: &Snapshot, new: &Snapshot) -> Vec<Change> {
    let mut out = Vec::new();
    server(old, new, &mut out);
    matched(&old.tools, &new.tools, "name", Kind::Tool, &mut out, tool);
    matched(
        &old.resources,
        &new.resources,
        "uri",
        Kind::Resource,
        &mut out,
        resource,
    );
    let templates = (&old.resource_templates, &new.resource_templates);
    matched(
        templates.0,
        templates.1,
        "name",
        Kind::ResourceTemplate,
        &mut out,
        template,
    );
    matched(
        &old.prompts,
        &new.prompts,
        "name",
        Kind::Prompt,
        &mut out,
        prompt,
    );
    out
}

fn change(
    kind: Kind,
    name: &str,
    pointer: &str,
    rule: &str,
    class: Class,
    message: String,
) -> Change {
    Change {
        class,
        rule: rule.to_owned(),
        kind,
        name: name.to_owned(),
        pointer: pointer.to_owned(),
        message,
        witness: None,
    }
}

fn server(old: &Snapshot, new: &Snapshot, out: &mut Vec<Change>) {
    let (o, n) = (&old.server, &new.server);
    for (field, a, b) in [
        ("name", &o.name, &n.name),
        ("version", &o.version, &n.version),
        ("protocol", &o.protocol_version, &n.protocol_version),
    ] {
        if !a.is_empty() && !b.is_empty() && a != b {
            let message = format!("server {field} {a} became {b}");
            let rule = format!("server.{field}-changed");
            out.push(change(Kind::Server, "", "", &rule, Class::Info, message));
        }
    }
}

type Compare = fn(&str, &Value, &Value, &mut Vec<Change>);

/// Pairs the entries of two lists by `key`: removed ones break, added ones are compatible, the
/// others go through `compare`.
fn matched(
    old: &[Value],
    new: &[Value],
    key: &str,
    kind: Kind,
    out: &mut Vec<Change>,
    compare: Compare,
) {
    let index = |list: &[Value]| -> BTreeMap<String, Value> {
        list.iter()
            .map(|e| (key_of(e, key).to_owned(), e.clone()))
            .collect()
    };
    let (old, new) = (index(old), index(new));
    let what = kind.label();
    for (name, entry) in &old {
        match new.get(name) {
            None => {
                let message = format!("{what} `{name}` removed");
                out.push(change(
                    kind,
                    name,
                    "",
                    &format!("{what}.removed"),
                    Class::Breaking,
                    message,
                ));
            }
            Some(other) => compare(name, entry, other, out),
        }
    }
    for name in new.keys().filter(|n| !old.contains_key(*n)) {
        let message = format!("{what} `{name}` added");
        out.push(change(
            kind,
            name,
            "",
            &format!("{what}.added"),
            Class::Compatible,
            message,
        ));
    }
}

/// Title, description and name: words for people.
fn words(kind: Kind, name: &str, old: &Value, new: &Value, fields: &[&str], out: &mut Vec<Change>) {
    for field in fields {
        if old.get(field) != new.get(field) {
            let rule = format!("{}.{field}-changed", kind.label());
            let message = format!("{field} changed");
            out.push(change(
                kind,
                name,
                &format!("/{field}"),
                &rule,
                Class::Info,
                message,
            ));
        }
    }
}

fn tool(name: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let kind = Kind::Tool;
    words(kind, name, old, new, &["title", "description"], out);
    let open = Value::Object(Map::new());
    let input = (
        old.get("inputSchema").unwrap_or(&open),
        new.get("inputSchema").unwrap_or(&open),
    );
    for f in schema::compare(Side::Input, input.0, input.1, "/inputSchema") {
        out.push(change(kind, name, &f.pointer, &f.rule, f.class, f.message));
    }
    match (old.get("outputSchema"), new.get("outputSchema")) {
        (None, Some(_)) => {
            let message = "an outputSchema now describes the structured result".to_owned();
            out.push(change(
                kind,
                name,
                "/outputSchema",
                "output.schema-added",
                Class::Compatible,
                message,
            ));
        }
        (Some(_), None) => {
            let message =
                "the outputSchema was removed: the structured result is no longer promised"
                    .to_owned();
            out.push(change(
                kind,
                name,
                "/outputSchema",
                "output.schema-removed",
                Class::Breaking,
                message,
            ));
        }
        (Some(a), Some(b)) => {
            for f in schema::compare(Side::Output, a, b, "/outputSchema") {
                out.push(change(kind, name, &f.pointer, &f.rule, f.class, f.message));
            }
        }
        (None, None) => {}
    }
    hints(name, old, new, out);
    let support = |t: &Value| {
        let s = t.pointer("/execution/taskSupport").and_then(Value::as_str);
        s.unwrap_or("forbidden").to_owned()
    };
    let (a, b) = (support(old), support(new));
    if a != b {
        // A client that called it plainly (or as a task) must still be able to.
        let class = if b == "required" || b == "forbidden" {
            Class::Breaking
        } else {
            Class::Compatible
        };
        let message = format!("taskSupport {a} became {b}");
        out.push(change(
            kind,
            name,
            "/execution/taskSupport",
            "tool.task-support-changed",
            class,
            message,
        ));
    }
}

/// The behaviour hints, each read with its spec default: a promise withdrawn is breaking for the
/// clients that decide what to run, or what to confirm, by it.
fn hints(name: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let hint = |t: &Value, key: &str, default: bool| {
        let v = t
            .get("annotations")
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool);
        v.unwrap_or(default)
    };
    for (key, default, safe, word) in [
        ("readOnlyHint", false, true, "read-only"),
        ("destructiveHint", true, false, "destructive"),
        ("idempotentHint", false, true, "idempotent"),
        ("openWorldHint", true, false, "open-world"),
    ] {
        let (a, b) = (hint(old, key, default), hint(new, key, default));
        if a == b {
            continue;
        }
        // `safe` is the value that promises the client more; leaving it breaks.
        let (class, verb) = match (a == safe, b) {
            (true, true) => (Class::Breaking, "added"),
            (true, false) => (Class::Breaking, "dropped"),
            (false, true) => (Class::Compatible, "added"),
            (false, false) => (Class::Compatible, "dropped"),
        };
        let rule = format!("annotations.{word}-{verb}");
        let message = format!("{key} {a} became {b}");
        out.push(change(
            Kind::Tool,
            name,
            &format!("/annotations/{key}"),
            &rule,
            class,
            message,
        ));
    }
    let title = |t: &Value| t.pointer("/annotations/title").cloned();
    if title(old) != title(new) {
        let message = "annotations.title changed".to_owned();
        out.push(change(
            Kind::Tool,
            name,
            "/annotations/title",
            "annotations.title-changed",
            Class::Info,
            message,
        ));
    }
}

fn mime_type(kind: Kind, name: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    if old.get("mimeType") != new.get("mimeType") {
        let (a, b) = (key_of(old, "mimeType"), key_of(new, "mimeType"));
        let rule = format!("{}.mime-type-changed", kind.label());
        let message =
            format!("mimeType `{a}` became `{b}`: readers of the old type may not parse it");
        out.push(change(
            kind,
            name,
            "/mimeType",
            &rule,
            Class::Breaking,
            message,
        ));
    }
}

fn resource(name: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let kind = Kind::Resource;
    words(kind, name, old, new, &["name", "title", "description"], out);
    mime_type(kind, name, old, new, out);
}

fn template(name: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let kind = Kind::ResourceTemplate;
    words(kind, name, old, new, &["title", "description"], out);
    mime_type(kind, name, old, new, out);
    let (a, b) = (key_of(old, "uriTemplate"), key_of(new, "uriTemplate"));
    if a == b {
        return;
    }
    let (old_t, new_t) = (Template::parse(a), Template::parse(b));
    let ptr = "/uriTemplate";
    for (var, optional) in &new_t.variables {
        if !old_t.variables.iter().any(|(v, _)| v == var) {
            let (class, how) = if *optional {
                (Class::Compatible, "optional")
            } else {
                (Class::Breaking, "required")
            };
            let message = format!("{how} variable `{var}` added to {b}");
            out.push(change(
                kind,
                name,
                ptr,
                "template.variable-added",
                class,
                message,
            ));
        }
    }
    for (var, _) in &old_t.variables {
        if !new_t.variables.iter().any(|(v, _)| v == var) {
            let message = format!("variable `{var}` removed from {a}");
            out.push(change(
                kind,
                name,
                ptr,
                "template.variable-removed",
                Class::Breaking,
                message,
            ));
        }
    }
    let same_vars = old_t.variables == new_t.variables;
    if old_t.skeleton != new_t.skeleton && same_vars {
        let message = format!("{a} became {b}: URIs built from the old template no longer match");
        out.push(change(
            kind,
            name,
            ptr,
            "template.uri-changed",
            Class::Breaking,
            message,
        ));
    } else if old_t.skeleton == new_t.skeleton && same_vars {
        let message = format!("{a} became {b} (same variables, same literal parts)");
        out.push(change(
            kind,
            name,
            ptr,
            "template.uri-rewritten",
            Class::Info,
            message,
        ));
    }
}

/// An RFC 6570 template: its variables (a query expansion's, `{?x}` and `{&x}`, optional) and
/// its literal parts with each path expression as `{}`.
struct Template {
    variables: Vec<(String, bool)>,
    skeleton: String,
}

impl Template {
    fn parse(t: &str) -> Template {
        let mut variables = Vec::new();
        let mut skeleton = String::new();
        let mut rest = t;
        while let Some(open) = rest.find('{') {
            skeleton.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let expr = &rest[open + 1..open + close];
            let optional = expr.starts_with('?') || expr.starts_with('&');
            let body = expr.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
            for spec in body.split(',') {
                let var = spec.split([':', '*']).next().unwrap_or_default();
                variables.push((var.to_owned(), optional));
            }
            if !optional {
                skeleton.push_str("{}");
            }
            rest = &rest[open + close + 1..];
        }
        skeleton.push_str(rest);
        variables.sort();
        Template {
            variables,
            skeleton,
        }
    }
}

fn prompt(name: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let kind = Kind::Prompt;
    words(kind, name, old, new, &["title", "description"], out);
    let args = |p: &Value| -> BTreeMap<String, Value> {
        let list = p
            .get("arguments")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        list.into_iter()
            .map(|a| (key_of(&a, "name").to_owned(), a))
            .collect()
    };
    let (a, b) = (args(old), args(new));
    let required = |arg: &Value| {
        arg.get("required")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    for (arg, o) in &a {
        let ptr = format!("/arguments/{}", schema::escape(arg));
        match b.get(arg) {
            None => {
                let message = format!("argument `{arg}` removed: a get that sends it is refused");
                out.push(change(
                    kind,
                    name,
                    &ptr,
                    "prompt.argument-removed",
                    Class::Breaking,
                    message,
                ));
            }
            Some(n) => {
                match (required(o), required(n)) {
                    (false, true) => {
                        let message = format!("argument `{arg}` is now required");
                        out.push(change(
                            kind,
                            name,
                            &ptr,
                            "prompt.argument-made-required",
                            Class::Breaking,
                            message,
                        ));
                    }
                    (true, false) => {
                        let message = format!("argument `{arg}` is no longer required");
                        out.push(change(
                            kind,
                            name,
                            &ptr,
                            "prompt.argument-made-optional",
                            Class::Compatible,
                            message,
                        ));
                    }
                    _ => {}
                }
                for field in ["title", "description"] {
                    if o.get(field) != n.get(field) {
                        let message = format!("argument `{arg}`: {field} changed");
                        let rule = format!("prompt.argument-{field}-changed");
                        out.push(change(
                            kind,
                            name,
                            &format!("{ptr}/{field}"),
                            &rule,
                            Class::Info,
                            message,
                        ));
                    }
                }
            }
        }
    }
    for (arg, n) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
        let ptr = format!("/arguments/{}", schema::escape(arg));
        if required(n) {
            let message = format!("required argument `{arg}` added");
            out.push(change(
                kind,
                name,
                &ptr,
                "prompt.argument-added-required",
                Class::Breaking,
                message,
            ));
        } else {
            let message = format!("optional argument `{arg}` added");
            out.push(change(
                kind,
                name,
                &ptr,
                "prompt.argument-added",
                Class::Compatible,
                message,
            ));
        }
    }
}
