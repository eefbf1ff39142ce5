//! The corpus: argument types with the serde and schemars shapes found in the wild, and one tool
//! per type (`v: T`) whose body echoes what it received as `{"echo": v}` (structured output).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::{NonZeroI8, NonZeroU32};
use std::path::PathBuf;
use std::time::Duration;

use mcp_runtime::ToolTable;
use mcp_runtime::prelude::*;
use serde::Serialize;
use serde_json::Value;

/// What every echo tool returns: always an object, so it is never wrapped as `{"result": …}`.
#[derive(Serialize, JsonSchema)]
pub struct Echo<T> {
    pub echo: T,
}

// ---- flatten -----------------------------------------------------------------------------------

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Shape {
    Circle { r: f64 },
    Square { side: f64 },
}

/// The reproduction of the issue: `deny_unknown_fields` flattening an internally tagged enum.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Draw {
    pub label: String,
    #[serde(flatten)]
    pub shape: Shape,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DrawOpen {
    pub label: String,
    #[serde(flatten)]
    pub shape: Shape,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Inner {
    pub a: u8,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FlatStruct {
    pub name: String,
    #[serde(flatten)]
    pub inner: Inner,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlatStrict {
    pub name: String,
    #[serde(flatten)]
    pub inner: Inner,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CatchAll {
    pub name: String,
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// A typed catch-all: every other key must hold an integer.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Counters {
    pub total: u32,
    #[serde(flatten)]
    pub each: BTreeMap<String, i32>,
}

/// Flatten of an optional struct: its fields come together or not at all.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Paging {
    pub page: u32,
    pub per_page: u8,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Query {
    pub q: String,
    #[serde(flatten)]
    pub paging: Option<Paging>,
}

// ---- enums ---------------------------------------------------------------------------------------

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Loose {
    Cat { lives: u8 },
    Dog,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum Strict {
    Cat { lives: u8 },
    Dog,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Num(i32),
    Pair(String, bool),
    Nothing,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Untagged {
    Point { x: i32, y: i32 },
    Word(String),
}

/// Externally tagged (serde's default): a unit variant is a string, the others one-key objects.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub enum External {
    Stop,
    Speed(u16),
    Move(i8, i8),
    Goto { x: i32, y: i32 },
}

/// `#[serde(other)]`: serde maps any unknown tag to `Unknown`; the schema lists the known tags.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Click {
        x: i32,
    },
    KeyPress {
        key: char,
    },
    #[serde(other)]
    Unknown,
}

/// Renaming rules on variants and on their fields.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum Command {
    SetLimit {
        max_value: u32,
    },
    ResetAll,
    #[serde(rename = "NOOP")]
    Noop,
}

/// Documented unit variants are published as `oneOf` of `const`s.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Level {
    /// Only errors.
    ErrorOnly,
    /// Everything.
    All,
}

/// An expression tree: recursion through `Box` in an enum.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Expr {
    Num(i64),
    Neg(Box<Expr>),
    Add(Box<Expr>, Box<Expr>),
}

/// An internally tagged newtype variant around a struct.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Message {
    Text(Inner),
    Ping,
}

/// Untagged, in order: the first variant that deserializes wins.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    Int(i64),
    Float(f64),
    Flag(bool),
    Many(Vec<Scalar>),
}

// ---- field attributes ----------------------------------------------------------------------------

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
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

fn three() -> u8 {
    3
}

/// Field defaults, one from a function: published as `default`, filled in by serde.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Retry {
    #[serde(default = "three")]
    pub attempts: u8,
    #[serde(default)]
    pub verbose: bool,
}

/// `alias` is serde-only: the published contract names `color` alone.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Paint {
    #[serde(alias = "colour")]
    pub color: String,
}

/// `skip` fields are not published; with `deny_unknown_fields` sending one is refused.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cached {
    pub key: String,
    #[serde(skip)]
    #[allow(dead_code)] // never read: neither deserialized nor echoed
    pub hits: u32,
    #[serde(skip_deserializing)]
    pub derived: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    pub first_name: String,
    #[serde(rename = "ID")]
    pub user_id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middle_name: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Patch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Option<u8>>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct List {
    pub v: i32,
    pub next: Option<Box<List>>,
}

/// A tuple struct, a newtype and `transparent`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Rgb(pub u8, pub u8, pub u8);

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct UserId {
    pub id: NonZeroU32,
}

// ---- generics ------------------------------------------------------------------------------------

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<String>,
}

/// A recursive generic: each instantiation gets a `$defs` entry of its own.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Chain<T> {
    pub value: T,
    pub rest: Option<Box<Chain<T>>>,
}

// ---- schemars attributes ---------------------------------------------------------------------------

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Bounded {
    #[schemars(length(min = 1, max = 3))]
    pub tags: Vec<String>,
    #[schemars(length(min = 2, max = 4))]
    pub code: String,
    #[schemars(range(min = 1, max = 10))]
    pub level: u8,
    #[schemars(range(min = -1.5, max = 1.5))]
    pub ratio: f64,
    #[schemars(regex(pattern = r"^[a-z]+-\d{2}$"))]
    pub slug: String,
}

/// A value serde reads from an `"HH:MM"` string; `with` publishes it as a plain string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock(pub u8, pub u8);

impl Serialize for Clock {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{:02}:{:02}", self.0, self.1))
    }
}

impl<'de> Deserialize<'de> for Clock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let bad = || serde::de::Error::custom(format!("not a time of day: {s:?}"));
        let (h, m) = s.split_once(':').ok_or_else(bad)?;
        match (h.parse::<u8>(), m.parse::<u8>()) {
            (Ok(h), Ok(m)) if h < 24 && m < 60 => Ok(Clock(h, m)),
            _ => Err(bad()),
        }
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Alarm {
    #[schemars(with = "String")]
    pub at: Clock,
    pub label: String,
}

/// A schemars `transform`: every string property of the struct must be non-empty.
fn non_empty_strings(schema: &mut schemars::Schema) {
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for p in props.values_mut() {
        if p.get("type").and_then(Value::as_str) == Some("string") {
            p["minLength"] = 1.into();
        }
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = non_empty_strings)]
pub struct Contact {
    pub name: String,
    pub email: String,
    pub age: u8,
}

/// schemars `extend`: keywords added to the struct and to a field.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("examples" = [{"step": 5}], "maxProperties" = 1))]
pub struct Stepped {
    #[serde(default)]
    #[schemars(extend("multipleOf" = 5, "x-unit" = "ms"))]
    pub step: u32,
}

macro_rules! echo_tools {
    ($($name:ident: $ty:ty),* $(,)?) => {$(
        /// Echoes its argument.
        #[tool]
        fn $name(v: $ty) -> Echo<$ty> {
            Echo { echo: v }
        }
    )*};
}

echo_tools! {
    draw: Draw,
    draw_open: DrawOpen,
    flat_struct: FlatStruct,
    flat_strict: FlatStrict,
    catch_all: CatchAll,
    counters: Counters,
    query: Query,
    loose: Loose,
    strict: Strict,
    adjacent: Adjacent,
    untagged: Untagged,
    external: External,
    event: Event,
    command: Command,
    level: Level,
    expr: Expr,
    message: Message,
    scalar: Scalar,
    defaults: Defaults,
    retry: Retry,
    paint: Paint,
    cached: Cached,
    renamed: Renamed,
    patch: Patch,
    list: List,
    rgb: Rgb,
    user_id: UserId,
    tuple: (u8, String, bool),
    triple: [i16; 3],
    letter: char,
    nonzero: NonZeroU32,
    nonzero_i8: NonZeroI8,
    ip: IpAddr,
    ipv6: Ipv6Addr,
    socket: SocketAddr,
    duration: Duration,
    path: PathBuf,
    set: BTreeSet<String>,
    scores: HashMap<String, u32>,
    by_id: BTreeMap<u16, String>,
    any: Value,
    page_u8: Page<u8>,
    page_text: Page<String>,
    bounded: Bounded,
    alarm: Alarm,
    contact: Contact,
    stepped: Stepped,
}

/// A generic struct instantiated twice in one tool.
#[tool]
fn pages(a: Page<u8>, b: Page<String>) -> Echo<(Page<u8>, Page<String>)> {
    Echo { echo: (a, b) }
}

/// A recursive generic instantiated twice in one tool.
#[tool]
fn chains(a: Chain<u8>, b: Chain<String>) -> Echo<(Chain<u8>, Chain<String>)> {
    Echo { echo: (a, b) }
}

/// The same recursive type twice in one tool: one `$defs` entry serves both.
#[tool]
fn route(from: List, to: List) -> Echo<(List, List)> {
    Echo { echo: (from, to) }
}

/// Say hi.
#[tool]
fn hi() -> String {
    "hi".into()
}

/// The issue's reproduction, which serde cannot serve: its server is refused at build.
pub fn unservable() -> ToolTable {
    tools![draw]
}

/// Every tool of the corpus.
pub fn table() -> ToolTable {
    tools![
        hi,
        draw_open,
        flat_struct,
        flat_strict,
        catch_all,
        counters,
        query,
        loose,
        strict,
        adjacent,
        untagged,
        external,
        event,
        command,
        level,
        expr,
        message,
        scalar,
        defaults,
        retry,
        paint,
        cached,
        renamed,
        patch,
        list,
        rgb,
        user_id,
        tuple,
        triple,
        letter,
        nonzero,
        nonzero_i8,
        ip,
        ipv6,
        socket,
        duration,
        path,
        set,
        scores,
        by_id,
        any,
        page_u8,
        page_text,
        bounded,
        alarm,
        contact,
        stepped,
        pages,
        chains,
        route
    ]
}
