//! What a request body names that its scopes depend on (the method, a tool's or prompt's
//! `name`, a resource's `uri`), read straight from the text. Reading the body into a `Value` for
//! this cost a call about 15,000 instructions (callgrind, BENCHMARKS.md), a second parse beside
//! the endpoint's own.
//!
//! Only the common shape takes this path: one object, UTF-8, each of these members given once
//! and a string (or absent, or `null`). Anything else (a batch, a key given twice, a member of
//! another type) is `None`, and the caller reads the body as a `Value`, whose last-given key
//! wins as it does for the endpoint.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::server::scopes::Named;

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
}

/// `params`, read in the same pass: its `name` and `uri` from an object; any other value
/// (an array, a string) names nothing, as read through a `Value`. A derived `Deserialize` would
/// also read a struct from an array, by position.
#[derive(Default)]
struct Params<'a> {
    name: Option<Cow<'a, str>>,
    uri: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Params<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params<'de>, A::Error> {
        let mut params = Params::default();
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let slot = match &*key {
                "name" => &mut params.name,
                "uri" => &mut params.uri,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if slot.is_some() {
                return Err(serde::de::Error::custom("a key given twice"));
            }
            *slot = map.next_value::<Option<Text<'de>>>()?.map(|Text(t)| t);
        }
        Ok(params)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Params<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Params::default())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Params<'de>, E> {
        Ok(Params::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Params<'de>, E> {
        Ok(Params::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Params<'de>, E> {
        Ok(Params::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Params<'de>, E> {
        Ok(Params::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<Params<'de>, E> {
        Ok(Params::default())
    }

    fn visit_unit<E>(self) -> Result<Params<'de>, E> {
        Ok(Params::default())
    }
}

/// A string, borrowed from the body when it has no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(s)))
            }

            fn visit_str<E>(self, s: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

/// The names of a body holding one message of the common shape; `None` for any other body.
pub(super) fn named(body: &[u8]) -> Option<Named<'_>> {
    let text = std::str::from_utf8(body).ok()?;
    // serde's derived `Deserialize` also reads a struct from an array: only an object may pass.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let message: Message<'_> = serde_json::from_str(text).ok()?;
    let params = message.params.unwrap_or_default();
    Some(Named {
        method: message.method,
        name: params.name,
        uri: params.uri,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// What the `Value` path reads from `text`, for comparison.
    fn through_value(text: &str) -> Option<Named<'static>> {
        let value: Value = serde_json::from_str(text).ok()?;
        let named = Named::of(&value);
        let own = |c: Option<Cow<'_, str>>| c.map(|c| Cow::Owned(c.into_owned()));
        Some(Named {
            method: own(named.method),
            name: own(named.name),
            uri: own(named.uri),
        })
    }

    #[test]
    fn the_common_shape_reads_as_the_value_path_does() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_task","arguments":{"name":"x"}}}"#,
            r#" {"method":"resources/read","params":{"uri":"notes://a","name":null}}"#,
            r#"{"method":"prompts/get","params":{"name":"p\u0041"}}"#,
            r#"{"method":"tools/list"}"#,
            r#"{"method":"tools/call","params":["add_task"]}"#,
            r#"{"method":null,"params":null}"#,
            r#"{"method":"tools/call","params":{"_meta":{"name":"x"},"name":"y"}}"#,
            r#"{"method":"tools/call","params":"add_task"}"#,
            r#"{"method":"tools/call","params":[{"name":"add_task"}, 1, [2]]}"#,
            r#"{"method":"tools/call","params":{"n\u0061me":"add_task"}}"#,
            r#"{"method":"tools/call","params":{"uri":null,"other":[1,{"name":2}]}}"#,
        ] {
            let peeked = named(text.as_bytes()).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(Some(peeked), through_value(text), "{text}");
        }
    }

    #[test]
    fn anything_else_goes_to_the_value_path() {
        for text in [
            // A key given twice: the `Value` path (and the endpoint) take the last one.
            r#"{"method":"tools/call","params":{"name":"list_tasks","name":"add_task"}}"#,
            r#"{"method":"tools/list","method":"tools/call","params":{"name":"add_task"}}"#,
            r#"{"method":"tools/call","params":{"name":"a"},"params":{"name":"b"}}"#,
            // A member of another type, a batch, not JSON, not an object, not UTF-8.
            r#"{"method":"tools/call","params":{"name":7}}"#,
            r#"{"method":7}"#,
            r#"[{"method":"tools/call","params":{"name":"add_task"}}]"#,
            r#"{"method":"tools/call""#,
            r#""tools/call""#,
            "",
        ] {
            assert!(named(text.as_bytes()).is_none(), "{text}");
        }
        assert!(named(b"{\"method\":\"\xff\"}").is_none());
    }
}
