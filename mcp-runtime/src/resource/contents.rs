//! What a resource read returns: [`ResourceContents`] (text or a base64 blob), the return types
//! `#[resource]` accepts ([`IntoResourceContents`], plus any `Serialize` value as JSON text), and
//! the types a template variable may have ([`UriVar`]).

use base64::Engine;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::ToolError;

/// The body of one contents item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// `text`.
    Text(String),
    /// `blob`: the bytes, sent base64-encoded.
    Blob(Vec<u8>),
}

/// One item of a `resources/read` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContents {
    /// The item's URI; `None`: the URI that was read.
    pub uri: Option<String>,
    /// Its MIME type; `None`: the resource's `mime_type`, else `text/plain` for text and
    /// `application/octet-stream` for a blob.
    pub mime_type: Option<String>,
    /// The text or the bytes.
    pub body: ResourceBody,
}

impl ResourceContents {
    /// A text item.
    pub fn text(text: impl Into<String>) -> Self {
        ResourceContents {
            uri: None,
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// A binary item.
    pub fn blob(bytes: impl Into<Vec<u8>>) -> Self {
        ResourceContents {
            uri: None,
            mime_type: None,
            body: ResourceBody::Blob(bytes.into()),
        }
    }

    /// A JSON text item (`application/json`) of `value`.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        let text = serde_json::to_string(value).map_err(ToolError::internal)?;
        Ok(Self::text(text).with_mime_type("application/json"))
    }

    /// This item with its own URI (for a read that returns several resources).
    pub fn with_uri(mut self, uri: impl Into<String>) -> Self {
        self.uri = Some(uri.into());
        self
    }

    /// This item with its own MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The item as sent, filling in the URI read and the resource's MIME type. Hand-written: those
    /// two come from the read, not from the item (a `Serialize` takes no arguments).
    pub fn to_json(&self, uri: &str, mime_type: Option<&str>) -> Value {
        let mut m = Map::new();
        m.insert("uri".into(), self.uri.as_deref().unwrap_or(uri).into());
        let (key, value, fallback) = match &self.body {
            ResourceBody::Text(t) => ("text", Value::from(t.as_str()), "text/plain"),
            ResourceBody::Blob(b) => (
                "blob",
                base64::engine::general_purpose::STANDARD.encode(b).into(),
                "application/octet-stream",
            ),
        };
        let mime = self.mime_type.as_deref().or(mime_type).unwrap_or(fallback);
        m.insert("mimeType".into(), mime.into());
        m.insert(key.into(), value);
        Value::Object(m)
    }

    /// An item read back from its JSON (the client side); `None` when it is neither text nor blob.
    /// Hand-written: it reads leniently (a `uri` or `mimeType` that is not a string is left out).
    pub fn from_json(value: &Value) -> Option<Self> {
        let body = match (value.get("text"), value.get("blob")) {
            (Some(Value::String(t)), _) => ResourceBody::Text(t.clone()),
            (_, Some(Value::String(b))) => {
                ResourceBody::Blob(base64::engine::general_purpose::STANDARD.decode(b).ok()?)
            }
            _ => return None,
        };
        Some(ResourceContents {
            uri: value.get("uri").and_then(Value::as_str).map(str::to_owned),
            mime_type: value
                .get("mimeType")
                .and_then(Value::as_str)
                .map(str::to_owned),
            body,
        })
    }

    /// The text, for a text item.
    pub fn as_text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text(t) => Some(t),
            ResourceBody::Blob(_) => None,
        }
    }
}

/// A return type of a `#[resource]` function that is not JSON: text, bytes, contents items, or a
/// `Result` of one. A return type that is not one of these is sent as JSON text
/// (`application/json`) when it is `Serialize`, inside a `Result` too (`Result<Incident, E>`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a resource",
    label = "not text, bytes or `ResourceContents`",
    note = "return `String` (text), `Vec<u8>` or `bytes::Bytes` (a base64 blob), `ResourceContents` or `Vec<ResourceContents>`, any `Serialize` type (JSON text), or a `Result` of one of these"
)]
pub trait IntoResourceContents {
    /// The items of the read.
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError>;
}

impl IntoResourceContents for String {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for &'static str {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents::blob(self)])
    }
}

impl IntoResourceContents for bytes::Bytes {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents::blob(self.to_vec())])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(self)
    }
}

/// A value sent as JSON text (`application/json`): what a `Serialize` return type becomes. Wrap
/// a value in it to send as JSON a type that would otherwise be text (a `String` holding JSON).
pub struct Json<T>(pub T);

impl<T: Serialize> IntoResourceContents for Json<T> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents::json(&self.0)?])
    }
}

/// The type of a template variable: read from the text the URI holds. `String` and the other
/// string types implement it; so can an enum of fixed values (one line,
/// `impl mcp_runtime::UriVar for Kind {}`, with `Deserialize` and `JsonSchema` derived), whose
/// variants then complete the variable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a resource template variable",
    label = "a template variable is text from the URI: this type is not string-like",
    note = "use `String` (or `Box<str>`), or an enum with `Deserialize` and `JsonSchema` derived and `impl mcp_runtime::UriVar for T {{}}`",
    note = "a string-like type of another crate is a template variable with mcp-runtime's feature for its crate on: uuid's `Uuid` → `uuid1`, chrono's `NaiveDate` and `DateTime<Utc>` → `chrono04`, url's `Url` → `url2`, semver's `Version` → `semver1`, smol_str's `SmolStr` → `smol_str02`"
)]
pub trait UriVar: DeserializeOwned + JsonSchema + Send + 'static {
    /// Reads the variable's decoded text; `None` when the type has no such value.
    fn from_uri_var(text: &str) -> Option<Self> {
        serde_json::from_value(Value::String(text.to_owned())).ok()
    }

    /// The values the variable can take, when the type has a fixed set (an enum's variants, read
    /// from its JSON Schema `enum`); `None` for free text.
    fn candidates() -> Option<Vec<String>> {
        let schema = schemars::SchemaGenerator::default().into_root_schema_for::<Self>();
        let values = schema.as_value().get("enum")?.as_array()?.clone();
        values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    }
}

impl UriVar for String {}
impl UriVar for Box<str> {}

// The string-like types of the foreign-type features: read from the URI's text by their own serde
// impls (a text they refuse reads as no value, so the URI names no resource).
#[cfg(feature = "uuid1")]
impl UriVar for uuid1::Uuid {}
#[cfg(feature = "chrono04")]
impl UriVar for chrono04::NaiveDate {}
#[cfg(feature = "chrono04")]
impl UriVar for chrono04::DateTime<chrono04::Utc> {}
#[cfg(feature = "url2")]
impl UriVar for url2::Url {}
#[cfg(feature = "semver1")]
impl UriVar for semver1::Version {}
#[cfg(feature = "smol_str02")]
impl UriVar for smol_str02::SmolStr {}
