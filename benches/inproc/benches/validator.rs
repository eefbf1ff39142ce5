//! Our validator (`mcp_runtime::validate::Validator`) beside the `jsonschema` crate (Draft
//! 2020-12, formats asserted), on the same schemas and the same inputs, valid and invalid: why the
//! project keeps a validator of its own (ARCHITECTURE.md, "Why a validator of our own";
//! docs/validator.md has the figures).
//!
//! ```sh
//! cd benches && cargo bench -p inproc --bench validator
//! VALIDATOR_MESSAGES=1 cargo bench -p inproc --bench validator   # the messages side by side
//! ```
//!
//! Each schema is compiled once, outside the timing, by each validator. `all` collects every
//! violation (what a refused call reports: ours `validate`, jsonschema `iter_errors`); `first`
//! stops at the first (ours `is_valid`, jsonschema `is_valid`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group};
use mcp_runtime::validate::Validator;
use serde_json::{Value, json};

/// A schema and an input that passes it and one that fails it in several places.
struct Case {
    name: &'static str,
    schema: Value,
    valid: Value,
    invalid: Value,
}

fn cases() -> Vec<Case> {
    let item = json!({
        "type": "object",
        "properties": {
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 999},
            "kind": {"enum": ["book", "tool", "food"]}
        },
        "required": ["sku", "quantity", "kind"],
        "additionalProperties": false
    });
    let good_item =
        |i: usize| json!({"sku": format!("ABC-{:04}", i), "quantity": 1 + i % 9, "kind": "book"});
    let bad_item = |i: usize| json!({"sku": format!("abc-{i}"), "quantity": 0, "kind": "toy"});
    vec![
        Case {
            name: "flat",
            schema: json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 3, "maxLength": 80},
                    "task_id": {"type": "string", "pattern": "^T-\\d+$"},
                    "priority": {"enum": ["low", "normal", "high"], "default": "normal"},
                    "estimate": {"type": "integer", "minimum": 0, "maximum": 9999},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8, "uniqueItems": true}
                },
                "required": ["title", "task_id", "estimate"],
                "additionalProperties": false
            }),
            valid: json!({"title": "Write the report", "task_id": "T-42", "priority": "high",
                          "estimate": 120, "tags": ["docs", "q3"]}),
            invalid: json!({"title": "Wr", "task_id": "42", "priority": "urgent",
                            "estimate": 10000, "tags": ["a", "a"], "extra": true}),
        },
        Case {
            name: "order-of-100-items",
            schema: json!({
                "type": "object",
                "properties": {
                    "customer": {"type": "string", "minLength": 1},
                    "items": {"type": "array", "items": item, "minItems": 1, "maxItems": 500}
                },
                "required": ["customer", "items"],
                "additionalProperties": false
            }),
            valid: json!({"customer": "ada", "items": (0..100).map(good_item).collect::<Vec<_>>()}),
            invalid: json!({"customer": "", "items": (0..100).map(|i| if i % 10 == 0 { bad_item(i) } else { good_item(i) }).collect::<Vec<_>>()}),
        },
        Case {
            name: "tagged-union",
            schema: json!({
                "type": "object",
                "properties": {
                    "shape": {
                        "oneOf": [
                            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number", "exclusiveMinimum": 0}},
                             "required": ["kind", "r"], "additionalProperties": false},
                            {"type": "object", "properties": {"kind": {"const": "rect"}, "w": {"type": "number", "exclusiveMinimum": 0}, "h": {"type": "number", "exclusiveMinimum": 0}},
                             "required": ["kind", "w", "h"], "additionalProperties": false}
                        ]
                    }
                },
                "required": ["shape"],
                "additionalProperties": false
            }),
            valid: json!({"shape": {"kind": "rect", "w": 3.5, "h": 2}}),
            invalid: json!({"shape": {"kind": "rect", "w": -1}}),
        },
        Case {
            name: "recursive-ref",
            schema: json!({
                "$defs": {
                    "node": {
                        "type": "object",
                        "properties": {
                            "label": {"type": "string", "maxLength": 16},
                            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                        },
                        "required": ["label"],
                        "additionalProperties": false
                    }
                },
                "type": "object",
                "properties": {"root": {"$ref": "#/$defs/node"}},
                "required": ["root"]
            }),
            valid: json!({"root": tree(5, "n")}),
            invalid: json!({"root": tree(5, "a label longer than sixteen")}),
        },
        Case {
            name: "formats",
            schema: json!({
                "type": "object",
                "properties": {
                    "email": {"type": "string", "format": "email"},
                    "when": {"type": "string", "format": "date-time"},
                    "link": {"type": "string", "format": "uri"},
                    "id": {"type": "string", "format": "uuid"},
                    "host": {"type": "string", "format": "hostname"},
                    "addr": {"type": "string", "format": "ipv6"}
                },
                "required": ["email", "when", "link", "id", "host", "addr"]
            }),
            valid: json!({"email": "ada@example.com", "when": "2026-12-04T10:00:00Z",
                          "link": "https://example.com/a/b?c=d#e", "id": "123e4567-e89b-12d3-a456-426614174000",
                          "host": "api.example.com", "addr": "2001:db8::1"}),
            invalid: json!({"email": "not an email", "when": "2026-13-04T10:00:00Z",
                            "link": "no scheme", "id": "123e4567", "host": "-bad-.example",
                            "addr": "2001:db8:::1"}),
        },
    ]
}

/// A full binary tree of `depth` levels whose labels are `label`.
fn tree(depth: usize, label: &str) -> Value {
    if depth == 0 {
        return json!({"label": label});
    }
    json!({"label": label, "children": [tree(depth - 1, label), tree(depth - 1, label)]})
}

fn reference(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("jsonschema compiles the schema")
}

fn ours(schema: &Value) -> Validator {
    Validator::compile(schema).expect("our validator compiles the schema")
}

/// Both validators agree on every case before anything is timed: a benchmark of a wrong answer
/// measures nothing.
fn agree(case: &Case, ours: &Validator, theirs: &jsonschema::Validator) {
    let mut valid = case.valid.clone();
    let mut invalid = case.invalid.clone();
    assert!(
        ours.is_valid(&mut valid),
        "{}: ours refuses the valid input",
        case.name
    );
    assert!(
        theirs.is_valid(&case.valid),
        "{}: jsonschema refuses the valid input",
        case.name
    );
    assert!(
        !ours.is_valid(&mut invalid),
        "{}: ours accepts the invalid input",
        case.name
    );
    assert!(
        !theirs.is_valid(&case.invalid),
        "{}: jsonschema accepts the invalid input",
        case.name
    );
}

fn bench(c: &mut Criterion) {
    for case in cases() {
        let (ours, theirs) = (ours(&case.schema), reference(&case.schema));
        agree(&case, &ours, &theirs);
        let mut g = c.benchmark_group(format!("validator/{}", case.name));
        for (input, label) in [(&case.valid, "valid"), (&case.invalid, "invalid")] {
            // Ours rewrites integral floats in place once; later passes find nothing to rewrite.
            let mut mine = input.clone();
            g.bench_function(format!("{label}/all/ours"), |b| {
                b.iter(|| black_box(ours.validate(black_box(&mut mine)).len()))
            });
            g.bench_function(format!("{label}/all/jsonschema"), |b| {
                b.iter(|| black_box(theirs.iter_errors(black_box(input)).count()))
            });
            g.bench_function(format!("{label}/first/ours"), |b| {
                b.iter(|| black_box(ours.is_valid(black_box(&mut mine))))
            });
            g.bench_function(format!("{label}/first/jsonschema"), |b| {
                b.iter(|| black_box(theirs.is_valid(black_box(input))))
            });
        }
        g.finish();
    }
}

/// The messages each validator gives for every invalid input, as Markdown rows.
fn print_messages() {
    println!("| case | ours | jsonschema |\n| --- | --- | --- |");
    for case in cases() {
        let (ours, theirs) = (ours(&case.schema), reference(&case.schema));
        let mut input = case.invalid.clone();
        let mine: Vec<String> = ours
            .validate(&mut input)
            .iter()
            .map(|v| format!("{}: {}", v.path, v.message))
            .collect();
        let other: Vec<String> = theirs
            .iter_errors(&case.invalid)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        let cell = |all: &[String]| {
            let shown: Vec<String> = all.iter().take(6).map(|m| format!("`{m}`")).collect();
            let more = all.len().saturating_sub(6);
            let tail = if more > 0 {
                format!("<br>… {more} more")
            } else {
                String::new()
            };
            format!("{} ({}){tail}", shown.join("<br>"), all.len())
        };
        println!("| {} | {} | {} |", case.name, cell(&mine), cell(&other));
    }
}

criterion_group!(benches, bench);

fn main() {
    if std::env::var_os("VALIDATOR_MESSAGES").is_some() {
        print_messages();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
