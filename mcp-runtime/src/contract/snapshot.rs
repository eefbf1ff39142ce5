//! [`Snapshot`]: a server's published contract in normal form, and how one is taken from a
//! connected client or read from a file.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::normalize;
use crate::client::{Client, ClientError};

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// The version of the snapshot format this crate writes and reads.
pub const FORMAT: u32 = 1;

/// Who published a contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ServerId {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`: what [`super::check`] reads as the server's semantic version.
    pub version: String,
    /// The protocol version the snapshot was taken in.
    pub protocol_version: String,
}

/// A server's published contract: its tools, resources, resource templates and prompts, each in
/// normal form (keys sorted, default-equivalent forms removed) and sorted by name (resources by
/// URI), so that the same contract always serializes to the same bytes.
///
/// ```json
/// {"format": 1, "server": {"name": "shop", "version": "1.0.0", "protocolVersion": "2025-11-25"},
///  "tools": [...], "resources": [...], "resourceTemplates": [...], "prompts": [...]}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// [`FORMAT`].
    pub format: u32,
    /// Who published it.
    pub server: ServerId,
    /// Each tool: name, title, description, inputSchema, outputSchema, annotations, execution.
    #[serde(default)]
    pub tools: Vec<Value>,
    /// Each resource: uri, name, title, description, mimeType.
    #[serde(default)]
    pub resources: Vec<Value>,
    /// Each resource template: uriTemplate, name, title, description, mimeType.
    #[serde(default)]
    pub resource_templates: Vec<Value>,
    /// Each prompt: name, title, description, arguments.
    #[serde(default)]
    pub prompts: Vec<Value>,
}

impl Snapshot {
    /// A snapshot of the lists as a server sends them (`tools/list`'s `tools`, …), normalized.
    pub fn from_lists(
        server: ServerId,
        tools: &[Value],
        resources: &[Value],
        resource_templates: &[Value],
        prompts: &[Value],
    ) -> Snapshot {
        Snapshot {
            format: FORMAT,
            server,
            tools: entries(tools, normalize::tool, "name"),
            resources: entries(resources, normalize::resource, "uri"),
            resource_templates: entries(resource_templates, normalize::template, "name"),
            prompts: entries(prompts, normalize::prompt, "name"),
        }
        .normalized()
    }

    /// The same snapshot with every entry brought to normal form again (what [`Snapshot::read`]
    /// applies to a file written by hand or by an older version).
    pub fn normalized(mut self) -> Snapshot {
        self.tools = entries(&self.tools, normalize::tool, "name");
        self.resources = entries(&self.resources, normalize::resource, "uri");
        self.resource_templates = entries(&self.resource_templates, normalize::template, "name");
        self.prompts = entries(&self.prompts, normalize::prompt, "name");
        self
    }

    /// The contract of the server `client` is connected to: every page of `tools/list`, and of
    /// `resources/list`, `resources/templates/list` and `prompts/list` when the server declares
    /// the capability (a templates list the server does not implement is empty).
    pub async fn from_client(client: &Client) -> Result<Snapshot, ClientError> {
        let session = client.session();
        let declares = |name: &str| {
            session
                .and_then(|s| s.capabilities.get(name))
                .is_some_and(|c| !c.is_null())
        };
        let tools = if declares("tools") {
            client.list_tools().await?
        } else {
            Vec::new()
        };
        let (resources, templates) = if declares("resources") {
            // A server with resources but no templates may not implement their list.
            let templates = match client.list_resource_templates().await {
                Err(e) if e.protocol().is_some_and(|p| p.code == METHOD_NOT_FOUND) => Vec::new(),
                other => other?,
            };
            (client.list_resources().await?, templates)
        } else {
            (Vec::new(), Vec::new())
        };
        let prompts = if declares("prompts") {
            client.list_prompts().await?
        } else {
            Vec::new()
        };
        let info = client.server_info();
        let server = ServerId {
            name: info.map(|i| i.name.clone()).unwrap_or_default(),
            version: info.map(|i| i.version.clone()).unwrap_or_default(),
            protocol_version: client.protocol_version().unwrap_or_default().to_owned(),
        };
        Ok(Snapshot::from_lists(
            server, &tools, &resources, &templates, &prompts,
        ))
    }

    /// Reads a snapshot, or a raw `tools/list` result (`{"tools": [...]}`, which has no server
    /// and no `format`), from JSON text.
    pub fn read(text: &str) -> Result<Snapshot, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        Snapshot::from_json(value)
    }

    /// [`Snapshot::read`] from a parsed value. A snapshot is read by its derive; this only tells
    /// it from a raw `tools/list` result, which no derive reads as a snapshot.
    pub fn from_json(value: Value) -> Result<Snapshot, String> {
        match value.get("format") {
            Some(format) if format.as_u64() == Some(u64::from(FORMAT)) => {
                let snapshot: Snapshot = serde_json::from_value(value)
                    .map_err(|e| format!("not a contract snapshot: {e}"))?;
                Ok(snapshot.normalized())
            }
            Some(other) => Err(format!(
                "snapshot format {other} is not supported (this version reads format {FORMAT})"
            )),
            None => {
                let list = |key: &str| -> Result<Vec<Value>, String> {
                    match value.get(key) {
                        None => Ok(Vec::new()),
                        Some(Value::Array(a)) => Ok(a.clone()),
                        Some(_) => Err(format!("`{key}` is not an array")),
                    }
                };
                if value.get("tools").is_none() {
                    return Err(
                        "neither a contract snapshot (no `format`) nor a tools/list result (no `tools`)"
                            .into(),
                    );
                }
                Ok(Snapshot::from_lists(
                    ServerId::default(),
                    &list("tools")?,
                    &list("resources")?,
                    &list("resourceTemplates")?,
                    &list("prompts")?,
                ))
            }
        }
    }

    /// The snapshot as the text of its file: pretty JSON, a final newline.
    pub fn to_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a snapshot serializes") + "\n"
    }
}

fn entries(list: &[Value], normal: fn(&Value) -> Value, key: &str) -> Vec<Value> {
    let mut out: Vec<Value> = list.iter().map(normal).collect();
    out.sort_by(|a, b| normalize::key_of(a, key).cmp(normalize::key_of(b, key)));
    out
}
