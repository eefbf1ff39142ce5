//! What a tool call returns on the wire: content blocks and the call result.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// One content block of a tool result. Fields are the MCP fields of the same names.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Plain text for the model.
    Text(String),
    /// A base64-encoded image with its MIME type.
    Image { data: String, mime_type: String },
    /// A base64-encoded audio clip with its MIME type.
    Audio { data: String, mime_type: String },
    /// A link to a resource the client can read.
    ResourceLink {
        uri: String,
        name: String,
        description: Option<String>,
        mime_type: Option<String>,
    },
    /// A resource embedded in the result: text or base64 blob.
    Resource {
        uri: String,
        mime_type: Option<String>,
        text: Option<String>,
        blob: Option<String>,
    },
}

/// Standard base64 with padding, what MCP's `data` members hold.
fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(text.into())
    }

    /// An image block from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An audio block from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An image block from the image's bytes, base64-encoded here:
    /// `Content::image_bytes(&png, "image/png")`.
    pub fn image_bytes(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::image(encode_base64(bytes.as_ref()), mime_type)
    }

    /// An audio block from the audio's bytes, base64-encoded here:
    /// `Content::audio_bytes(&wav, "audio/wav")`.
    pub fn audio_bytes(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::audio(encode_base64(bytes.as_ref()), mime_type)
    }

    /// A resource link.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: Some(text.into()),
            blob: None,
        }
    }

    /// The block as MCP JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

// Blocks and results are written straight to the output (no `Value` tree in between); the
// key order is the one published in the MCP schema.
impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(text) => {
                let mut m = serializer.serialize_map(Some(2))?;
                m.serialize_entry("type", "text")?;
                m.serialize_entry("text", text)?;
                m.end()
            }
            Content::Image { data, mime_type } | Content::Audio { data, mime_type } => {
                let kind = if matches!(self, Content::Image { .. }) {
                    "image"
                } else {
                    "audio"
                };
                let mut m = serializer.serialize_map(Some(3))?;
                m.serialize_entry("type", kind)?;
                m.serialize_entry("data", data)?;
                m.serialize_entry("mimeType", mime_type)?;
                m.end()
            }
            Content::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => {
                let mut m = serializer.serialize_map(None)?;
                m.serialize_entry("type", "resource_link")?;
                m.serialize_entry("uri", uri)?;
                m.serialize_entry("name", name)?;
                if let Some(d) = description {
                    m.serialize_entry("description", d)?;
                }
                if let Some(t) = mime_type {
                    m.serialize_entry("mimeType", t)?;
                }
                m.end()
            }
            Content::Resource { .. } => {
                let mut m = serializer.serialize_map(Some(2))?;
                m.serialize_entry("type", "resource")?;
                m.serialize_entry("resource", &EmbeddedResource(self))?;
                m.end()
            }
        }
    }
}

/// The `resource` member of an embedded resource block.
struct EmbeddedResource<'a>(&'a Content);

impl Serialize for EmbeddedResource<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Content::Resource {
            uri,
            mime_type,
            text,
            blob,
        } = self.0
        else {
            return serializer.serialize_map(Some(0))?.end();
        };
        let mut r = serializer.serialize_map(None)?;
        r.serialize_entry("uri", uri)?;
        for (key, v) in [("mimeType", mime_type), ("text", text), ("blob", blob)] {
            if let Some(v) = v {
                r.serialize_entry(key, v)?;
            }
        }
        r.end()
    }
}

/// The result of `tools/call`: content for the model, optional structured content for programs.
///
/// Derived: the transports write a call's result from the value its tool returned
/// (`tool/output.rs`); this one is what `ToolTable::call`, a task's stored result and a
/// content-returning tool take.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Blocks the model reads.
    pub content: Vec<Content>,
    /// JSON matching the tool's outputSchema, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// True when the tool failed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// `_meta` of the result (an error id for hidden failures, for example).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A failed result (`isError: true`) with one text block.
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(text)],
            is_error: true,
            ..Default::default()
        }
    }

    /// The first text block, if any.
    pub fn first_text(&self) -> Option<&str> {
        self.content.iter().find_map(|c| match c {
            Content::Text(t) => Some(t.as_str()),
            _ => None,
        })
    }

    /// The result as MCP JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The result as MCP JSON, moving the structured content rather than copying it.
    pub fn into_json(self) -> Value {
        let mut m = Map::new();
        m.insert(
            "content".into(),
            serde_json::to_value(&self.content).unwrap_or(Value::Null),
        );
        if let Some(s) = self.structured_content {
            m.insert("structuredContent".into(), s);
        }
        if self.is_error {
            m.insert("isError".into(), Value::Bool(true));
        }
        if let Some(meta) = self.meta {
            m.insert("_meta".into(), Value::Object(meta));
        }
        Value::Object(m)
    }

    /// Parses a result from MCP JSON (used by the client).
    pub fn from_json(value: &Value) -> Option<Self> {
        let obj = value.as_object()?;
        let content = obj
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| blocks.iter().filter_map(content_from_json).collect())
            .unwrap_or_default();
        Some(CallToolResult {
            content,
            structured_content: obj.get("structuredContent").cloned(),
            is_error: obj.get("isError").and_then(Value::as_bool).unwrap_or(false),
            meta: obj.get("_meta").and_then(Value::as_object).cloned(),
        })
    }
}

pub(crate) fn content_from_json(v: &Value) -> Option<Content> {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(match v.get("type")?.as_str()? {
        "text" => Content::Text(s("text")?),
        "image" => Content::Image {
            data: s("data")?,
            mime_type: s("mimeType")?,
        },
        "audio" => Content::Audio {
            data: s("data")?,
            mime_type: s("mimeType")?,
        },
        "resource_link" => Content::ResourceLink {
            uri: s("uri")?,
            name: s("name")?,
            description: s("description"),
            mime_type: s("mimeType"),
        },
        "resource" => {
            let r = v.get("resource")?;
            let rs = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_owned);
            Content::Resource {
                uri: rs("uri")?,
                mime_type: rs("mimeType"),
                text: rs("text"),
                blob: rs("blob"),
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bytes_are_base64_encoded_with_padding() {
        // RFC 4648's test vectors: each length modulo 3.
        for (bytes, data) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
        ] {
            assert_eq!(
                Content::image_bytes(bytes, "image/png"),
                Content::image(data, "image/png")
            );
            assert_eq!(
                Content::audio_bytes(bytes, "audio/wav"),
                Content::audio(data, "audio/wav")
            );
        }
        let png_header = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
        assert_eq!(
            Content::image_bytes(png_header, "image/png").to_json()["data"],
            "iVBORw0KGgo="
        );
    }

    #[test]
    fn blocks_serialize_in_the_published_shape() {
        let cases = [
            (Content::text("hi"), json!({"type": "text", "text": "hi"})),
            (
                Content::image("aGk=", "image/png"),
                json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}),
            ),
            (
                Content::audio("aGk=", "audio/wav"),
                json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}),
            ),
            (
                Content::ResourceLink {
                    uri: "file:///a".into(),
                    name: "a".into(),
                    description: Some("the a".into()),
                    mime_type: None,
                },
                json!({"type": "resource_link", "uri": "file:///a", "name": "a", "description": "the a"}),
            ),
            (
                Content::embedded_text("file:///b", "text/plain", "body"),
                json!({"type": "resource", "resource": {"uri": "file:///b", "mimeType": "text/plain", "text": "body"}}),
            ),
        ];
        for (block, expected) in cases {
            // Key order matters to readers of the raw text: compare the text, not only the value.
            assert_eq!(
                serde_json::to_string(&block).unwrap(),
                serde_json::to_string(&expected).unwrap()
            );
            assert_eq!(content_from_json(&expected), Some(block));
        }
    }

    #[test]
    fn a_result_serializes_as_its_json() {
        let mut meta = Map::new();
        meta.insert("errorId".into(), "err-1".into());
        let r = CallToolResult {
            content: vec![Content::text("a"), Content::text("b")],
            structured_content: Some(json!({"x": [1, 2]})),
            is_error: true,
            meta: Some(meta),
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"structuredContent":{"x":[1,2]},"isError":true,"_meta":{"errorId":"err-1"}}"#
        );
        assert_eq!(serde_json::to_string(&r.clone().into_json()).unwrap(), text);
        assert_eq!(CallToolResult::from_json(&r.to_json()), Some(r));
    }
}
