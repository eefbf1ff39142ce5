//! The stateless era (2026-07-28): no handshake. Every request carries the protocol version and
//! the client's capabilities in `params._meta`; every result says `resultType`, and cacheable
//! (list and discover) results carry `ttlMs` and `cacheScope`.

use std::sync::Arc;

use serde::ser::SerializeMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::{
    ClientCapabilities, Implementation, LogLevel, Meta, STATELESS_VERSIONS, supported_versions,
};
use crate::error::{ProtocolError, codes};

/// The request `_meta` keys of the envelope, defined beside the `_meta` reader (`params.rs`).
pub use super::params::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROTOCOL_VERSION_KEY,
};
/// Result `_meta` key: the server's `Implementation`.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// The per-request envelope of a stateless request.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// The protocol version (one of [`STATELESS_VERSIONS`]).
    pub version: &'static str,
    /// The client's capabilities.
    pub capabilities: ClientCapabilities,
    /// The client's `Implementation`, when sent.
    pub client_info: Option<Implementation>,
    /// The log level the client opted into for this request.
    pub log_level: Option<LogLevel>,
}

/// True when `_meta` carries the stateless protocol-version key, whatever its value.
pub fn has_envelope(meta: Option<&Meta>) -> bool {
    meta.is_some_and(|m| m.protocol_version.is_some())
}

impl Envelope {
    /// Reads the envelope. A missing version or capabilities is -32602; a version we do not
    /// serve statelessly is -32022 with `{supported, requested}`.
    pub fn parse(meta: Option<&Meta>) -> Result<Envelope, ProtocolError> {
        let meta = meta.ok_or_else(|| {
            ProtocolError::invalid_params(format!(
                "Invalid params: the request has no `_meta`; send `initialize` first, or put \
                 `{PROTOCOL_VERSION_KEY}` and `{CLIENT_CAPABILITIES_KEY}` in `params._meta`"
            ))
        })?;
        let requested = meta
            .protocol_version
            .as_ref()
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ProtocolError::invalid_params(format!(
                    "Invalid params: `_meta` needs a string `{PROTOCOL_VERSION_KEY}`"
                ))
            })?;
        let version = STATELESS_VERSIONS
            .iter()
            .find(|v| **v == requested)
            .copied()
            .ok_or_else(|| unsupported_version(requested))?;
        let capabilities = match &meta.client_capabilities {
            Some(c @ Value::Object(_)) => ClientCapabilities(c.clone()),
            _ => {
                return Err(ProtocolError::invalid_params(format!(
                    "Invalid params: `_meta` needs an object `{CLIENT_CAPABILITIES_KEY}`"
                )));
            }
        };
        let log_level = match &meta.log_level {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_str().and_then(LogLevel::parse).ok_or_else(|| {
                ProtocolError::invalid_params(format!(
                    "Invalid params: `{LOG_LEVEL_KEY}` must be a log level such as \"info\""
                ))
            })?),
        };
        Ok(Envelope {
            version,
            capabilities,
            client_info: meta
                .client_info
                .as_ref()
                .and_then(Implementation::from_json),
            log_level,
        })
    }
}

/// -32022: the requested version is not one we serve statelessly.
pub fn unsupported_version(requested: &str) -> ProtocolError {
    ProtocolError::new(
        codes::UNSUPPORTED_VERSION,
        format!("Unsupported protocol version: {requested}"),
    )
    .with_data(json!({"supported": supported_versions(), "requested": requested}))
}

/// How a cacheable result may be cached.
#[derive(Debug, Clone, Copy)]
pub struct CacheHint {
    /// `ttlMs`
    pub ttl_ms: u64,
    /// `cacheScope`: true for `"public"`.
    pub public: bool,
}

/// Stamps a result for the stateless era: `resultType`, the server's identity in `_meta`, and the
/// cache hint for cacheable results.
pub fn stamp_result(result: &mut Value, server_info: &Implementation, cache: Option<CacheHint>) {
    let Some(obj) = result.as_object_mut() else {
        return;
    };
    obj.entry("resultType").or_insert_with(|| "complete".into());
    if let Some(cache) = cache {
        obj.insert("ttlMs".into(), cache.ttl_ms.into());
        obj.insert(
            "cacheScope".into(),
            if cache.public { "public" } else { "private" }.into(),
        );
    }
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(SERVER_INFO_KEY.into(), server_info.to_json());
    }
}

/// The server's identity as the stateless era stamps results with it, encoded once when the
/// server is built: the `Implementation` ([`Implementation::to_json`]), and the `_meta` object of
/// a result that has none of its own, which every such answer writes as it is (building that
/// object per answer cost about 450 instructions, callgrind).
#[derive(Debug)]
pub(crate) struct ServerStamp {
    info: Box<RawValue>,
    meta: Box<RawValue>,
}

impl ServerStamp {
    pub(crate) fn of(info: &Implementation) -> Arc<ServerStamp> {
        let info = info.to_json();
        let meta = json!({ SERVER_INFO_KEY: info });
        let raw = |v: &Value| serde_json::value::to_raw_value(v).expect("a JSON value encodes");
        Arc::new(ServerStamp {
            info: raw(&info),
            meta: raw(&meta),
        })
    }
}

/// What [`stamp_result`] adds to a result, kept apart from a result that stays typed until it is
/// written (a `tools/call` result, a list page): the server's identity, encoded once, and the
/// cache hint.
#[derive(Debug, Clone)]
pub(crate) struct Stamp {
    /// The server's identity, encoded.
    pub(crate) server_info: Arc<ServerStamp>,
    pub(crate) cache: Option<CacheHint>,
}

impl Stamp {
    /// Writes the stamp's members into a result's map, where [`stamp_result`] puts them (see
    /// [`serialize_stamp`]).
    pub(crate) fn serialize_members<M: SerializeMap>(
        &self,
        m: &mut M,
        meta: Option<&Map<String, Value>>,
    ) -> Result<(), M::Error> {
        serialize_stamp(m, &self.server_info, self.cache, meta)
    }
}

/// Writes what [`stamp_result`] adds into a result's map, where it puts it: after the result's
/// own members, the result's own `_meta` (`meta`, written here) keeping its place before
/// `resultType`, with the server's identity (`server_info`, encoded) added to it.
pub(crate) fn serialize_stamp<M: SerializeMap>(
    m: &mut M,
    server_info: &ServerStamp,
    cache: Option<CacheHint>,
    meta: Option<&Map<String, Value>>,
) -> Result<(), M::Error> {
    if let Some(meta) = meta {
        m.serialize_entry("_meta", &MetaWith(meta, &server_info.info))?;
    }
    m.serialize_entry("resultType", "complete")?;
    if let Some(cache) = cache {
        m.serialize_entry("ttlMs", &cache.ttl_ms)?;
        let scope = if cache.public { "public" } else { "private" };
        m.serialize_entry("cacheScope", scope)?;
    }
    if meta.is_none() {
        m.serialize_entry("_meta", &*server_info.meta)?;
    }
    Ok(())
}

/// A result's `_meta` with the server's identity set in it, as `Map::insert` sets it: in the
/// key's place when the map has it, else last. Hand-written: the identity is written from its
/// bytes encoded once (BENCHMARKS.md, "the stateless stamp written whole": about 1,100
/// instructions per stateless answer).
struct MetaWith<'a>(&'a Map<String, Value>, &'a RawValue);

impl serde::Serialize for MetaWith<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        for (key, value) in self.0 {
            if key == SERVER_INFO_KEY {
                m.serialize_entry(key, self.1)?;
            } else {
                m.serialize_entry(key, value)?;
            }
        }
        if !self.0.contains_key(SERVER_INFO_KEY) {
            m.serialize_entry(SERVER_INFO_KEY, self.1)?;
        }
        m.end()
    }
}

/// The `server/discover` result (before [`stamp_result`]).
pub fn discover_result(capabilities: &Value, instructions: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("supportedVersions".into(), json!(supported_versions()));
    m.insert("capabilities".into(), capabilities.clone());
    if let Some(i) = instructions {
        m.insert("instructions".into(), i.into());
    }
    Value::Object(m)
}
