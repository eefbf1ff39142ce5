//! The runtime half of validation: the published inputSchema compiled once into a validator that
//! reports every violation with its JSON Pointer, the rule and the bound.
//!
//! Users find here what a server configures and what its build refuses: the server's own string
//! formats ([`Formats`], [`FormatCheck`]), a build's refusals ([`UncheckedFormat`],
//! [`NonLinearPattern`]) and [`string_conforms`]. The validator itself is the server's.
//!
//! `Validator::compile` turns the schema into a flat arena of nodes: patterns are checked as
//! ECMA-262 (as JSON Schema requires) and translated to linear-time automata, `$ref`s become node
//! indices, bounds are parsed
//! into numbers and the fixed parts of messages are rendered up front. `Validator::validate`
//! walks the arguments against that arena only; the valid path allocates nothing.
//!
//! Messages are meant for the model that made the call: each names the rule and its bound, and
//! says what was received without echoing long values (nor long keys: a pointer's key of more
//! than 40 characters is cut with `…`). Their wording is stable:
//!
//! | rule | message |
//! | --- | --- |
//! | `type` | `must be an integer (got string)`, `must be a string or null (got number)` |
//! | `enum`, `const` | `must be one of "low", "normal", "high" (got "urgent")`, `must be "a" (got "b")` |
//! | `minimum` … | `must be >= 0 (got -1)`, `must be <= 9`, `must be > 0`, `must be < 1` |
//! | `multipleOf` | `must be a multiple of 5 (got 7)` |
//! | `minLength` | `must be at least 3 characters (got 2)` (code points) |
//! | `pattern` | `must match the pattern ^T-\d+$` |
//! | `format` (strings) | `must be a valid ipv4 (got "1.2.3")` |
//! | `format` (integers) | `must be <= 9223372036854775807 (got 9223372036854775808)`, `must be an integer literal: a float this large is not exact (got 9007199254740994.0)` |
//! | `minItems`, `uniqueItems` | `must have at least 1 item (got 0)`, `must not contain duplicate items` |
//! | `required` | `missing required argument "title"` at `/`, `missing required property "zip"` below |
//! | `additionalProperties: false` | `unknown argument "colour" (allowed: title, priority)` |
//! | `unevaluatedProperties: false` | the same, the names allowed through `allOf`, `oneOf`, `$ref`, … included |
//! | `anyOf`, `oneOf` (tagged) | `/rule/kind: must be one of "percent", "fixed" (got "explode")`, `/rule: missing required property "location" (kind = "moveTo")`, `must have one of the keys "Byte", "Point" (got {"Pont":1})` |
//! | `anyOf`, `oneOf` (untagged) | the closest branch's violations; `must be a string or an object (got number)` when no branch takes the type |
//! | `anyOf`, `oneOf` (otherwise) | `must match at least one of the allowed shapes`, `must match exactly one of the allowed shapes (matched more than one)` |
//! | an object or array sent as a string | `must be an object (got a string holding JSON; pass the object itself)` |
//! | depth | `nesting deeper than 128 levels` |
//!
//! An `anyOf` of one schema and `{"type": "null"}` (how optional arguments are published) reports
//! the errors of the non-null schema, the way pydantic does. Other unions are explained in
//! `union.rs`: the branch a discriminator selects, or the closest one, reports its own violations
//! at their own pointers; that work is done only once a union has failed.
//!
//! | file | what it holds |
//! |---|---|
//! | this file | [`Validator`], [`Violation`], [`format_violations`], [`MAX_DEPTH`] |
//! | `node.rs` | the compiled form: the node arena's `Node`, `Rules` and their parts |
//! | `compile.rs` | schema → nodes: every keyword, the annotations let through, bound parsing |
//! | `refs.rs` | `$ref` resolution (JSON Pointer fragments) and the refusal of `$ref` loops |
//! | `pattern/` | `Pattern`: an ECMA-262 `pattern` translated (`ecma.rs`) to the `regex` crate (linear time), or to `fancy-regex` under a backtracking budget for look-around and backreferences; `differential.rs` holds the translation to `regress` |
//! | `check.rs` | instance → violations: the walk, `type`/`enum`/`const`, numbers, strings, applicators |
//! | `containers.rs` | the walk into arrays and objects |
//! | `unevaluated.rs` | `unevaluatedProperties`, `unevaluatedItems`: what the other keywords evaluated |
//! | `union.rs` | why a union matched no branch: its discriminator, the selected or closest branch |
//! | `decode.rs` | what serde's decoding of recursive untagged unions will repeat, counted and bounded before the tool's types are decoded |
//! | `backtrack.rs` | the patterns that run by backtracking, and their budget |
//! | `probe.rs` | a subschema tried only for its verdict (union branches, `if`, `not`, `contains`); nested probes of a container answered once |
//! | `report.rs` | `Msg` and its rendering, quoting of received values, the `fail!` macro |
//! | `path.rs` | `Path`: where the walk is, rendered as a JSON Pointer on demand |
//! | `numbers.rs` | `Num`: exact comparison of JSON numbers; integral floats |
//! | `formats/` | the asserted `format`s: JSON Schema 2020-12's vocabulary by RFC (`net.rs` addresses and host names, `uri.rs` URIs, IRIs and templates, `time.rs` RFC 3339, `pointer.rs` JSON Pointers, regexes and UUIDs), integer ranges, and the user's (`custom.rs`: [`Formats`]) |
//! | `equality.rs` | JSON Schema equality (`enum`, `const`, `uniqueItems`) and its keyed hash |

mod backtrack;
mod check;
mod compile;
mod containers;
mod decode;
mod equality;
mod formats;
mod node;
mod numbers;
mod path;
mod pattern;
mod probe;
mod refs;
mod report;
mod unevaluated;
mod union;

// Users name the server's formats and the refusals of a build; the validator itself is named by
// the server, the contract checker, benches, fuzzing and tests only, hidden.
pub use compile::UncheckedFormat;
#[doc(hidden)]
pub use decode::DEFAULT_UNTAGGED_DECODE_LIMIT;
pub use formats::{FormatCheck, Formats};
use node::Node;
#[doc(hidden)]
pub use numbers::integer_out_of_range;
#[doc(hidden)]
pub use pattern::DEFAULT_PATTERN_BACKTRACK_LIMIT;
pub use pattern::NonLinearPattern;

/// How deep into the arguments validation descends before it gives up with a violation.
#[doc(hidden)]
pub const MAX_DEPTH: usize = 128;

/// One violation: where, and what rule was broken.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct Violation {
    /// JSON Pointer to the offending value (`/title`); empty for the root.
    pub path: String,
    /// The rule and the bound, e.g. `must be at least 3 characters (got 2)`.
    pub message: String,
}

/// Whether `s` is a valid value of the string `format` named `name`, checked exactly as the
/// validator checks arguments: every format of JSON Schema 2020-12 (`email`, `idn-email`,
/// `hostname`, `idn-hostname`, `ipv4`, `ipv6`, `uri`, `uri-reference`, `iri`, `iri-reference`,
/// `uri-template`, `uuid`, `date`, `time`, `date-time`, `duration`, `json-pointer`,
/// `relative-json-pointer`, `regex`) and `ip`; `None` for any other name. For a tool body that must
/// check a string the schema cannot declare, with the same rules as the published formats.
///
/// ```
/// use mcp_runtime::validate::string_conforms;
/// assert_eq!(string_conforms("date", "2024-02-29"), Some(true));
/// assert_eq!(string_conforms("date", "2023-02-29"), Some(false));
/// assert_eq!(string_conforms("ipv4", "10.0.0.256"), Some(false));
/// assert_eq!(string_conforms("int32", "7"), None);
/// assert_eq!(string_conforms("email", "not an email"), Some(false));
/// assert_eq!(string_conforms("color", "red"), None);
/// ```
pub fn string_conforms(name: &str, s: &str) -> Option<bool> {
    match formats::parse(name)? {
        formats::Format::Str(f) => Some(formats::is_valid(f, s)),
        formats::Format::Int(_) => None,
    }
}

/// A compiled inputSchema.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct Validator {
    nodes: Vec<Node>,
    /// The untagged unions, when one of them holds itself: decoding is counted (`decode.rs`).
    decode: Option<Box<decode::Decode>>,
    /// Formats nobody checks, in schema order.
    unchecked_formats: Vec<UncheckedFormat>,
}

impl Validator {
    /// The formats of the schema that neither JSON Schema's vocabulary nor the [`Formats`] it
    /// was compiled with check: annotations only.
    pub fn unchecked_formats(&self) -> &[UncheckedFormat] {
        &self.unchecked_formats
    }
}

/// The model-readable text for a rejected call.
#[doc(hidden)]
pub fn format_violations(tool: &str, violations: &[Violation]) -> String {
    format_violations_of("tool", tool, violations)
}

/// [`format_violations`] for another kind of callee (`prompt`).
#[doc(hidden)]
pub fn format_violations_of(kind: &str, name: &str, violations: &[Violation]) -> String {
    // Sized up front and written piece by piece: `format!` and the growth of the text cost a
    // rejected call about 600 instructions more (callgrind).
    let room = violations
        .iter()
        .map(|v| v.path.len().max(1) + v.message.len() + 4)
        .sum::<usize>();
    let mut text = report::pieces(&["Invalid arguments for ", kind, " ", name, ": "], room);
    for (i, v) in violations.iter().enumerate() {
        if i > 0 {
            text.push_str("; ");
        }
        text.push_str(if v.path.is_empty() { "/" } else { &v.path });
        text.push_str(": ");
        text.push_str(&v.message);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Validates `args` against `schema` and renders the violations as `path: message`.
    pub(super) fn run(schema: Value, mut args: Value) -> Vec<String> {
        let v = Validator::compile(&schema).expect("schema compiles");
        let strict = v.validate(&mut args);
        assert_eq!(
            v.is_valid(&mut args.clone()),
            strict.is_empty(),
            "is_valid and validate disagree"
        );
        strict
            .into_iter()
            .map(|v| {
                format!(
                    "{}: {}",
                    if v.path.is_empty() { "/" } else { &v.path },
                    v.message
                )
            })
            .collect()
    }

    /// One property `x` with the given schema, at the root of an object schema.
    pub(super) fn prop(schema: Value) -> Value {
        json!({"type": "object", "properties": {"x": schema}, "additionalProperties": false})
    }

    /// Runs `(schema, value, expected)` rows, each `schema` as the property `x` of `prop`.
    pub(super) fn table(rows: Vec<(Value, Value, &[&str])>) {
        for (schema, value, expected) in rows {
            let got = run(prop(schema.clone()), json!({"x": value}));
            assert_eq!(got, expected, "schema {schema} value {value}");
        }
    }

    /// Each `(schema, needle)`: the schema does not compile, with an error that contains `needle`.
    pub(super) fn refused(cases: impl IntoIterator<Item = (Value, &'static str)>) {
        for (schema, needle) in cases {
            let err = Validator::compile(&schema).expect_err(&schema.to_string());
            assert!(err.contains(needle), "{schema}: {err}");
        }
    }

    #[test]
    fn format_joins_violations() {
        let vs = [
            Violation {
                path: "/title".into(),
                message: "must be at least 3 characters (got 2)".into(),
            },
            Violation {
                path: String::new(),
                message: r#"unknown argument "colour" (allowed: title)"#.into(),
            },
        ];
        assert_eq!(
            format_violations("add_task", &vs[..1]),
            "Invalid arguments for tool add_task: /title: must be at least 3 characters (got 2)"
        );
        assert_eq!(
            format_violations("add_task", &vs),
            "Invalid arguments for tool add_task: /title: must be at least 3 characters (got 2); \
             /: unknown argument \"colour\" (allowed: title)"
        );
    }
}
