//! Argument types with the serde shapes found in the wild (flatten, tagged enums, catch-all maps,
//! `Option<Option<T>>`, recursion, std types with a `format`): each builds into a server, a valid
//! sample reaches the tool body, an invalid one is refused with the pointer to the bad value, and
//! on every sample our verdict equals the `jsonschema` crate's on the published inputSchema.

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use mcp_runtime::Client;
use mcp_runtime::prelude::*;
use mcp_runtime::validate::Validator;
use serde_json::{Value, json};

// ---- the reproduction: a `deny_unknown_fields` struct flattening an internally tagged enum ----

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Shape {
    Circle { r: f64 },
    Square { side: f64 },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Draw {
    pub label: String,
    #[serde(flatten)]
    pub shape: Shape,
}

/// Draw a shape.
#[tool]
fn draw(spec: Draw) -> String {
    format!("drew {}: {:?}", spec.label, spec.shape)
}

/// The same without `deny_unknown_fields`, which serde can deserialize (see `Expect::Serde`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DrawOpen {
    pub label: String,
    #[serde(flatten)]
    pub shape: Shape,
}

/// Draw a shape, extra keys ignored.
#[tool]
fn draw_open(spec: DrawOpen) -> String {
    format!("drew {}: {:?}", spec.label, spec.shape)
}

/// Say hi.
#[tool]
fn hi() -> String {
    "hi".into()
}

// ---- more shapes -------------------------------------------------------------------------------

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Inner {
    pub a: u8,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FlatStruct {
    pub name: String,
    #[serde(flatten)]
    pub inner: Inner,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CatchAll {
    pub name: String,
    #[serde(flatten)]
    pub rest: HashMap<String, Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Loose {
    Cat { lives: u8 },
    Dog,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum Strict {
    Cat { lives: u8 },
    Dog,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Num(i32),
    Pair(String, bool),
    Nothing,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Untagged {
    Point { x: i32, y: i32 },
    Word(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Defaults {
    pub size: u16,
    pub name: String,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            size: 10,
            name: "n".into(),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Patch {
    #[serde(default)]
    pub note: Option<Option<u8>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct List {
    pub v: i32,
    pub next: Option<Box<List>>,
}

macro_rules! echo_tools {
    ($($name:ident: $ty:ty),* $(,)?) => {$(
        /// Echoes its argument.
        #[tool]
        fn $name(v: $ty) -> String {
            format!("body {:?}", v)
        }
    )*};
}

echo_tools! {
    flat_struct: FlatStruct,
    catch_all: CatchAll,
    loose: Loose,
    strict: Strict,
    adjacent: Adjacent,
    untagged: Untagged,
    defaults: Defaults,
    patch: Patch,
    list: List,
    tuple: (u8, String, bool),
    letter: char,
    nonzero: NonZeroU32,
    ip: IpAddr,
    duration: Duration,
    path: PathBuf,
    set: BTreeSet<String>,
}

/// What a sample must do: reach the body, or be refused with a violation at this pointer.
enum Expect {
    Body,
    Refused(&'static str),
    /// Valid for the published schema (ours and jsonschema's verdict), refused by serde with this
    /// text. serde does not support `deny_unknown_fields` together with `flatten`: the struct
    /// refuses the flattened enum's own fields (`unknown field \`kind\``), so no input can reach
    /// the body of `draw`. The schema and its validation are right; the type is not servable.
    Serde(&'static str),
}
use Expect::{Body, Refused, Serde};

/// The reference verdict: the `jsonschema` crate on the published schema, formats checked.
/// `ip` is not a standard format; schemars publishes it for `IpAddr`, meaning either address.
fn reference(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_format("ip", |s: &str| s.parse::<IpAddr>().is_ok())
        .build(schema)
        .expect("jsonschema compiles the published schema")
}

#[tokio::test]
async fn wild_types_are_served_and_validated_like_jsonschema() {
    let server = Server::builder("t", "1")
        .tools(tools![
            draw,
            draw_open,
            hi,
            flat_struct,
            catch_all,
            loose,
            strict,
            adjacent,
            untagged,
            defaults,
            patch,
            list,
            tuple,
            letter,
            nonzero,
            ip,
            duration,
            path,
            set
        ])
        .build()
        .expect("every tool builds");
    let client = Client::in_process(&server).await.unwrap();
    let schemas: HashMap<String, Value> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["inputSchema"].clone(),
            )
        })
        .collect();
    assert_eq!(schemas.len(), 19);
    // The keyword the reproduction is about is published, and enforced below.
    assert!(
        schemas["draw"]
            .to_string()
            .contains(r#""unevaluatedProperties":false"#)
    );

    let hi = client.call_tool("hi", json!({})).await.unwrap();
    assert_eq!(hi.first_text(), Some("hi"));

    #[rustfmt::skip]
    let samples: Vec<(&str, Value, Expect)> = vec![
        // the reproduction
        ("draw", json!({"spec": {"label": "a", "kind": "circle", "r": 1.0}}), Serde("/spec: unknown field `kind`")),
        ("draw", json!({"spec": {"label": "a", "kind": "square", "side": 2}}), Serde("/spec: unknown field `kind`")),
        ("draw", json!({"spec": {"label": "a", "kind": "circle", "r": 1, "extra": 1}}), Refused("/spec: unknown property \"extra\"")),
        ("draw", json!({"spec": {"label": "a", "kind": "circle", "r": 1, "side": 1}}), Refused("/spec: unknown property \"side\"")),
        ("draw", json!({"spec": {"label": "a", "kind": "hexagon", "r": 1}}), Refused("/spec/kind: must be one of \"circle\", \"square\" (got \"hexagon\")")),
        ("draw", json!({"spec": {"label": "a", "kind": "circle"}}), Refused("/spec: missing required property \"r\" (kind = \"circle\")")),
        ("draw", json!({"spec": {"label": 5, "kind": "circle", "r": 1}}), Refused("/spec/label: must be a string")),
        ("draw_open", json!({"spec": {"label": "a", "kind": "circle", "r": 1.0}}), Body),
        ("draw_open", json!({"spec": {"label": "a", "kind": "square", "side": 2, "extra": 1}}), Body),
        ("draw_open", json!({"spec": {"label": "a", "kind": "hexagon", "r": 1}}), Refused("/spec/kind: must be one of")),
        // flatten of a struct
        ("flat_struct", json!({"v": {"name": "n", "a": 7}}), Body),
        ("flat_struct", json!({"v": {"name": "n", "a": 300}}), Refused("/v/a: must be <= 255")),
        ("flat_struct", json!({"v": {"name": "n"}}), Refused("/v: missing required property \"a\"")),
        // flatten of a catch-all map
        ("catch_all", json!({"v": {"name": "n", "anything": [1, {"b": null}]}}), Body),
        ("catch_all", json!({"v": {"name": 1, "x": 2}}), Refused("/v/name: must be a string")),
        // internally tagged, without and with deny_unknown_fields
        ("loose", json!({"v": {"type": "Cat", "lives": 9}}), Body),
        ("loose", json!({"v": {"type": "Dog", "bark": true}}), Body),
        ("loose", json!({"v": {"type": "Cow"}}), Refused("/v/type: must be one of \"Cat\", \"Dog\" (got \"Cow\")")),
        ("loose", json!({"v": {"type": "Cat", "lives": -1}}), Refused("/v")),
        ("strict", json!({"v": {"type": "Dog"}}), Body),
        ("strict", json!({"v": {"type": "Cat", "lives": 3}}), Body),
        ("strict", json!({"v": {"type": "Dog", "bark": true}}), Refused("/v")),
        // adjacently tagged
        ("adjacent", json!({"v": {"t": "Num", "c": 5}}), Body),
        ("adjacent", json!({"v": {"t": "Pair", "c": ["a", true]}}), Body),
        ("adjacent", json!({"v": {"t": "Nothing"}}), Body),
        ("adjacent", json!({"v": {"t": "Num", "c": "5"}}), Refused("/v")),
        ("adjacent", json!({"v": {"t": "Other", "c": 1}}), Refused("/v")),
        // untagged
        ("untagged", json!({"v": {"x": 1, "y": 2}}), Body),
        ("untagged", json!({"v": "word"}), Body),
        ("untagged", json!({"v": 3}), Refused("/v: must be a string or an object (got number)")),
        // #[serde(default)]
        ("defaults", json!({"v": {}}), Body),
        ("defaults", json!({"v": {"size": 3}}), Body),
        ("defaults", json!({"v": {"size": -3}}), Refused("/v/size: must be >= 0")),
        // Option<Option<T>>
        ("patch", json!({"v": {}}), Body),
        ("patch", json!({"v": {"note": null}}), Body),
        ("patch", json!({"v": {"note": 4}}), Body),
        ("patch", json!({"v": {"note": "4"}}), Refused("/v/note: must be an integer")),
        // Box recursion
        ("list", json!({"v": {"v": 1, "next": {"v": 2, "next": {"v": 3}}}}), Body),
        ("list", json!({"v": {"v": 1, "next": {"v": 2, "next": {"v": "3"}}}}), Refused("/v/next/next/v: must be an integer")),
        // a tuple
        ("tuple", json!({"v": [1, "a", true]}), Body),
        ("tuple", json!({"v": [1, "a"]}), Refused("/v: must have at least 3 items")),
        ("tuple", json!({"v": [1, "a", "yes"]}), Refused("/v/2: must be a boolean")),
        // char
        ("letter", json!({"v": "é"}), Body),
        ("letter", json!({"v": "ab"}), Refused("/v: must be at most 1 character (got 2)")),
        ("letter", json!({"v": ""}), Refused("/v: must be at least 1 character (got 0)")),
        // NonZeroU32
        ("nonzero", json!({"v": 1}), Body),
        ("nonzero", json!({"v": 0}), Refused("/v: must be >= 1 (got 0)")),
        ("nonzero", json!({"v": 4294967296u64}), Refused("/v: must be <= 4294967295")),
        // IpAddr
        ("ip", json!({"v": "127.0.0.1"}), Body),
        ("ip", json!({"v": "::1"}), Body),
        ("ip", json!({"v": 1}), Refused("/v: must be a string")),
        ("ip", json!({"v": "localhost"}), Refused("/v: must be a valid ip (got \"localhost\")")),
        // std::time::Duration
        ("duration", json!({"v": {"secs": 1, "nanos": 5}}), Body),
        ("duration", json!({"v": {"secs": -1, "nanos": 5}}), Refused("/v/secs: must be >= 0")),
        ("duration", json!({"v": {"secs": 1}}), Refused("/v: missing required property \"nanos\"")),
        // PathBuf
        ("path", json!({"v": "/tmp/é"}), Body),
        ("path", json!({"v": ["tmp"]}), Refused("/v: must be a string")),
        // BTreeSet
        ("set", json!({"v": ["a", "b"]}), Body),
        ("set", json!({"v": ["a", "a"]}), Refused("/v: must not contain duplicate items")),
    ];
    let mut covered: Vec<&str> = Vec::new();
    for (tool, args, expect) in &samples {
        let schema = &schemas[*tool];
        let expected = reference(schema).is_valid(args);
        let result = client.call_tool(tool, args.clone()).await.unwrap();
        let text = result.first_text().unwrap_or_default();
        let prefix = format!("Invalid arguments for tool {tool}: ");
        match expect {
            Body => {
                assert!(!result.is_error, "{tool} {args}: {text}");
                assert!(
                    text.starts_with("body ") || text.starts_with("drew "),
                    "{tool}: {text}"
                );
                assert!(expected, "{tool} {args}: jsonschema refuses it\n{schema}");
            }
            Refused(at) => {
                assert!(result.is_error, "{tool} {args}: accepted: {text}");
                assert!(text.starts_with(&prefix), "{tool} {args}: {text}");
                assert!(
                    text[prefix.len()..].starts_with(at),
                    "{tool} {args}: {text} (wanted {at})"
                );
                assert!(!expected, "{tool} {args}: jsonschema accepts it\n{schema}");
            }
            Serde(why) => {
                let ours = Validator::compile(schema).unwrap();
                assert!(ours.validate(&mut args.clone()).is_empty(), "{tool} {args}");
                assert!(expected, "{tool} {args}: jsonschema refuses it\n{schema}");
                assert!(result.is_error, "{tool} {args}: accepted: {text}");
                assert_eq!(text, format!("{prefix}{why}"), "{tool} {args}");
            }
        }
        if !covered.contains(tool) {
            covered.push(tool);
        }
    }
    // 18 argument types (the reproduction and 17 more), each with accepted and refused samples.
    assert_eq!(covered.len(), 18);
}
