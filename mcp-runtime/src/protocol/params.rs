//! A message's `params`, read as the runtime uses them: `name`, `arguments` and `_meta` apart
//! (the members every call reads), every other member in a map.
//!
//! serde_json's map (an `IndexMap` under the `preserve_order` feature this workspace enables)
//! allocates a table and an entry list and hashes every key it inserts: the `params` of a
//! stateless `tools/call`, read into maps, were the dearest part of reading the request
//! (BENCHMARKS.md). Here the members the runtime reads on every call are fields, and `_meta` is
//! read into [`Meta`], whose members the stateless envelope names are fields too; a map is
//! built only for the members that are left, and for a `tools/call` none are.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::SeqAccessDeserializer;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// `_meta` key: the protocol version of this request.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for this request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's `Implementation`.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the lowest log level the client wants for this request (absent: no log messages).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// The `params` object of a request or a notification.
///
/// Each member holds its value as given. A member given twice keeps its last value, as a
/// `serde_json::Map` would.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    /// `name` (`tools/call`, `prompts/get`).
    pub name: Option<Value>,
    /// `arguments` (`tools/call`, `prompts/get`).
    pub arguments: Option<Value>,
    /// `_meta`, when it is an object. A `_meta` of another type is kept in `other`.
    pub meta: Option<Box<Meta>>,
    /// Every other member, in the order given.
    pub other: Map<String, Value>,
}

/// The `_meta` object of a message's params.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `io.modelcontextprotocol/protocolVersion` (the stateless envelope).
    pub protocol_version: Option<Value>,
    /// `io.modelcontextprotocol/clientCapabilities` (the stateless envelope).
    pub client_capabilities: Option<Value>,
    /// `io.modelcontextprotocol/clientInfo` (the stateless envelope).
    pub client_info: Option<Value>,
    /// `io.modelcontextprotocol/logLevel` (the stateless envelope).
    pub log_level: Option<Value>,
    /// `progressToken`.
    pub progress_token: Option<Value>,
    /// Every other member, in the order given.
    pub other: Map<String, Value>,
}

const NAME: &str = "name";
const ARGUMENTS: &str = "arguments";
const META: &str = "_meta";
const PROGRESS_TOKEN: &str = "progressToken";

impl Params {
    /// The member `key` (`None` for `_meta` when it is an object: that is [`Params::meta`]).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match key {
            NAME => self.name.as_ref(),
            ARGUMENTS => self.arguments.as_ref(),
            _ => super::member(&self.other, key),
        }
    }

    /// Reads a params object. The members left in `other` keep their order (`shift_remove`: a
    /// plain `remove` of serde_json's ordered map moves its last member into the gap).
    pub fn from_map(mut map: Map<String, Value>) -> Params {
        // A `_meta` that is not an object stays where it is, among the other members.
        let meta = match map.get(META) {
            Some(Value::Object(_)) => match map.shift_remove(META) {
                Some(Value::Object(meta)) => Some(Box::new(Meta::from_map(meta))),
                _ => None,
            },
            _ => None,
        };
        Params {
            name: map.shift_remove(NAME),
            arguments: map.shift_remove(ARGUMENTS),
            meta,
            other: map,
        }
    }

    /// The params object again (`name`, `arguments`, then the other members, then `_meta`).
    pub fn into_map(self) -> Map<String, Value> {
        let mut map = Map::new();
        map.extend(self.name.map(|v| (NAME.to_owned(), v)));
        map.extend(self.arguments.map(|v| (ARGUMENTS.to_owned(), v)));
        map.extend(self.other);
        if let Some(meta) = self.meta {
            map.insert(META.into(), Value::Object(meta.into_map()));
        }
        map
    }

    /// The params object again, as a `Value`.
    pub fn into_value(self) -> Value {
        Value::Object(self.into_map())
    }

    fn take(&mut self, key: Cow<'_, str>, value: Value) {
        match key.as_ref() {
            NAME => self.name = Some(value),
            ARGUMENTS => self.arguments = Some(value),
            // Only a `_meta` that is not an object comes here: `from_object` reads an object
            // into `Meta` and sets it with `set_meta`.
            META => {
                self.meta = None;
                self.other.insert(META.into(), value);
            }
            _ => {
                self.other.insert(key.into_owned(), value);
            }
        }
    }

    /// Sets `_meta` to an object, dropping an earlier `_meta` of another type.
    fn set_meta(&mut self, meta: Box<Meta>) {
        if !self.other.is_empty() {
            self.other.shift_remove(META);
        }
        self.meta = Some(meta);
    }
}

impl Meta {
    /// The member `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match key {
            PROTOCOL_VERSION_KEY => self.protocol_version.as_ref(),
            CLIENT_CAPABILITIES_KEY => self.client_capabilities.as_ref(),
            CLIENT_INFO_KEY => self.client_info.as_ref(),
            LOG_LEVEL_KEY => self.log_level.as_ref(),
            PROGRESS_TOKEN => self.progress_token.as_ref(),
            _ => super::member(&self.other, key),
        }
    }

    /// Reads a `_meta` object.
    pub fn from_map(map: Map<String, Value>) -> Meta {
        let mut meta = Meta::default();
        for (key, value) in map {
            meta.take(Cow::Owned(key), value);
        }
        meta
    }

    /// The `_meta` object again (the envelope's members, the progress token, then the others).
    pub fn into_map(self) -> Map<String, Value> {
        let mut map = Map::new();
        for (key, value) in [
            (PROTOCOL_VERSION_KEY, self.protocol_version),
            (CLIENT_CAPABILITIES_KEY, self.client_capabilities),
            (CLIENT_INFO_KEY, self.client_info),
            (LOG_LEVEL_KEY, self.log_level),
            (PROGRESS_TOKEN, self.progress_token),
        ] {
            map.extend(value.map(|v| (key.to_owned(), v)));
        }
        map.extend(self.other);
        map
    }

    fn take(&mut self, key: Cow<'_, str>, value: Value) {
        let slot = match key.as_ref() {
            PROTOCOL_VERSION_KEY => &mut self.protocol_version,
            CLIENT_CAPABILITIES_KEY => &mut self.client_capabilities,
            CLIENT_INFO_KEY => &mut self.client_info,
            LOG_LEVEL_KEY => &mut self.log_level,
            PROGRESS_TOKEN => &mut self.progress_token,
            _ => {
                self.other.insert(key.into_owned(), value);
                return;
            }
        };
        *slot = Some(value);
    }
}

/// Reads a params object member by member, straight into its fields (an object only: anything
/// else is an error). Hand-written, as is `FromObject`: a derive would collect the rest
/// through `#[serde(flatten)]`'s buffer and copy every key (BENCHMARKS.md, "params read into
/// fields": HTTP stateless valid 61,362 → 58,384 instructions per call).
impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match ObjectOr::<Params>::deserialize(deserializer)? {
            ObjectOr::Object(params) => Ok(params),
            ObjectOr::Other(other) => Err(serde::de::Error::custom(format_args!(
                "params must be an object, not {other}"
            ))),
        }
    }
}

/// What is read from a JSON object member by member.
pub(super) trait FromObject<'de>: Sized {
    fn from_object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

impl<'de> FromObject<'de> for Params {
    fn from_object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut params = Params::default();
        while let Some(Text(key)) = map.next_key()? {
            if key == META {
                match map.next_value::<ObjectOr<Box<Meta>>>()? {
                    ObjectOr::Object(meta) => params.set_meta(meta),
                    ObjectOr::Other(v) => params.take(key, v),
                }
            } else {
                params.take(key, map.next_value()?);
            }
        }
        Ok(params)
    }
}

/// Built in its box: a `Meta` is large to move.
impl<'de> FromObject<'de> for Box<Meta> {
    fn from_object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut meta = Box::<Meta>::default();
        while let Some(Text(key)) = map.next_key()? {
            meta.take(key, map.next_value()?);
        }
        Ok(meta)
    }
}

/// A JSON string borrowed from the text when it has no escapes, copied only when it has.
///
/// serde's own `Deserialize` for `Cow<str>` always copies (borrowing is a derive-only option,
/// and not through an `Option`): every key of a `tools/call`'s params and `_meta` (five) and its
/// `jsonrpc` member cost an allocation each.
pub(super) struct Text<'de>(pub(super) Cow<'de, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a str>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(TextVisitor(std::marker::PhantomData))
    }
}

/// A member that is read as `T` when it is an object, and kept as given when it is not (a
/// message's `params`, whose other types the message is refused for; a `_meta`, whose other
/// types are kept as plain members).
// Built once per member and moved into place at once: boxing `Params` would cost an
// allocation per message.
#[allow(clippy::large_enum_variant)]
pub(super) enum ObjectOr<T> {
    Object(T),
    Other(Value),
}

impl<'de, T: FromObject<'de>> Deserialize<'de> for ObjectOr<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectOrVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: FromObject<'de>> Visitor<'de> for ObjectOrVisitor<T> {
            type Value = ObjectOr<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::from_object(map).map(ObjectOr::Object)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let value = Value::deserialize(SeqAccessDeserializer::new(seq))?;
                Ok(ObjectOr::Other(value))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(v.into()))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(v.into()))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other(Value::Null))
            }
        }
        deserializer.deserialize_any(ObjectOrVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Read member by member and read from a map, the same params come out, and they go back
    /// to the same object.
    #[test]
    fn params_read_from_text_and_from_a_map_agree_and_round_trip() {
        for params in [
            json!({}),
            json!({"name": "add", "arguments": {"a": 1}}),
            json!({"name": 5, "cursor": "c", "_meta": {"progressToken": 7, "x": [1]}}),
            json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {},
                   CLIENT_INFO_KEY: {"name": "c", "version": "1"}, LOG_LEVEL_KEY: "info"},
                   "name": "add", "arguments": null, "task": {"ttl": 5}}),
            json!({"_meta": 3}),
            json!({"_meta": [1, {"a": 2}], "uri": "a://b"}),
            json!({"_meta": null}),
            json!({"_meta": "text", "name": "n"}),
        ] {
            let text = serde_json::to_string(&params).unwrap();
            let read: Params = serde_json::from_str(&text).unwrap();
            let Value::Object(map) = params.clone() else {
                unreachable!()
            };
            assert_eq!(read, Params::from_map(map.clone()), "{text}");
            // Same members, whatever their order.
            let again = read.into_map();
            assert_eq!(again.len(), map.len(), "{text}");
            for (key, value) in &map {
                assert_eq!(again.get(key), Some(value), "{text}: {key}");
            }
        }
    }

    /// A string without escapes is borrowed from the text; one with escapes is decoded into a
    /// copy, and a key written with escapes still names its member.
    #[test]
    fn text_borrows_unless_it_must_decode() {
        let Text(plain) = serde_json::from_str::<Text>(r#""arguments""#).unwrap();
        assert!(matches!(plain, Cow::Borrowed("arguments")));
        let Text(escaped) = serde_json::from_str::<Text>(r#""na\u006de""#).unwrap();
        assert!(matches!(escaped, Cow::Owned(ref s) if s == "name"));
        assert!(serde_json::from_str::<Text>("5").is_err());
        let read: Params =
            serde_json::from_str(r#"{"na\u006de":"n","_m\u0065ta":{"progressToken":1}}"#).unwrap();
        assert_eq!(read.name, Some(Value::from("n")));
        assert_eq!(read.meta.unwrap().progress_token, Some(Value::from(1)));
    }

    /// The other members keep their order, read from the text or from a map.
    #[test]
    fn other_members_keep_their_order() {
        let text = r#"{"a":1,"name":"n","b":2,"_meta":5,"arguments":{},"c":3,"d":4}"#;
        let from_text: Params = serde_json::from_str(text).unwrap();
        let map: Map<String, Value> = serde_json::from_str(text).unwrap();
        let from_map = Params::from_map(map);
        for params in [from_text, from_map] {
            let keys: Vec<&str> = params.other.keys().map(String::as_str).collect();
            assert_eq!(keys, ["a", "b", "_meta", "c", "d"]);
        }
    }

    #[test]
    fn members_are_found_where_they_are_kept() {
        let text = r#"{"name":"add","arguments":{"a":1},"cursor":"c2",
            "_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"v","k":1}}"#;
        let params: Params = serde_json::from_str(text).unwrap();
        assert_eq!(params.get("name"), Some(&json!("add")));
        assert_eq!(params.get("arguments"), Some(&json!({"a": 1})));
        assert_eq!(params.get("cursor"), Some(&json!("c2")));
        assert_eq!(params.get("_meta"), None);
        assert_eq!(params.get("other"), None);
        let meta = params.meta.as_deref().unwrap();
        assert_eq!(meta.get("progressToken"), Some(&json!("p")));
        assert_eq!(meta.get(PROTOCOL_VERSION_KEY), Some(&json!("v")));
        assert_eq!(meta.get("k"), Some(&json!(1)));
        assert_eq!(meta.get(LOG_LEVEL_KEY), None);
        assert!(params.other.len() == 1 && meta.other.len() == 1);
    }

    /// A member given twice keeps its last value, as a map would; `_meta` too, whatever the
    /// types of its two values.
    #[test]
    fn a_member_given_twice_keeps_its_last_value() {
        for (text, name, meta, other_meta) in [
            (r#"{"name":"a","name":"b"}"#, Some("b"), None, None),
            (
                r#"{"_meta":{"progressToken":1},"_meta":5}"#,
                None,
                None,
                Some(json!(5)),
            ),
            (
                r#"{"_meta":5,"_meta":{"progressToken":1}}"#,
                None,
                Some(json!(1)),
                None,
            ),
            (
                r#"{"_meta":{"progressToken":1,"progressToken":2}}"#,
                None,
                Some(json!(2)),
                None,
            ),
        ] {
            let params: Params = serde_json::from_str(text).unwrap();
            assert_eq!(params.name.as_ref().and_then(Value::as_str), name, "{text}");
            assert_eq!(params.meta.and_then(|m| m.progress_token), meta, "{text}");
            assert_eq!(params.other.get("_meta").cloned(), other_meta, "{text}");
        }
    }

    #[test]
    fn params_that_are_not_an_object_do_not_read() {
        for text in ["[]", "5", "\"p\"", "true"] {
            assert!(serde_json::from_str::<Params>(text).is_err(), "{text}");
        }
        // As a message's member they read, whole, as what the message is refused for.
        for text in ["[1, {\"a\": [2]}]", "5", "-1.5", "\"p\"", "true", "null"] {
            let member = serde_json::from_str::<ObjectOr<Params>>(text);
            assert!(matches!(member, Ok(ObjectOr::Other(_))), "{text}");
        }
        let object = serde_json::from_str::<ObjectOr<Params>>(r#"{"name": "n"}"#);
        assert!(matches!(object, Ok(ObjectOr::Object(p)) if p.get("name").is_some()));
    }
}
