//! Instances generated from a schema, and the witness of a breaking input change: one the old
//! schema accepts and the new one refuses, each verdict given by the runtime's own validator.
//!
//! The generator aims at boundaries: for a number its bounds and just inside them, for a string
//! its length bounds, a sample of its `pattern` and of its `format`, for every value its `enum`,
//! `const`, `default` and `examples`, for an object its required properties alone and then each
//! optional property in turn (and an undeclared key where the schema allows one), for an array
//! the fewest and the most items allowed. Everything is then kept only if the old schema's
//! validator accepts it, so the generator may propose freely.

use serde_json::{Map, Value, json};

use super::pattern;
use super::schema::{extra, required, view};
use crate::validate::{Validator, Violation};

/// At most this many instances for one schema node.
const PER_NODE: usize = 48;
/// At most this many instances in all.
const ROOT_LIMIT: usize = 4096;
/// Arrays longer than this are not generated.
const MAX_ARRAY: u64 = 256;

/// Instances of `schema` (its own root for `$ref`s): proposals, not all valid; `keys` are names
/// to try as undeclared properties of open objects (the new schema's property names).
pub fn instances(schema: &Value, keys: &[String]) -> Vec<Value> {
    let mut g = Gen { root: schema, keys };
    let mut out = g.node(schema, 0);
    dedup(&mut out, ROOT_LIMIT);
    out
}

/// The instances of `old` that its validator accepts, or an error when it does not compile.
pub fn valid_instances(old: &Value, keys: &[String]) -> Result<Vec<Value>, String> {
    let validator = Validator::compile(old)?;
    Ok(instances(old, keys)
        .into_iter()
        .filter(|i| validator.validate(&mut i.clone()).is_empty())
        .collect())
}

/// An instance `old` accepts and `new` refuses, preferring one refused at `near` (an instance
/// pointer prefix, `*` for any array index), with what the new validator said of it.
pub fn witness(old: &Value, new: &Value, near: &str) -> Option<(Value, Vec<Violation>)> {
    let new_validator = Validator::compile(new).ok()?;
    let mut first = None;
    for instance in valid_instances(old, &property_names(new)).ok()? {
        let violations = new_validator.validate(&mut instance.clone());
        if violations.is_empty() {
            continue;
        }
        if violations.iter().any(|v| within(&v.path, near)) {
            return Some((instance, violations));
        }
        first.get_or_insert((instance, violations));
    }
    first
}

/// Every property name declared anywhere in `schema`.
pub fn property_names(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_names(schema, &mut out);
    out.sort();
    out.dedup();
    out
}

fn collect_names(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(p)) = m.get("properties") {
                out.extend(p.keys().cloned());
            }
            m.values().for_each(|v| collect_names(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| collect_names(v, out)),
        _ => {}
    }
}

/// Whether the violation at `path` is at or below `near` (`*` matches any array index).
pub(crate) fn within(path: &str, near: &str) -> bool {
    let mut p = path.split('/').skip(1);
    near.split('/').skip(1).all(|n| match p.next() {
        Some(seg) => n == "*" || n == seg,
        None => false,
    })
}

/// The instance pointer a schema pointer (inside an inputSchema) points into: `/properties/a/items/maximum`
/// becomes `/a/*`.
pub(crate) fn instance_pointer(schema_pointer: &str) -> String {
    let mut out = String::new();
    let mut segs = schema_pointer.split('/').skip(1);
    while let Some(seg) = segs.next() {
        match seg {
            "properties" => match segs.next() {
                Some(name) => {
                    out.push('/');
                    out.push_str(name);
                }
                None => break,
            },
            "items" => out.push_str("/*"),
            _ => break,
        }
    }
    out
}

fn dedup(list: &mut Vec<Value>, limit: usize) {
    let mut seen = std::collections::HashSet::new();
    list.retain(|v| seen.insert(v.to_string()));
    list.truncate(limit);
}

struct Gen<'a> {
    root: &'a Value,
    keys: &'a [String],
}

impl Gen<'_> {
    fn node(&mut self, schema: &Value, depth: usize) -> Vec<Value> {
        if depth > 12 {
            return vec![Value::Null];
        }
        let (s, _) = view(schema, self.root, depth);
        let empty = Map::new();
        let m = s.as_object().unwrap_or(&empty);
        let mut out = Vec::new();
        if let Some(c) = m.get("const") {
            out.push(c.clone());
        }
        if let Some(Value::Array(values)) = m.get("enum") {
            out.extend(values.iter().cloned());
        }
        out.extend(m.get("default").cloned());
        if let Some(Value::Array(examples)) = m.get("examples") {
            out.extend(examples.iter().cloned());
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = m.get(key) {
                for b in branches {
                    out.extend(self.node(b, depth + 1));
                }
            }
        }
        // A conditional's branches propose values too (the old validator keeps the valid ones).
        for key in ["then", "else"] {
            if let Some(branch) = m.get(key).filter(|b| b.is_object()) {
                out.extend(self.node(branch, depth + 1));
            }
        }
        let types: Vec<&str> = match m.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ if m.contains_key("properties") => vec!["object"],
            _ if out.is_empty() => vec![
                "string", "integer", "number", "boolean", "null", "object", "array",
            ],
            _ => vec![],
        };
        for t in types {
            match t {
                "null" => out.push(Value::Null),
                "boolean" => out.extend([json!(true), json!(false)]),
                "integer" => out.extend(numbers(m, true)),
                "number" => out.extend(numbers(m, false)),
                "string" => out.extend(strings(m).into_iter().map(Value::String)),
                "array" => out.extend(self.array(m, depth)),
                "object" => out.extend(self.object(m, depth)),
                _ => {}
            }
        }
        // The root keeps every variant; a nested node its first ones (the likeliest valid).
        dedup(&mut out, if depth == 0 { ROOT_LIMIT } else { PER_NODE });
        out
    }

    fn object(&mut self, m: &Map<String, Value>, depth: usize) -> Vec<Value> {
        let props = m
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let req = required(m);
        let each: Vec<(String, Vec<Value>)> = props
            .iter()
            .map(|(k, s)| (k.clone(), self.node(s, depth + 1)))
            .collect();
        // A few bases (the required properties alone, each at its k-th value): the first values
        // are the likeliest valid, and one invalid value must not spoil every variant.
        let base_of = |k: usize| -> Map<String, Value> {
            let mut base = Map::new();
            for (name, values) in &each {
                if req.contains(name) && !values.is_empty() {
                    base.insert(name.clone(), values[k % values.len()].clone());
                }
            }
            base
        };
        let bases: Vec<Map<String, Value>> = (0..4).map(base_of).collect();
        let base = bases[0].clone();
        let mut out: Vec<Value> = bases.iter().cloned().map(Value::Object).collect();
        // Each property (required or not) with each of its values, the others at the base.
        for (k, values) in &each {
            for v in values {
                let mut o = base.clone();
                o.insert(k.clone(), v.clone());
                out.push(Value::Object(o));
            }
        }
        // Every property present at once.
        let mut all = base.clone();
        for (k, values) in &each {
            if let Some(v) = values.first() {
                all.insert(k.clone(), v.clone());
            }
        }
        out.push(Value::Object(all));
        // Undeclared keys, where the schema lets them in.
        let undeclared = extra(m);
        if undeclared != Value::Bool(false) {
            // Values of the schema undeclared keys meet, then one of each type.
            let mut values = match &undeclared {
                Value::Object(_) => self.node(&undeclared, depth + 1),
                _ => Vec::new(),
            };
            values.truncate(8);
            values.extend([
                json!("x"),
                json!(0),
                json!(1.5),
                json!(true),
                Value::Null,
                json!({}),
                json!([]),
            ]);
            let names = self.keys.iter().filter(|k| !props.contains_key(*k));
            for k in names.map(String::as_str).chain(["extra"]) {
                for v in values.iter().cloned() {
                    let mut o = base.clone();
                    o.insert(k.to_owned(), v);
                    out.push(Value::Object(o));
                }
            }
        }
        out
    }

    fn array(&mut self, m: &Map<String, Value>, depth: usize) -> Vec<Value> {
        let items = match m.get("items") {
            Some(s) => self.node(s, depth + 1),
            None => vec![json!("x"), json!(0)],
        };
        let min = m.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = m.get("maxItems").and_then(Value::as_u64);
        let mut lengths = vec![min, min + 1, 0, 1];
        if let Some(max) = max {
            lengths.extend([max, max.saturating_sub(1)]);
        }
        // Two equal items (what `uniqueItems` refuses).
        let mut out: Vec<Value> = items.iter().take(4).map(|v| json!([v, v])).collect();
        for len in lengths.into_iter().filter(|l| *l <= MAX_ARRAY) {
            if items.is_empty() {
                break;
            }
            // Distinct items where there are enough (uniqueItems), cycling otherwise.
            let arr: Vec<Value> = (0..len as usize)
                .map(|i| items[i % items.len()].clone())
                .collect();
            out.push(Value::Array(arr));
            for v in items.iter().take(8) {
                let mut arr = vec![v.clone()];
                arr.extend((1..len as usize).map(|i| items[i % items.len()].clone()));
                if len >= 1 {
                    out.push(Value::Array(arr));
                }
            }
        }
        out
    }
}

fn numbers(m: &Map<String, Value>, integer: bool) -> Vec<Value> {
    let mut raw: Vec<f64> = vec![0.0, 1.0, -1.0, 2.0, 10.0, 100.0, 1e6];
    if !integer {
        raw.extend([0.5, 1.5, -0.5]);
    }
    for kw in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(b) = m.get(kw).and_then(Value::as_f64) {
            raw.extend([b, b + 1.0, b - 1.0]);
            if !integer {
                raw.extend([b + 0.5, b - 0.5, b + 0.001, b - 0.001]);
            }
        }
    }
    if let Some(step) = m.get("multipleOf").and_then(Value::as_f64) {
        let base = m.get("minimum").and_then(Value::as_f64).unwrap_or(0.0);
        let first = (base / step).ceil() * step;
        raw.extend([first, first + step, step]);
    }
    // Values inside the bounds first: an object's bases take the first ones.
    let lo = m.get("minimum").and_then(Value::as_f64).unwrap_or(f64::MIN);
    let hi = m.get("maximum").and_then(Value::as_f64).unwrap_or(f64::MAX);
    let xlo = m.get("exclusiveMinimum").and_then(Value::as_f64);
    let xhi = m.get("exclusiveMaximum").and_then(Value::as_f64);
    let inside =
        |x: &f64| *x >= lo && *x <= hi && xlo.is_none_or(|b| *x > b) && xhi.is_none_or(|b| *x < b);
    let (mut first, rest): (Vec<f64>, Vec<f64>) = raw.into_iter().partition(inside);
    first.extend(rest);
    first
        .into_iter()
        .filter(|x| x.is_finite())
        .filter(|x| !integer || x.fract() == 0.0)
        .map(|x| {
            if x.fract() == 0.0 && x.abs() < 9e15 {
                json!(x as i64)
            } else {
                json!(x)
            }
        })
        .collect()
}

fn strings(m: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let min = m.get("minLength").and_then(Value::as_u64);
    let max = m.get("maxLength").and_then(Value::as_u64);
    for len in [
        min,
        min.map(|l| l + 1),
        max,
        max.map(|l| l.saturating_sub(1)),
    ]
    .into_iter()
    .flatten()
    {
        if len <= 4096 {
            out.push("x".repeat(len as usize));
        }
    }
    let lengths = out.len();
    if let Some(p) = m.get("pattern").and_then(Value::as_str) {
        let samples = pattern::samples(p);
        out.extend(samples.iter().cloned());
        // Padded to the length bounds too, where the pattern allows it.
        for s in &samples {
            for len in [min, max].into_iter().flatten() {
                let len = len as usize;
                if s.chars().count() < len && len <= 4096 {
                    out.push(format!("{s}{}", "x".repeat(len - s.chars().count())));
                }
            }
        }
    }
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        out.extend(format_samples(f).iter().map(|s| (*s).to_owned()));
    }
    // The likeliest valid first: pattern and format samples, then the length bounds.
    let mut ordered: Vec<String> = out.split_off(lengths);
    ordered.extend(out);
    ordered.extend([String::new(), "a".into(), "x".repeat(5)]);
    ordered
}

/// A few valid values of each format of JSON Schema 2020-12.
fn format_samples(format: &str) -> &'static [&'static str] {
    match format {
        "email" | "idn-email" => &["a@example.com"],
        "hostname" | "idn-hostname" => &["example.com", "a"],
        "ipv4" => &["127.0.0.1"],
        "ipv6" => &["::1"],
        "uri" | "iri" => &["https://example.com/a"],
        "uri-reference" | "iri-reference" => &["https://example.com/a", "a/b"],
        "uri-template" => &["https://example.com/{a}"],
        "uuid" => &["123e4567-e89b-12d3-a456-426614174000"],
        "date" => &["2024-02-29"],
        "time" => &["12:00:00Z"],
        "date-time" => &["2024-02-29T12:00:00Z"],
        "duration" => &["P1D"],
        "json-pointer" => &["/a"],
        "relative-json-pointer" => &["0/a"],
        "regex" => &["^a$"],
        _ => &[],
    }
}
