//! The handshake era (2025-03-26, 2025-06-18, 2025-11-25): `initialize` negotiates a version and
//! exchanges capabilities once per connection; later requests carry no envelope.

use serde_json::{Map, Value, json};

use super::{
    ClientCapabilities, HANDSHAKE_VERSIONS, Implementation, LATEST_HANDSHAKE_VERSION, Params,
};
use crate::error::ProtocolError;

/// What a client said in `initialize`.
#[derive(Debug, Clone)]
pub struct InitializeParams {
    /// The version the client asked for.
    pub requested_version: String,
    /// `clientInfo`
    pub client_info: Option<Implementation>,
    /// `capabilities`
    pub capabilities: ClientCapabilities,
}

impl InitializeParams {
    /// Reads `initialize` params; a missing `protocolVersion` is -32602.
    pub fn parse(params: Option<&Params>) -> Result<Self, ProtocolError> {
        let params = params.ok_or_else(|| {
            ProtocolError::invalid_params("initialize requires params with `protocolVersion`")
        })?;
        let requested_version = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ProtocolError::invalid_params("initialize requires a string `protocolVersion`")
            })?
            .to_owned();
        Ok(InitializeParams {
            requested_version,
            client_info: params.get("clientInfo").and_then(Implementation::from_json),
            capabilities: ClientCapabilities(
                params
                    .get("capabilities")
                    .filter(|c| c.is_object())
                    .cloned()
                    .unwrap_or_else(|| json!({})),
            ),
        })
    }

    /// The version to answer: the client's when we speak it, else our latest handshake version.
    pub fn negotiated_version(&self) -> &'static str {
        HANDSHAKE_VERSIONS
            .iter()
            .find(|v| **v == self.requested_version)
            .copied()
            .unwrap_or(LATEST_HANDSHAKE_VERSION)
    }
}

/// The `initialize` result.
pub fn initialize_result(
    version: &str,
    capabilities: &Value,
    server_info: &Implementation,
    instructions: Option<&str>,
) -> Value {
    let mut m = Map::new();
    m.insert("protocolVersion".into(), version.into());
    m.insert("capabilities".into(), capabilities.clone());
    m.insert("serverInfo".into(), server_info.to_json());
    if let Some(i) = instructions {
        m.insert("instructions".into(), i.into());
    }
    Value::Object(m)
}
