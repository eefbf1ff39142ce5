//! Contract evolution (`mcp_runtime::contract`): a corpus of contract pairs, each classified, its
//! class and the exit code it implies asserted; for every breaking change to a tool's arguments,
//! a witness that the old validator accepts and the new one refuses; for every pair that breaks
//! nothing in the arguments, no instance generated from the old schema and valid under it is
//! refused by the new one. Then snapshots taken from a running server, and the test helper.

use mcp_runtime::contract::{self, Class, Snapshot, witness};
use mcp_runtime::prelude::*;
use mcp_runtime::validate::Validator;
use serde_json::{Value, json};
use test_support::scratch::Scratch;

const B: Class = Class::Breaking;
const C: Class = Class::Compatible;
const U: Class = Class::Unknown;
const I: Class = Class::Info;

fn snap(
    tools: Vec<Value>,
    resources: Vec<Value>,
    templates: Vec<Value>,
    prompts: Vec<Value>,
) -> Snapshot {
    let server = contract::ServerId {
        name: "s".into(),
        version: "1.0.0".into(),
        protocol_version: "2025-11-25".into(),
    };
    Snapshot::from_lists(server, &tools, &resources, &templates, &prompts)
}

fn tools(list: Vec<Value>) -> Snapshot {
    snap(list, vec![], vec![], vec![])
}

/// A closed object of `props`, `required` ones required (how this toolkit publishes arguments).
fn obj(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// An open object (how pydantic publishes arguments).
fn open(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

fn one(name: &str, schema: Value) -> Value {
    obj(json!({ name: schema }), &[name])
}

fn input(schema: Value) -> Snapshot {
    tools(vec![json!({"name": "t", "inputSchema": schema})])
}

fn output(schema: Value) -> Snapshot {
    tools(vec![
        json!({"name": "t", "inputSchema": obj(json!({}), &[]), "outputSchema": schema}),
    ])
}

fn tool(extra: Value) -> Snapshot {
    let mut t = json!({"name": "t", "inputSchema": obj(json!({}), &[])});
    for (k, v) in extra.as_object().unwrap() {
        t[k] = v.clone();
    }
    tools(vec![t])
}

fn prompt(args: Value) -> Snapshot {
    snap(
        vec![],
        vec![],
        vec![],
        vec![json!({"name": "p", "arguments": args})],
    )
}

fn template(uri: &str) -> Snapshot {
    snap(
        vec![],
        vec![],
        vec![json!({"name": "tpl", "uriTemplate": uri})],
        vec![],
    )
}

fn resource(extra: Value) -> Snapshot {
    let mut r = json!({"uri": "r://a", "name": "a"});
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    snap(vec![], vec![r], vec![], vec![])
}

struct Case {
    name: &'static str,
    old: Snapshot,
    new: Snapshot,
    rule: &'static str,
    class: Class,
}

fn case(
    name: &'static str,
    old: Snapshot,
    new: Snapshot,
    rule: &'static str,
    class: Class,
) -> Case {
    Case {
        name,
        old,
        new,
        rule,
        class,
    }
}

/// A pair and its reverse: `old → new` is `fwd`, `new → old` is `rev`.
fn both(
    name: &'static str,
    old: Snapshot,
    new: Snapshot,
    fwd: (&'static str, Class),
    rev: (&'static str, Class),
) -> [Case; 2] {
    [
        case(name, old.clone(), new.clone(), fwd.0, fwd.1),
        case(name, new, old, rev.0, rev.1),
    ]
}

fn corpus() -> Vec<Case> {
    let int = |extra: Value| {
        let mut s = json!({"type": "integer"});
        for (k, v) in extra.as_object().unwrap() {
            s[k] = v.clone();
        }
        s
    };
    let string = |extra: Value| {
        let mut s = json!({"type": "string"});
        for (k, v) in extra.as_object().unwrap() {
            s[k] = v.clone();
        }
        s
    };
    let arr = |items: Value, extra: Value| {
        let mut s = json!({"type": "array", "items": items});
        for (k, v) in extra.as_object().unwrap() {
            s[k] = v.clone();
        }
        s
    };
    let mut out: Vec<Case> = Vec::new();
    // ---- tools as a whole
    out.extend(both(
        "a tool removed / added",
        tools(vec![
            json!({"name": "a", "inputSchema": obj(json!({}), &[])}),
            json!({"name": "b", "inputSchema": obj(json!({}), &[])}),
        ]),
        tools(vec![
            json!({"name": "a", "inputSchema": obj(json!({}), &[])}),
        ]),
        ("tool.removed", B),
        ("tool.added", C),
    ));
    out.extend(both(
        "a description changed",
        tool(json!({"description": "Old words."})),
        tool(json!({"description": "New words."})),
        ("tool.description-changed", I),
        ("tool.description-changed", I),
    ));
    out.extend(both(
        "a title added / removed",
        tool(json!({})),
        tool(json!({"title": "T"})),
        ("tool.title-changed", I),
        ("tool.title-changed", I),
    ));
    // ---- arguments: presence
    let base = obj(json!({"a": {"type": "string"}}), &["a"]);
    out.extend(both(
        "a required argument added / removed",
        input(base.clone()),
        input(obj(
            json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
            &["a", "b"],
        )),
        ("input.required-added", B),
        ("input.property-removed", B),
    ));
    out.extend(both(
        "an optional argument added / removed (closed object)",
        input(base.clone()),
        input(obj(
            json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
            &["a"],
        )),
        ("input.property-added", C),
        ("input.property-removed", B),
    ));
    out.extend(both(
        "an optional argument added to an open object narrows what it took / removed stays accepted",
        input(open(json!({"a": {"type": "string"}}), &["a"])),
        input(open(json!({"a": {"type": "string"}, "b": {"type": "integer"}}), &["a"])),
        ("input.type-narrowed", B),
        ("input.property-removed", C),
    ));
    out.extend(both(
        "an optional argument made required / optional",
        input(obj(
            json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
            &["a"],
        )),
        input(obj(
            json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
            &["a", "b"],
        )),
        ("input.property-made-required", B),
        ("input.property-made-optional", C),
    ));
    out.extend(both(
        "additionalProperties closed / opened",
        input(open(json!({"a": {"type": "string"}}), &[])),
        input(obj(json!({"a": {"type": "string"}}), &[])),
        ("input.additional-properties-closed", B),
        ("input.additional-properties-opened", C),
    ));
    out.extend(both(
        "unevaluatedProperties closed / opened",
        input(json!({"type": "object", "properties": {"a": {"type": "string"}}})),
        input(json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false})),
        ("input.unevaluated-properties-closed", B),
        ("input.unevaluated-properties-opened", C),
    ));
    // ---- arguments: types
    out.extend(both(
        "number narrowed to integer / widened",
        input(one("n", json!({"type": "number"}))),
        input(one("n", json!({"type": "integer"}))),
        ("input.type-narrowed", B),
        ("input.type-widened", C),
    ));
    out.extend(both(
        "string or integer narrowed to string / widened",
        input(one("v", json!({"type": ["integer", "string"]}))),
        input(one("v", json!({"type": "string"}))),
        ("input.type-narrowed", B),
        ("input.type-widened", C),
    ));
    out.extend(both(
        "string became integer",
        input(one("v", json!({"type": "string"}))),
        input(one("v", json!({"type": "integer"}))),
        ("input.type-changed", B),
        ("input.type-changed", B),
    ));
    out.extend(both(
        "made nullable the pydantic way / not nullable",
        input(one("v", json!({"type": "integer"}))),
        input(one(
            "v",
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}),
        )),
        ("input.type-widened", C),
        ("input.type-narrowed", B),
    ));
    // ---- arguments: values
    out.extend(both(
        "an enum value removed / added",
        input(one("p", string(json!({"enum": ["low", "normal", "high"]})))),
        input(one("p", string(json!({"enum": ["low", "normal"]})))),
        ("input.enum-value-removed", B),
        ("input.enum-value-added", C),
    ));
    out.extend(both(
        "an enum added / removed",
        input(one("p", string(json!({})))),
        input(one("p", string(json!({"enum": ["a", "b"]})))),
        ("input.enum-added", B),
        ("input.enum-removed", C),
    ));
    out.extend(both(
        "a const changed",
        input(one("k", json!({"const": "a"}))),
        input(one("k", json!({"const": "b"}))),
        ("input.const-changed", B),
        ("input.const-changed", B),
    ));
    out.extend(both(
        "a const added / removed",
        input(one("k", string(json!({})))),
        input(one("k", string(json!({"const": "a"})))),
        ("input.const-added", B),
        ("input.const-removed", C),
    ));
    // ---- arguments: numeric bounds
    for (kw, tight, loose) in [("maximum", 999, 9999), ("exclusiveMaximum", 999, 9999)] {
        out.extend(both(
            kw,
            input(one("n", int(json!({ kw: loose })))),
            input(one("n", int(json!({ kw: tight })))),
            (
                if kw == "maximum" {
                    "input.maximum-tightened"
                } else {
                    "input.exclusiveMaximum-tightened"
                },
                B,
            ),
            (
                if kw == "maximum" {
                    "input.maximum-loosened"
                } else {
                    "input.exclusiveMaximum-loosened"
                },
                C,
            ),
        ));
    }
    for (kw, tight, loose) in [("minimum", 10, 0), ("exclusiveMinimum", 10, 0)] {
        out.extend(both(
            kw,
            input(one("n", int(json!({ kw: loose })))),
            input(one("n", int(json!({ kw: tight })))),
            (
                if kw == "minimum" {
                    "input.minimum-tightened"
                } else {
                    "input.exclusiveMinimum-tightened"
                },
                B,
            ),
            (
                if kw == "minimum" {
                    "input.minimum-loosened"
                } else {
                    "input.exclusiveMinimum-loosened"
                },
                C,
            ),
        ));
    }
    out.extend(both(
        "a maximum added / removed",
        input(one("n", int(json!({})))),
        input(one("n", int(json!({"maximum": 100})))),
        ("input.maximum-tightened", B),
        ("input.maximum-loosened", C),
    ));
    out.extend(both(
        "minimum 0 became exclusiveMinimum 0",
        input(one("n", json!({"type": "number", "minimum": 0}))),
        input(one("n", json!({"type": "number", "exclusiveMinimum": 0}))),
        ("input.exclusiveMinimum-tightened", B),
        ("input.minimum-loosened", C),
    ));
    out.extend(both(
        "multipleOf 1 became 2",
        input(one("n", int(json!({"multipleOf": 1})))),
        input(one("n", int(json!({"multipleOf": 2})))),
        ("input.multipleOf-tightened", B),
        ("input.multipleOf-loosened", C),
    ));
    // ---- arguments: strings
    out.extend(both(
        "maxLength lowered / raised",
        input(one("s", string(json!({"maxLength": 80})))),
        input(one("s", string(json!({"maxLength": 40})))),
        ("input.maxLength-tightened", B),
        ("input.maxLength-loosened", C),
    ));
    out.extend(both(
        "minLength raised / lowered",
        input(one("s", string(json!({"minLength": 1})))),
        input(one("s", string(json!({"minLength": 3})))),
        ("input.minLength-tightened", B),
        ("input.minLength-loosened", C),
    ));
    out.extend(both(
        "a pattern added / removed",
        input(one("id", string(json!({})))),
        input(one("id", string(json!({"pattern": "^T-\\d+$"})))),
        ("input.pattern-added", B),
        ("input.pattern-removed", C),
    ));
    out.extend(both(
        "a pattern changed",
        input(one("id", string(json!({"pattern": "^T-\\d+$"})))),
        input(one("id", string(json!({"pattern": "^T-\\d{1,3}$"})))),
        ("input.pattern-changed", B),
        ("input.pattern-changed", U),
    ));
    out.extend(both(
        "a format added / removed",
        input(one("d", string(json!({})))),
        input(one("d", string(json!({"format": "date"})))),
        ("input.format-added", B),
        ("input.format-removed", C),
    ));
    out.extend(both(
        "an output pattern loosened / changed unproven",
        output(open(
            json!({"id": string(json!({"pattern": "^T-\\d{1,3}$"}))}),
            &["id"],
        )),
        output(open(
            json!({"id": string(json!({"pattern": "^T-\\d+$"}))}),
            &["id"],
        )),
        ("output.pattern-changed", B),
        ("output.pattern-changed", U),
    ));
    out.extend(both(
        "a format changed",
        input(one("d", string(json!({"format": "date"})))),
        input(one("d", string(json!({"format": "date-time"})))),
        ("input.format-changed", B),
        ("input.format-changed", B),
    ));
    // ---- arguments: defaults and words
    out.extend(both(
        "a default changed",
        input(obj(
            json!({"v": {"type": "boolean", "default": false}}),
            &[],
        )),
        input(obj(json!({"v": {"type": "boolean", "default": true}}), &[])),
        ("input.default-changed", U),
        ("input.default-changed", U),
    ));
    out.extend(both(
        "a default added / removed",
        input(obj(json!({"v": {"type": "boolean"}}), &[])),
        input(obj(json!({"v": {"type": "boolean", "default": true}}), &[])),
        ("input.default-added", I),
        ("input.default-removed", I),
    ));
    out.extend(both(
        "an argument's description changed",
        input(one("v", string(json!({"description": "old"})))),
        input(one("v", string(json!({"description": "new"})))),
        ("input.annotation-changed", I),
        ("input.annotation-changed", I),
    ));
    // ---- arguments: nested objects and arrays
    let address = |zip: Value, req: &[&str]| {
        one(
            "address",
            obj(json!({"street": {"type": "string"}, "zip": zip}), req),
        )
    };
    out.extend(both(
        "a nested property made required / optional",
        input(address(string(json!({})), &["street"])),
        input(address(string(json!({})), &["street", "zip"])),
        ("input.property-made-required", B),
        ("input.property-made-optional", C),
    ));
    out.extend(both(
        "a nested bound tightened / loosened",
        input(address(string(json!({"maxLength": 10})), &["street"])),
        input(address(string(json!({"maxLength": 5})), &["street"])),
        ("input.maxLength-tightened", B),
        ("input.maxLength-loosened", C),
    ));
    out.extend(both(
        "an array's items narrowed / widened",
        input(one(
            "tags",
            arr(json!({"type": ["integer", "string"]}), json!({})),
        )),
        input(one("tags", arr(json!({"type": "string"}), json!({})))),
        ("input.type-narrowed", B),
        ("input.type-widened", C),
    ));
    out.extend(both(
        "maxItems lowered / raised",
        input(one(
            "tags",
            arr(json!({"type": "string"}), json!({"maxItems": 5})),
        )),
        input(one(
            "tags",
            arr(json!({"type": "string"}), json!({"maxItems": 3})),
        )),
        ("input.maxItems-tightened", B),
        ("input.maxItems-loosened", C),
    ));
    out.extend(both(
        "minItems raised / lowered",
        input(one("tags", arr(json!({"type": "string"}), json!({})))),
        input(one(
            "tags",
            arr(json!({"type": "string"}), json!({"minItems": 1})),
        )),
        ("input.minItems-tightened", B),
        ("input.minItems-loosened", C),
    ));
    out.extend(both(
        "uniqueItems required / no longer",
        input(one("tags", arr(json!({"type": "string"}), json!({})))),
        input(one(
            "tags",
            arr(json!({"type": "string"}), json!({"uniqueItems": true})),
        )),
        ("input.uniqueItems-tightened", B),
        ("input.uniqueItems-loosened", C),
    ));
    out.extend(both(
        "an enum value removed inside array items",
        input(one("xs", arr(json!({"enum": [1, 2, 3]}), json!({})))),
        input(one("xs", arr(json!({"enum": [1, 2]}), json!({})))),
        ("input.enum-value-removed", B),
        ("input.enum-value-added", C),
    ));
    out.extend(both(
        "a required property added to objects in an array",
        input(one(
            "xs",
            arr(obj(json!({"a": {"type": "string"}}), &["a"]), json!({})),
        )),
        input(one(
            "xs",
            arr(
                obj(
                    json!({"a": {"type": "string"}, "b": {"type": "string"}}),
                    &["a", "b"],
                ),
                json!({}),
            ),
        )),
        ("input.required-added", B),
        ("input.property-removed", B),
    ));
    // ---- arguments: unions and references
    out.extend(both(
        "a union's branch changed: proven by a witness each way",
        input(one(
            "v",
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        )),
        input(one(
            "v",
            json!({"oneOf": [{"type": "string"}, {"type": "boolean"}]}),
        )),
        ("input.composition-changed", B),
        ("input.composition-changed", B),
    ));
    out.extend(both(
        "an anyOf branch removed (a witness proves it) / added (unproven)",
        input(one("v", json!({"anyOf": [obj(json!({"a": {"type": "string"}}), &["a"]), obj(json!({"b": {"type": "string"}}), &["b"])]}))),
        input(one("v", json!({"anyOf": [obj(json!({"a": {"type": "string"}}), &["a"])]}))),
        ("input.composition-changed", B),
        ("input.composition-changed", U),
    ));
    out.extend(both(
        "if/then added (a witness proves it) / removed (unproven)",
        input(one("v", string(json!({})))),
        input(one(
            "v",
            string(json!({"if": {"const": "a"}, "then": {"minLength": 2}})),
        )),
        ("input.composition-changed", B),
        ("input.composition-changed", U),
    ));
    let with_def = |max: i64| {
        let mut s = obj(json!({"n": {"$ref": "#/$defs/N"}}), &["n"]);
        s["$defs"] = json!({"N": {"type": "integer", "maximum": max}});
        s
    };
    out.extend(both(
        "a bound tightened behind a $ref",
        input(with_def(100)),
        input(with_def(10)),
        ("input.maximum-tightened", B),
        ("input.maximum-loosened", C),
    ));
    out.extend(both(
        "a $ref inlined: no change / still none",
        input(with_def(100)),
        input(one("n", int(json!({"maximum": 100})))),
        ("", I),
        ("", I),
    ));
    // ---- outputs: the reverse direction
    let out_base = open(
        json!({"id": {"type": "string"}, "total": {"type": "number"}}),
        &["id", "total"],
    );
    out.extend(both(
        "an output property removed / added",
        output(out_base.clone()),
        output(open(json!({"id": {"type": "string"}}), &["id"])),
        ("output.property-removed", B),
        ("output.property-added", C),
    ));
    out.extend(both(
        "an output property made optional / required",
        output(out_base.clone()),
        output(open(
            json!({"id": {"type": "string"}, "total": {"type": "number"}}),
            &["id"],
        )),
        ("output.property-made-optional", B),
        ("output.property-made-required", C),
    ));
    out.extend(both(
        "an output bound loosened / tightened",
        output(open(json!({"n": int(json!({"maximum": 10}))}), &["n"])),
        output(open(json!({"n": int(json!({"maximum": 100}))}), &["n"])),
        ("output.maximum-loosened", B),
        ("output.maximum-tightened", C),
    ));
    out.extend(both(
        "an output enum value added / removed",
        output(open(
            json!({"s": string(json!({"enum": ["paid", "shipped"]}))}),
            &["s"],
        )),
        output(open(
            json!({"s": string(json!({"enum": ["paid", "shipped", "lost"]}))}),
            &["s"],
        )),
        ("output.enum-value-added", B),
        ("output.enum-value-removed", C),
    ));
    out.extend(both(
        "an output type widened / narrowed",
        output(open(json!({"n": {"type": "integer"}}), &["n"])),
        output(open(json!({"n": {"type": ["integer", "null"]}}), &["n"])),
        ("output.type-widened", B),
        ("output.type-narrowed", C),
    ));
    out.extend(both(
        "an output nested in an array loosened / tightened",
        output(open(
            json!({"xs": arr(string(json!({"maxLength": 3})), json!({}))}),
            &["xs"],
        )),
        output(open(
            json!({"xs": arr(string(json!({})), json!({}))}),
            &["xs"],
        )),
        ("output.maxLength-loosened", B),
        ("output.maxLength-tightened", C),
    ));
    out.extend(both(
        "an outputSchema removed / added",
        output(out_base.clone()),
        tool(json!({})),
        ("output.schema-removed", B),
        ("output.schema-added", C),
    ));
    out.extend(both(
        "an output union changed at the root: not proven",
        output(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
        output(json!({"anyOf": [{"type": "string"}, {"type": "boolean"}]})),
        ("output.composition-changed", U),
        ("output.composition-changed", U),
    ));
    out.extend(both(
        "an output property's union widened (proven) / narrowed",
        output(open(
            json!({"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}),
            &["v"],
        )),
        output(open(
            json!({"v": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}}),
            &["v"],
        )),
        ("output.composition-changed", B),
        ("output.composition-changed", U),
    ));
    out.extend(both(
        "a root union of arguments changed: not proven, whatever an instance shows",
        input(json!({"anyOf": [obj(json!({"a": {"type": "string"}}), &["a"]), obj(json!({"b": {"type": "string"}}), &["b"])]})),
        input(json!({"anyOf": [obj(json!({"a": {"type": "string"}}), &["a"])]})),
        ("input.composition-changed", U),
        ("input.composition-changed", U),
    ));
    // ---- annotations and execution
    out.extend(both(
        "readOnlyHint dropped / added",
        tool(json!({"annotations": {"readOnlyHint": true}})),
        tool(json!({})),
        ("annotations.read-only-dropped", B),
        ("annotations.read-only-added", C),
    ));
    out.extend(both(
        "destructiveHint added / dropped",
        tool(json!({"annotations": {"destructiveHint": false}})),
        tool(json!({"annotations": {"destructiveHint": true}})),
        ("annotations.destructive-added", B),
        ("annotations.destructive-dropped", C),
    ));
    out.extend(both(
        "idempotentHint dropped / added",
        tool(json!({"annotations": {"idempotentHint": true}})),
        tool(json!({"annotations": {"idempotentHint": false}})),
        ("annotations.idempotent-dropped", B),
        ("annotations.idempotent-added", C),
    ));
    out.extend(both(
        "openWorldHint added / dropped",
        tool(json!({"annotations": {"openWorldHint": false}})),
        tool(json!({})),
        ("annotations.open-world-added", B),
        ("annotations.open-world-dropped", C),
    ));
    out.extend(both(
        "taskSupport required / optional",
        tool(json!({"execution": {"taskSupport": "optional"}})),
        tool(json!({"execution": {"taskSupport": "required"}})),
        ("tool.task-support-changed", B),
        ("tool.task-support-changed", C),
    ));
    // ---- resources and templates
    out.extend(both(
        "a resource removed / added",
        snap(
            vec![],
            vec![
                json!({"uri": "r://a", "name": "a"}),
                json!({"uri": "r://b", "name": "b"}),
            ],
            vec![],
            vec![],
        ),
        resource(json!({})),
        ("resource.removed", B),
        ("resource.added", C),
    ));
    out.extend(both(
        "a resource's mimeType changed",
        resource(json!({"mimeType": "text/plain"})),
        resource(json!({"mimeType": "application/json"})),
        ("resource.mime-type-changed", B),
        ("resource.mime-type-changed", B),
    ));
    out.extend(both(
        "a resource's description changed",
        resource(json!({"description": "a"})),
        resource(json!({"description": "b"})),
        ("resource.description-changed", I),
        ("resource.description-changed", I),
    ));
    out.extend(both(
        "a template removed / added",
        template("notes://{title}"),
        snap(vec![], vec![], vec![], vec![]),
        ("template.removed", B),
        ("template.added", C),
    ));
    out.extend(both(
        "a template's path variable added / removed",
        template("notes://{title}"),
        template("notes://{folder}/{title}"),
        ("template.variable-added", B),
        ("template.variable-removed", B),
    ));
    out.extend(both(
        "a template's query variable added / removed",
        template("notes://{title}"),
        template("notes://{title}{?lang}"),
        ("template.variable-added", C),
        ("template.variable-removed", B),
    ));
    out.extend(both(
        "a template's literal part changed",
        template("notes://{title}"),
        template("memo://{title}"),
        ("template.uri-changed", B),
        ("template.uri-changed", B),
    ));
    // ---- prompts
    out.extend(both(
        "a prompt removed / added",
        prompt(json!([])),
        snap(vec![], vec![], vec![], vec![]),
        ("prompt.removed", B),
        ("prompt.added", C),
    ));
    out.extend(both(
        "a prompt argument added as required / removed",
        prompt(json!([{"name": "a"}])),
        prompt(json!([{"name": "a"}, {"name": "b", "required": true}])),
        ("prompt.argument-added-required", B),
        ("prompt.argument-removed", B),
    ));
    out.extend(both(
        "a prompt argument added as optional / removed",
        prompt(json!([])),
        prompt(json!([{"name": "b", "required": false}])),
        ("prompt.argument-added", C),
        ("prompt.argument-removed", B),
    ));
    out.extend(both(
        "a prompt argument made required / optional",
        prompt(json!([{"name": "a"}])),
        prompt(json!([{"name": "a", "required": true}])),
        ("prompt.argument-made-required", B),
        ("prompt.argument-made-optional", C),
    ));
    out.extend(both(
        "a prompt argument's description changed",
        prompt(json!([{"name": "a", "description": "x"}])),
        prompt(json!([{"name": "a", "description": "y"}])),
        ("prompt.argument-description-changed", I),
        ("prompt.argument-description-changed", I),
    ));
    gaps(&mut out);
    out
}

/// A snapshot of no entries from the server `name` `version` speaking `protocol`.
fn server_id(name: &str, version: &str, protocol: &str) -> Snapshot {
    let server = contract::ServerId {
        name: name.into(),
        version: version.into(),
        protocol_version: protocol.into(),
    };
    Snapshot::from_lists(server, &[], &[], &[], &[])
}

/// An input schema whose property `v` is `prop`, with the definitions `defs` at its root.
fn with_defs(prop: Value, defs: Value) -> Snapshot {
    let mut s = obj(json!({ "v": prop }), &["v"]);
    s["$defs"] = defs;
    input(s)
}

/// Pairs the first corpus missed: tuple-form `items`, definitions reached through a union (or
/// `not`, `if`/`then`/`else`, `allOf`, `items`, `additionalProperties`, `patternProperties`),
/// and every remaining rule in both directions.
fn gaps(out: &mut Vec<Case>) {
    let string = |max: u64| json!({"type": "string", "maxLength": max});
    // ---- values that are not schemas, compared as JSON
    out.extend(both(
        "a tuple-form items changed",
        input(one(
            "xs",
            json!({"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}),
        )),
        input(one(
            "xs",
            json!({"type": "array", "items": [{"type": "string"}, {"type": "string"}]}),
        )),
        ("input.keyword-changed", U),
        ("input.keyword-changed", U),
    ));
    out.extend(both(
        "items from a schema to a tuple / back",
        input(one(
            "xs",
            json!({"type": "array", "items": {"type": "string"}}),
        )),
        input(one(
            "xs",
            json!({"type": "array", "items": [{"type": "string"}]}),
        )),
        ("input.keyword-changed", U),
        ("input.keyword-changed", U),
    ));
    // ---- a definition changed behind the same text
    let ab = json!({"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]});
    out.extend(both(
        "a definition tightened behind an anyOf (a witness proves it) / loosened (unproven)",
        with_defs(
            ab.clone(),
            json!({"A": string(10), "B": {"type": "integer"}}),
        ),
        with_defs(
            ab.clone(),
            json!({"A": string(5), "B": {"type": "integer"}}),
        ),
        ("input.composition-changed", B),
        ("input.composition-changed", U),
    ));
    let mut root_union = ab.clone();
    root_union["$defs"] = json!({
        "A": obj(json!({"a": string(10)}), &["a"]),
        "B": obj(json!({"b": {"type": "integer"}}), &["b"]),
    });
    let mut root_union_tight = root_union.clone();
    root_union_tight["$defs"]["A"]["properties"]["a"]["maxLength"] = json!(5);
    out.extend(both(
        "a definition changed behind a root anyOf: not proven",
        input(root_union),
        input(root_union_tight),
        ("input.composition-changed", U),
        ("input.composition-changed", U),
    ));
    for (name, prop) in [
        (
            "a definition changed behind `not`",
            json!({"type": "string", "not": {"$ref": "#/$defs/A"}}),
        ),
        (
            "a definition changed behind `allOf`",
            json!({"allOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}),
        ),
        (
            "a definition changed behind `if`",
            json!({"type": "string", "if": {"$ref": "#/$defs/A"}, "then": {"minLength": 1}}),
        ),
        (
            "a definition changed behind `else`",
            json!({"type": "string", "if": {"const": "x"}, "else": {"$ref": "#/$defs/A"}}),
        ),
    ] {
        // The definition loosened: unproven; tightened, proven where the generator reaches it
        // (`allOf` and `then`/`else` branches propose values; `not` and `if` ones do not).
        let back = if name.contains("allOf") || name.contains("else") {
            B
        } else {
            U
        };
        out.extend(both(
            name,
            with_defs(prop.clone(), json!({"A": {"enum": ["a", "b", "c"]}})),
            with_defs(prop, json!({"A": {"enum": ["a", "b", "c", "d"]}})),
            ("input.composition-changed", U),
            ("input.composition-changed", back),
        ));
    }
    out.extend(both(
        "a definition tightened behind `items` / loosened",
        with_defs(
            json!({"type": "array", "items": {"$ref": "#/$defs/A"}}),
            json!({"A": string(10)}),
        ),
        with_defs(
            json!({"type": "array", "items": {"$ref": "#/$defs/A"}}),
            json!({"A": string(5)}),
        ),
        ("input.maxLength-tightened", B),
        ("input.maxLength-loosened", C),
    ));
    out.extend(both(
        "a definition tightened behind `additionalProperties` / loosened",
        with_defs(
            json!({"type": "object", "additionalProperties": {"$ref": "#/$defs/A"}}),
            json!({"A": {"type": "integer", "maximum": 100}}),
        ),
        with_defs(
            json!({"type": "object", "additionalProperties": {"$ref": "#/$defs/A"}}),
            json!({"A": {"type": "integer", "maximum": 10}}),
        ),
        ("input.maximum-tightened", B),
        ("input.maximum-loosened", C),
    ));
    out.extend(both(
        "a definition changed behind `patternProperties`",
        with_defs(
            json!({"type": "object", "patternProperties": {"^x": {"$ref": "#/$defs/A"}}}),
            json!({"A": string(10)}),
        ),
        with_defs(
            json!({"type": "object", "patternProperties": {"^x": {"$ref": "#/$defs/A"}}}),
            json!({"A": string(5)}),
        ),
        ("input.keyword-changed", U),
        ("input.keyword-changed", U),
    ));
    out.extend(both(
        "a $ref that resolves / no longer resolves",
        with_defs(json!({"$ref": "#/$defs/A"}), json!({"A": string(10)})),
        with_defs(json!({"$ref": "#/$defs/Gone"}), json!({"A": string(10)})),
        ("input.composition-changed", U),
        ("input.composition-changed", U),
    ));
    // ---- composition keywords changed in place
    out.extend(both(
        "an allOf branch tightened (a witness proves it) / loosened (unproven)",
        input(one(
            "v",
            json!({"type": "string", "allOf": [{"maxLength": 10}]}),
        )),
        input(one(
            "v",
            json!({"type": "string", "allOf": [{"maxLength": 5}]}),
        )),
        ("input.composition-changed", B),
        ("input.composition-changed", U),
    ));
    out.extend(both(
        "an else branch changed",
        input(one(
            "v",
            json!({"type": "string", "if": {"const": "a"}, "then": {"minLength": 1}, "else": {"maxLength": 10}}),
        )),
        input(one(
            "v",
            json!({"type": "string", "if": {"const": "a"}, "then": {"minLength": 1}, "else": {"maxLength": 5}}),
        )),
        ("input.composition-changed", B),
        ("input.composition-changed", U),
    ));
    out.extend(both(
        "a not widened / narrowed",
        input(one("v", json!({"type": "string", "not": {"const": "a"}}))),
        input(one(
            "v",
            json!({"type": "string", "not": {"enum": ["a", "b"]}}),
        )),
        ("input.composition-changed", U),
        ("input.composition-changed", U),
    ));
    out.extend(both(
        "patternProperties changed: a keyword not compared",
        input(json!({"type": "object", "patternProperties": {"^x_": {"type": "string"}}})),
        input(json!({"type": "object", "patternProperties": {"^x_": {"type": "integer"}}})),
        ("input.keyword-changed", U),
        ("input.keyword-changed", U),
    ));
    // ---- arguments: remaining rules
    out.extend(both(
        "an argument's schema closed (false) / opened",
        input(obj(json!({"v": true}), &[])),
        input(obj(json!({"v": false}), &[])),
        ("input.schema-closed", B),
        ("input.schema-opened", C),
    ));
    out.extend(both(
        "multipleOf 2 became 3",
        input(one("n", json!({"type": "integer", "multipleOf": 2}))),
        input(one("n", json!({"type": "integer", "multipleOf": 3}))),
        ("input.multipleOf-changed", B),
        ("input.multipleOf-changed", B),
    ));
    out.extend(both(
        "minProperties raised / lowered",
        input(one(
            "o",
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        )),
        input(one(
            "o",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 1}),
        )),
        ("input.minProperties-tightened", B),
        ("input.minProperties-loosened", C),
    ));
    // ---- tools, templates and the server
    out.extend(both(
        "annotations.title changed",
        tool(json!({"annotations": {"title": "Old"}})),
        tool(json!({"annotations": {"title": "New"}})),
        ("annotations.title-changed", I),
        ("annotations.title-changed", I),
    ));
    out.extend(both(
        "taskSupport optional became forbidden / back",
        tool(json!({"execution": {"taskSupport": "optional"}})),
        tool(json!({"execution": {"taskSupport": "forbidden"}})),
        ("tool.task-support-changed", B),
        ("tool.task-support-changed", C),
    ));
    out.extend(both(
        "a tool renamed: the old name removed, the new one added",
        tools(vec![
            json!({"name": "find", "inputSchema": obj(json!({}), &[])}),
        ]),
        tools(vec![
            json!({"name": "search", "inputSchema": obj(json!({}), &[])}),
        ]),
        ("tool.removed", B),
        ("tool.removed", B),
    ));
    out.extend(both(
        "a template rewritten with the same variables and literal parts",
        template("notes://{title}"),
        template("notes://{+title}"),
        ("template.uri-rewritten", I),
        ("template.uri-rewritten", I),
    ));
    let typed = |mime: &str| {
        let t = json!({"name": "tpl", "uriTemplate": "notes://{title}", "mimeType": mime});
        snap(vec![], vec![], vec![t], vec![])
    };
    out.extend(both(
        "a template's mimeType changed",
        typed("text/plain"),
        typed("text/markdown"),
        ("template.mime-type-changed", B),
        ("template.mime-type-changed", B),
    ));
    for (field, old, new) in [
        (
            "name",
            server_id("a", "1.0.0", "2025-11-25"),
            server_id("b", "1.0.0", "2025-11-25"),
        ),
        (
            "version",
            server_id("a", "1.0.0", "2025-11-25"),
            server_id("a", "2.0.0", "2025-11-25"),
        ),
        (
            "protocol",
            server_id("a", "1.0.0", "2025-06-18"),
            server_id("a", "1.0.0", "2025-11-25"),
        ),
    ] {
        let rule = match field {
            "name" => "server.name-changed",
            "version" => "server.version-changed",
            _ => "server.protocol-changed",
        };
        out.extend(both(rule, old, new, (rule, I), (rule, I)));
    }
    // ---- outputs: the remaining rules, reversed
    let o = |props: Value, req: &[&str]| output(open(props, req));
    out.extend(both(
        "an output closed / opened",
        o(json!({"id": {"type": "string"}}), &["id"]),
        output(obj(json!({"id": {"type": "string"}}), &["id"])),
        ("output.additional-properties-closed", C),
        ("output.additional-properties-opened", B),
    ));
    out.extend(both(
        "an output required property added / removed",
        o(json!({"id": {"type": "string"}}), &["id"]),
        o(
            json!({"id": {"type": "string"}, "at": {"type": "string"}}),
            &["id", "at"],
        ),
        ("output.required-added", C),
        ("output.property-removed", B),
    ));
    out.extend(both(
        "an output pattern added / removed",
        o(json!({"id": {"type": "string"}}), &["id"]),
        o(
            json!({"id": {"type": "string", "pattern": "^[0-9]+$"}}),
            &["id"],
        ),
        ("output.pattern-added", C),
        ("output.pattern-removed", B),
    ));
    out.extend(both(
        "an output maxProperties raised / lowered",
        o(json!({"m": {"type": "object", "maxProperties": 2}}), &["m"]),
        o(json!({"m": {"type": "object", "maxProperties": 4}}), &["m"]),
        ("output.maxProperties-loosened", B),
        ("output.maxProperties-tightened", C),
    ));
}

fn exit_of(class: Class) -> i32 {
    match class {
        Class::Breaking => 1,
        Class::Unknown => 3,
        _ => 0,
    }
}

fn input_schema(s: &Snapshot) -> Option<Value> {
    s.tools.first().and_then(|t| t.get("inputSchema").cloned())
}

#[test]
fn every_pair_of_the_corpus_is_classified_as_expected() {
    let corpus = corpus();
    assert!(corpus.len() >= 80, "the corpus has {} pairs", corpus.len());
    let (mut witnesses, mut properties) = (0, 0);
    let mut failures = Vec::new();
    for case in &corpus {
        let report = contract::diff(&case.old, &case.new);
        let text = report.to_text();
        if case.rule.is_empty() {
            // A pair whose forms differ but whose contracts are the same.
            if report.worst().is_some_and(|c| c > Class::Info) {
                failures.push(format!("{}: expected no change\n{text}", case.name));
            }
        } else {
            let found = report.changes.iter().find(|c| c.rule == case.rule);
            match found {
                None => failures.push(format!("{}: no {} in\n{text}", case.name, case.rule)),
                Some(c) if c.class != case.class => failures.push(format!(
                    "{}: {} is {:?}, expected {:?}\n{text}",
                    case.name, case.rule, c.class, case.class
                )),
                Some(_) => {}
            }
            if report.worst() != Some(case.class) {
                failures.push(format!(
                    "{}: worst {:?}, expected {:?}\n{text}",
                    case.name,
                    report.worst(),
                    case.class
                ));
            }
        }
        let expected_exit = if case.rule.is_empty() {
            0
        } else {
            exit_of(case.class)
        };
        if report.exit_code() != expected_exit {
            failures.push(format!(
                "{}: exit {} expected {expected_exit}",
                case.name,
                report.exit_code()
            ));
        }
        // Witnesses: every breaking change to the arguments has one, checked here again.
        for change in report
            .changes
            .iter()
            .filter(|c| c.class == B && c.pointer.starts_with("/inputSchema"))
        {
            let Some(w) = &change.witness else {
                failures.push(format!(
                    "{}: no witness for {}\n{text}",
                    case.name, change.rule
                ));
                continue;
            };
            let old = Validator::compile(&input_schema(&case.old).unwrap()).unwrap();
            let new = Validator::compile(&input_schema(&case.new).unwrap()).unwrap();
            if !old.validate(&mut w.clone()).is_empty() || new.validate(&mut w.clone()).is_empty() {
                failures.push(format!(
                    "{}: {w} is no witness of {}",
                    case.name, change.rule
                ));
            }
            witnesses += 1;
        }
        // Property: nothing breaks in the arguments, so nothing valid before is refused now.
        let input_breaks = report
            .changes
            .iter()
            .any(|c| c.class >= U && c.pointer.starts_with("/inputSchema"));
        if let (Some(a), Some(b), false) = (
            input_schema(&case.old),
            input_schema(&case.new),
            input_breaks,
        ) {
            // A schema the validator refuses (a tuple-form `items`) cannot be reported as
            // compatible: the pair must have been classified unknown or breaking.
            let compiled = Validator::compile(&b).and_then(|new| {
                Ok((
                    new,
                    witness::valid_instances(&a, &witness::property_names(&b))?,
                ))
            });
            let (new, valid) = match compiled {
                Ok(both) => both,
                Err(e) => {
                    failures.push(format!(
                        "{}: nothing reported as breaking or unknown, yet a schema does not compile: {e}\n{text}",
                        case.name
                    ));
                    continue;
                }
            };
            assert!(
                !valid.is_empty(),
                "{}: the generator found no valid instance",
                case.name
            );
            for i in valid {
                let refused = new.validate(&mut i.clone());
                if !refused.is_empty() {
                    failures.push(format!(
                        "{}: compatible, yet {i} is refused: {refused:?}",
                        case.name
                    ));
                }
                properties += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!(
        "{} pairs, {witnesses} witnesses checked, {properties} instances kept valid",
        corpus.len()
    );
    assert!(witnesses >= 30, "{witnesses} witnesses");
}

#[test]
fn a_witness_sits_at_the_old_bound() {
    let old = input(one(
        "order_id",
        json!({"type": "integer", "minimum": 0, "maximum": 9999}),
    ));
    let new = input(one(
        "order_id",
        json!({"type": "integer", "minimum": 0, "maximum": 999}),
    ));
    let report = contract::diff(&old, &new);
    assert_eq!(report.changes.len(), 1, "{}", report.to_text());
    let c = &report.changes[0];
    assert_eq!(
        (c.rule.as_str(), c.pointer.as_str()),
        (
            "input.maximum-tightened",
            "/inputSchema/properties/order_id/maximum"
        )
    );
    assert_eq!(c.witness, Some(json!({"order_id": 9999})));
    assert!(
        report.to_markdown().contains("| BREAKING | tool `t` |"),
        "{}",
        report.to_markdown()
    );
    assert_eq!(report.to_json()["exitCode"], 1);
}

#[test]
fn snapshots_are_normal_forms() {
    let a = input(
        json!({"type": "object", "properties": {"b": {"type": ["string"]}, "a": {"type": "integer", "minLength": 0}}, "required": []}),
    );
    let b = input(
        json!({"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "type": "object", "additionalProperties": true}),
    );
    assert_eq!(a.to_pretty(), b.to_pretty());
    // A raw tools/list result reads as a snapshot without a server.
    let raw = Snapshot::read(
        &json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}).to_string(),
    )
    .unwrap();
    assert_eq!(
        raw.tools,
        [json!({"name": "t", "inputSchema": {"type": "object"}})]
    );
    assert!(
        Snapshot::read("{\"format\": 99}")
            .unwrap_err()
            .contains("format 99")
    );
    assert!(Snapshot::read("[]").is_err());
}

// ---- from a running server ----------------------------------------------------------------------

/// Look up one order.
#[tool]
fn get_order(
    /// The order's id.
    #[arg(minimum = 0, maximum = 9999)]
    order_id: u32,
) -> String {
    format!("{order_id}")
}

/// Greets someone.
#[prompt]
fn greet(
    /// Who.
    name: String,
) -> String {
    format!("Hello {name}")
}

/// A note.
#[resource(uri = "notes://{title}", mime_type = "text/plain")]
fn note(title: String) -> String {
    title
}

fn server(version: &str, page: usize) -> Server {
    Server::builder("orders", version)
        .tools(tools![get_order])
        .prompts(prompts![greet])
        .resources(resources![note])
        .page_size(page)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_snapshot_lists_every_page_of_every_list() {
    let s = contract::snapshot(&server("1.0.0", 1)).await.unwrap();
    assert_eq!(s.format, contract::FORMAT);
    assert_eq!(
        (s.server.name.as_str(), s.server.version.as_str()),
        ("orders", "1.0.0")
    );
    assert_eq!(s.server.protocol_version, "2025-11-25");
    assert_eq!(s.tools.len(), 1);
    assert_eq!(
        s.tools[0]["inputSchema"]["properties"]["order_id"]["maximum"],
        9999
    );
    assert_eq!(
        s.prompts[0]["arguments"],
        json!([{"name": "name", "description": "Who.", "required": true}])
    );
    assert_eq!(s.resource_templates[0]["uriTemplate"], "notes://{title}");
    // Paged or not, the same bytes.
    let whole = contract::snapshot(&server("1.0.0", 100)).await.unwrap();
    assert_eq!(s.to_pretty(), whole.to_pretty());
}

#[test]
fn the_version_raise_a_change_needs() {
    use contract::Bump;
    assert_eq!(Bump::between("1.2.3", "2.0.0"), Bump::Major);
    assert_eq!(Bump::between("1.2.3", "1.3.0"), Bump::Minor);
    assert_eq!(Bump::between("1.2.3", "1.2.4"), Bump::Patch);
    assert_eq!(Bump::between("0.3.1", "0.4.0"), Bump::Major);
    assert_eq!(Bump::between("0.3.1", "0.3.2"), Bump::Minor);
    assert_eq!(Bump::between("0.0.3", "0.0.4"), Bump::Major);
    assert_eq!(Bump::between("2.0.0", "1.9.0"), Bump::None);
    assert_eq!(Bump::between("v1", "v2"), Bump::None);
}

#[tokio::test]
async fn the_helper_gates_on_the_version_and_records_on_request() {
    let scratch = Scratch::new("contract-gates");
    let path = scratch.file("orders.json");
    let v1 = contract::snapshot(&server("1.0.0", 100)).await.unwrap();
    // Missing: fails with how to create it, unless recording.
    let e = contract::check(&v1, &path, false).unwrap_err();
    assert!(e.message.contains("MCP_CONTRACT_UPDATE=1"), "{e}");
    contract::check(&v1, &path, true).unwrap();
    contract::check(&v1, &path, false).unwrap();
    // A tightened bound at the same version: breaking, with its witness; not recorded.
    let mut tight = v1.clone();
    tight.tools[0]["inputSchema"]["properties"]["order_id"]["maximum"] = json!(999);
    let e = contract::check(&tight, &path, true).unwrap_err();
    assert!(e.message.contains("needs a major version raise"), "{e}");
    assert!(e.message.contains("input.maximum-tightened"), "{e}");
    assert!(
        e.message
            .contains(r#"witness (old accepts, new refuses): {"order_id":9999}"#),
        "{e}"
    );
    // A minor raise is not enough; a major one is, once recorded.
    tight.server.version = "1.1.0".into();
    assert!(contract::check(&tight, &path, true).is_err());
    tight.server.version = "2.0.0".into();
    let e = contract::check(&tight, &path, false).unwrap_err();
    assert!(e.message.contains("is not updated"), "{e}");
    contract::check(&tight, &path, true).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), tight.to_pretty());
    // A compatible change needs the minor.
    let mut loose = tight.clone();
    loose.tools[0]["inputSchema"]["properties"]["order_id"]["maximum"] = json!(99999);
    assert!(
        contract::check(&loose, &path, true)
            .unwrap_err()
            .message
            .contains("minor version raise")
    );
    loose.server.version = "2.1.0".into();
    contract::check(&loose, &path, true).unwrap();
}

// ---- the one-line helper, `assert_contract` ------------------------------------------------------

/// The contract of `server("1.0.0", _)`, committed (written by `assert_contract` under
/// `MCP_CONTRACT_UPDATE=1`, never by hand).
const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/contract/orders.json");

/// The variable through which the parent test hands its child process a scratch copy.
const COPY_VAR: &str = "MCP_CONTRACT_TEST_COPY";

/// `get_order` as a careless change would publish it: `maximum` lowered from 9999 to 999.
mod tight {
    use mcp_runtime::prelude::*;

    /// Look up one order.
    #[tool]
    pub fn get_order(
        /// The order's id.
        #[arg(minimum = 0, maximum = 999)]
        order_id: u32,
    ) -> String {
        format!("{order_id}")
    }
}

fn tight_server(version: &str) -> Server {
    Server::builder("orders", version)
        .tools(tools![tight::get_order])
        .prompts(prompts![greet])
        .resources(resources![note])
        .build()
        .unwrap()
}

/// A scratch copy of the committed snapshot: its path, in a folder removed with the [`Scratch`].
fn scratch_copy(name: &str) -> (Scratch, std::path::PathBuf) {
    let scratch = Scratch::new(&format!("contract-helper-{name}"));
    let path = scratch.file(name);
    std::fs::copy(COMMITTED, &path).unwrap();
    (scratch, path)
}

/// What `assert_contract(server, path)` panicked with, or `None` when it passed.
async fn panic_of(server: Server, path: std::path::PathBuf) -> Option<String> {
    let run = tokio::spawn(async move { contract::assert_contract(&server, &path).await });
    match run.await {
        Ok(()) => None,
        Err(e) => {
            let payload = e.into_panic();
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()));
            Some(text.unwrap_or_default())
        }
    }
}

#[tokio::test]
async fn assert_contract_passes_on_the_committed_snapshot() {
    contract::assert_contract(&server("1.0.0", 100), COMMITTED).await;
    // Paged the same: the same contract.
    contract::assert_contract(&server("1.0.0", 1), COMMITTED).await;
}

#[tokio::test]
#[should_panic(expected = "a breaking (or unproven) change needs a major version raise")]
async fn assert_contract_fails_on_a_breaking_change_at_the_same_version() {
    contract::assert_contract(&tight_server("1.0.0"), COMMITTED).await;
}

/// Run by itself without the variable (on its own scratch copy), and by
/// [`the_update_variable_rewrites_the_file_once_the_major_version_is_raised`] in a child process
/// with `MCP_CONTRACT_UPDATE=1`: what `assert_contract` does under the variable as it is.
#[tokio::test]
async fn assert_contract_under_the_update_variable_as_set() {
    // The child's file is its parent's; run by itself, the test makes (and removes) its own.
    let _own;
    let path = match std::env::var(COPY_VAR) {
        Ok(p) => std::path::PathBuf::from(p),
        Err(_) => {
            let (scratch, path) = scratch_copy("as-set.json");
            _own = scratch;
            path
        }
    };
    let updating = std::env::var(contract::UPDATE_VAR).is_ok_and(|v| !v.is_empty() && v != "0");
    let before = std::fs::read_to_string(&path).unwrap();
    // Breaking at the same version: refused, and never recorded, whatever the variable says.
    let e = panic_of(tight_server("1.0.0"), path.clone()).await;
    let e = e.expect("a breaking change at the same version passed");
    assert!(e.contains("needs a major version raise"), "{e}");
    assert!(e.contains(r#"{"order_id":9999}"#), "no witness in {e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    // The major version raised: recorded under the variable, else a request to record it.
    let e = panic_of(tight_server("2.0.0"), path.clone()).await;
    let now = std::fs::read_to_string(&path).unwrap();
    if updating {
        assert_eq!(e, None);
        let expected = contract::snapshot(&tight_server("2.0.0")).await.unwrap();
        assert_eq!(now, expected.to_pretty());
        println!("recorded {}", path.display());
    } else {
        let e = e.expect("an unrecorded change passed");
        assert!(e.contains("is not updated"), "{e}");
        assert_eq!(now, before);
    }
}

#[test]
fn the_update_variable_rewrites_the_file_once_the_major_version_is_raised() {
    let (_scratch, copy) = scratch_copy("rewritten.json");
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "contract::assert_contract_under_the_update_variable_as_set",
            "--exact",
            "--nocapture",
        ])
        .env(contract::UPDATE_VAR, "1")
        .env(COPY_VAR, &copy)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&child.stdout);
    let err = String::from_utf8_lossy(&child.stderr);
    assert!(child.status.success(), "{out}\n{err}");
    assert!(out.contains("1 passed"), "the child ran no test:\n{out}");
    assert!(out.contains("recorded "), "{out}");
    let written = Snapshot::read(&std::fs::read_to_string(&copy).unwrap()).unwrap();
    assert_eq!(written.server.version, "2.0.0");
    assert_eq!(
        written.tools[0]["inputSchema"]["properties"]["order_id"]["maximum"],
        999
    );
    // The committed file itself is untouched.
    let committed = Snapshot::read(&std::fs::read_to_string(COMMITTED).unwrap()).unwrap();
    assert_eq!(committed.server.version, "1.0.0");
}

#[test]
fn a_rename_reads_as_one_tool_removed_and_another_added() {
    let old = tools(vec![
        json!({"name": "find", "inputSchema": obj(json!({}), &[])}),
    ]);
    let new = tools(vec![
        json!({"name": "search", "inputSchema": obj(json!({}), &[])}),
    ]);
    let report = contract::diff(&old, &new);
    let found: Vec<(&str, &str, Class)> = report
        .changes
        .iter()
        .map(|c| (c.rule.as_str(), c.name.as_str(), c.class))
        .collect();
    assert_eq!(
        found,
        [("tool.removed", "find", B), ("tool.added", "search", C)],
        "{}",
        report.to_text()
    );
    assert_eq!(report.exit_code(), 1);
}
