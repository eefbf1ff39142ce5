//! The results of the list methods (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`): a page of entries that were encoded once, when their table was
//! built, and are written out as those bytes.

use std::ops::Range;
use std::sync::Arc;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::stateless::Stamp;

/// The entries of one list, in order, each encoded as JSON once. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct Listing(Arc<[Box<RawValue>]>);

impl Listing {
    /// Encodes each entry. Its text is what serializing the `Value` writes, so a page written
    /// from it is, byte for byte, the page written from the values.
    pub(crate) fn encode<'a>(entries: impl IntoIterator<Item = &'a Value>) -> Listing {
        Listing(
            entries
                .into_iter()
                .map(|v| serde_json::value::to_raw_value(v).expect("a JSON value encodes"))
                .collect(),
        )
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

impl std::fmt::Debug for Listing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Listing({} entries)", self.0.len())
    }
}

/// One page of a list method's result: `{key: [entries in range], nextCursor?}`, and, in the
/// stateless era, what [`Stamp`] adds. Built per request; the entries are shared, not copied.
#[derive(Debug)]
pub(crate) struct Page {
    key: &'static str,
    entries: Listing,
    range: Range<usize>,
    next_cursor: Option<String>,
    stamp: Option<Stamp>,
}

impl Page {
    /// The entries `range` of `entries` under `key`, followed by `next_cursor` when there is one.
    pub(crate) fn new(
        key: &'static str,
        entries: &Listing,
        range: Range<usize>,
        next_cursor: Option<String>,
    ) -> Page {
        Page {
            key,
            entries: entries.clone(),
            range,
            next_cursor,
            stamp: None,
        }
    }

    /// The bytes its entries take when written (each entry and a comma): what a writer can
    /// reserve up front, so that a page of several kilobytes is not copied as its buffer grows.
    #[cfg(feature = "http")]
    pub(crate) fn entries_len(&self) -> usize {
        let entries = &self.entries.0[self.range.clone()];
        entries.iter().map(|e| e.get().len() + 1).sum()
    }

    /// The page as a stateless result.
    pub(crate) fn stamped(self, stamp: Stamp) -> Page {
        Page {
            stamp: Some(stamp),
            ..self
        }
    }
}

/// The members in the order the `Value` path wrote them: the list, `nextCursor`, then the stamp.
/// Hand-written: the page's key is the method's (`tools`, `prompts`, …) and its entries are
/// encoded once with their table (BENCHMARKS.md, "list entries encoded once": stdio
/// `tools/list` 190,443 → 9,875 instructions per call).
impl Serialize for Page {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry(self.key, &Entries(&self.entries.0[self.range.clone()]))?;
        if let Some(cursor) = &self.next_cursor {
            m.serialize_entry("nextCursor", cursor)?;
        }
        if let Some(stamp) = &self.stamp {
            stamp.serialize_members(&mut m, None)?;
        }
        m.end()
    }
}

struct Entries<'a>(&'a [Box<RawValue>]);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for entry in self.0 {
            seq.serialize_element(entry)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Implementation;
    use crate::protocol::stateless::{CacheHint, ServerStamp, stamp_result};
    use serde_json::{Map, json};

    /// What a page was before its entries were encoded: a `Value` built per request.
    fn via_value(
        key: &str,
        entries: &[Value],
        range: Range<usize>,
        next: Option<&str>,
        stamp: Option<(&Implementation, Option<CacheHint>)>,
    ) -> String {
        let mut m = Map::new();
        m.insert(key.into(), Value::Array(entries[range].to_vec()));
        if let Some(next) = next {
            m.insert("nextCursor".into(), next.into());
        }
        let mut v = Value::Object(m);
        if let Some((info, cache)) = stamp {
            stamp_result(&mut v, info, cache);
        }
        serde_json::to_string(&v).unwrap()
    }

    #[test]
    fn a_page_is_written_as_its_value_was() {
        let entries = [
            json!({"name": "a \"quoted\" é\n", "inputSchema": {"type": "object", "z": 1, "a": [1.5, null]}}),
            json!({"name": "b", "annotations": {"readOnlyHint": true}}),
            json!({"name": "c", "n": 18446744073709551615_u64, "m": -3}),
        ];
        let listing = Listing::encode(&entries);
        let info = Implementation {
            name: "srv".into(),
            version: "1.0".into(),
            title: Some("The \"server\"".into()),
            description: None,
        };
        let caches = [
            None,
            Some(CacheHint {
                ttl_ms: 0,
                public: false,
            }),
            Some(CacheHint {
                ttl_ms: 60_000,
                public: true,
            }),
        ];
        for (range, next) in [
            (0..3, None),
            (0..1, Some("tools-1")),
            (1..2, Some("x-2")),
            (3..3, None),
        ] {
            let page = Page::new("tools", &listing, range.clone(), next.map(str::to_owned));
            assert_eq!(
                serde_json::to_string(&page).unwrap(),
                via_value("tools", &entries, range.clone(), next, None)
            );
            for cache in caches {
                let stamp = Stamp {
                    server_info: ServerStamp::of(&info),
                    cache,
                };
                let page = Page::new("tools", &listing, range.clone(), next.map(str::to_owned));
                let page = page.stamped(stamp);
                let expected =
                    via_value("tools", &entries, range.clone(), next, Some((&info, cache)));
                assert_eq!(serde_json::to_string(&page).unwrap(), expected);
                assert_eq!(serde_json::to_value(&page).unwrap().to_string(), expected);
            }
        }
    }
}
