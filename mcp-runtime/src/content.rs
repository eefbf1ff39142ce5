//! What a tool call returns on the wire: content blocks and the call result.

use serde_json::{Map, Value, json};

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
        match self {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            Content::Audio { data, mime_type } => {
                json!({"type": "audio", "data": data, "mimeType": mime_type})
            }
            Content::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => {
                let mut m = Map::new();
                m.insert("type".into(), "resource_link".into());
                m.insert("uri".into(), uri.clone().into());
                m.insert("name".into(), name.clone().into());
                if let Some(d) = description {
                    m.insert("description".into(), d.clone().into());
                }
                if let Some(t) = mime_type {
                    m.insert("mimeType".into(), t.clone().into());
                }
                Value::Object(m)
            }
            Content::Resource {
                uri,
                mime_type,
                text,
                blob,
            } => {
                let mut r = Map::new();
                r.insert("uri".into(), uri.clone().into());
                if let Some(t) = mime_type {
                    r.insert("mimeType".into(), t.clone().into());
                }
                if let Some(t) = text {
                    r.insert("text".into(), t.clone().into());
                }
                if let Some(b) = blob {
                    r.insert("blob".into(), b.clone().into());
                }
                json!({"type": "resource", "resource": Value::Object(r)})
            }
        }
    }
}

/// The result of `tools/call`: content for the model, optional structured content for programs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallToolResult {
    /// Blocks the model reads.
    pub content: Vec<Content>,
    /// JSON matching the tool's outputSchema, when it has one.
    pub structured_content: Option<Value>,
    /// True when the tool failed.
    pub is_error: bool,
    /// `_meta` of the result (an error id for hidden failures, for example).
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
        self.clone().into_json()
    }

    /// The result as MCP JSON, moving the structured content rather than copying it.
    pub fn into_json(self) -> Value {
        let mut m = Map::new();
        m.insert(
            "content".into(),
            Value::Array(self.content.iter().map(Content::to_json).collect()),
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

fn content_from_json(v: &Value) -> Option<Content> {
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
