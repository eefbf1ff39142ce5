//! `completion/complete`: a prompt argument's or a template variable's `complete = fn`, or the
//! fixed values of its type, capped at 100 values with `total` and `hasMore`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Server;
use crate::error::ProtocolError;
use crate::prompt::CompleteRequest;
use crate::protocol::Request;

impl Server {
    pub(super) async fn complete(&self, req: &Request) -> Result<Value, ProtocolError> {
        let params = req.params.as_ref();
        let invalid = |what: &str| {
            ProtocolError::invalid_params(format!("Invalid params: completion/complete {what}"))
        };
        let reference = params
            .and_then(|p| p.get("ref"))
            .ok_or_else(|| invalid("needs a `ref`"))?;
        let argument = params
            .and_then(|p| p.get("argument"))
            .ok_or_else(|| invalid("needs an `argument`"))?;
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let (Some(arg_name), Some(value)) = (text(argument, "name"), text(argument, "value"))
        else {
            return Err(invalid(
                "needs `argument.name` and `argument.value` strings",
            ));
        };
        let arguments: BTreeMap<String, String> = params
            .and_then(|p| p.get("context")?.get("arguments"))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = text(reference, "name").ok_or_else(|| invalid("needs `ref.name`"))?;
                let prompt = self.inner.prompts.get(&name).ok_or_else(|| {
                    ProtocolError::invalid_params(format!("Unknown prompt: {name}"))
                })?;
                let request = CompleteRequest {
                    argument: arg_name,
                    value,
                    arguments,
                    state: self.inner.state.clone(),
                };
                prompt.complete(request).await
            }
            Some("ref/resource") => {
                let uri = text(reference, "uri").ok_or_else(|| invalid("needs `ref.uri`"))?;
                self.check_uri_len(&uri, "`ref.uri`")?;
                let request = CompleteRequest {
                    argument: arg_name,
                    value,
                    arguments,
                    state: self.inner.state.clone(),
                };
                self.inner.resources.complete(&uri, request).await
            }
            _ => Err(invalid(
                "`ref.type` must be \"ref/prompt\" or \"ref/resource\"",
            )),
        }
    }
}
