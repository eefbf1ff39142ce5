//! The change notifications a server sends on its own (list changes, resource updates) and, for
//! the 2026-07-28 era, the `subscriptions/listen` stream that carries them: the filter a client
//! opts in with, the acknowledgement, the `subscriptionId` every message of the stream carries,
//! and the result that closes it gracefully.
//!
//! Section names below are those of the 2026-07-28 specification, `basic/patterns/subscriptions`
//! unless another page is named; types are those of its `schema.ts`.

use serde_json::{Map, Value};

use super::{Params, RequestId, message};
use crate::error::ProtocolError;

/// The method that opens a listen stream.
pub const LISTEN: &str = "subscriptions/listen";
/// The notification that opens every listen stream.
pub const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// `_meta` key: the listen stream a message belongs to; its value is the id of the
/// `subscriptions/listen` request (`NotificationMetaObject`, `SubscriptionsListenResultMetaObject`).
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// Which change notifications a listen asks for, or a server agreed to send (`SubscriptionFilter`).
///
/// "All fields are optional. Omitting a field is equivalent to not subscribing to that
/// notification type." (Notification Filter)
///
/// Serialized as sent: what is not asked for is left out ("Notification types the server does
/// not support are omitted", Acknowledgment).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `toolsListChanged`: `notifications/tools/list_changed`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tools_list_changed: bool,
    /// `promptsListChanged`: `notifications/prompts/list_changed`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prompts_list_changed: bool,
    /// `resourcesListChanged`: `notifications/resources/list_changed`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub resources_list_changed: bool,
    /// `resourceSubscriptions`: `notifications/resources/updated` for these URIs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
}

impl SubscriptionFilter {
    /// A filter asking for `notifications/resources/updated` about `uris`.
    pub fn resources<I: IntoIterator<Item = S>, S: Into<String>>(uris: I) -> Self {
        SubscriptionFilter {
            resource_subscriptions: uris.into_iter().map(Into::into).collect(),
            ..SubscriptionFilter::default()
        }
    }

    /// This filter, asking for `notifications/resources/list_changed` too.
    pub fn with_resources_list_changed(mut self) -> Self {
        self.resources_list_changed = true;
        self
    }

    /// This filter, asking for `notifications/tools/list_changed` too.
    pub fn with_tools_list_changed(mut self) -> Self {
        self.tools_list_changed = true;
        self
    }

    /// This filter, asking for `notifications/prompts/list_changed` too.
    pub fn with_prompts_list_changed(mut self) -> Self {
        self.prompts_list_changed = true;
        self
    }

    /// Reads the `notifications` member of a `subscriptions/listen` request's params, which
    /// `SubscriptionsListenRequestParams` requires. A flag that is not a boolean, or
    /// `resourceSubscriptions` that is not an array of strings, is -32602; a URI given twice
    /// counts once; members of later revisions are ignored.
    pub fn from_params(params: Option<&Params>) -> Result<Self, ProtocolError> {
        let Some(Value::Object(filter)) = params.and_then(|p| p.get("notifications")) else {
            return Err(ProtocolError::invalid_params(
                "Invalid params: `subscriptions/listen` needs an object `notifications` (the \
                 notification types it opts in to)",
            ));
        };
        let flag = |key: &str| match filter.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ProtocolError::invalid_params(format!(
                "Invalid params: `notifications.{key}` must be a boolean"
            ))),
        };
        let mut uris: Vec<String> = Vec::new();
        match filter.get("resourceSubscriptions") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    let Value::String(uri) = item else {
                        return Err(ProtocolError::invalid_params(
                            "Invalid params: `notifications.resourceSubscriptions` must be an \
                             array of URI strings",
                        ));
                    };
                    if !uris.contains(uri) {
                        uris.push(uri.clone());
                    }
                }
            }
            Some(_) => {
                return Err(ProtocolError::invalid_params(
                    "Invalid params: `notifications.resourceSubscriptions` must be an array of \
                     URI strings",
                ));
            }
        }
        Ok(SubscriptionFilter {
            tools_list_changed: flag("toolsListChanged")?,
            prompts_list_changed: flag("promptsListChanged")?,
            resources_list_changed: flag("resourcesListChanged")?,
            resource_subscriptions: uris,
        })
    }

    /// Reads a filter as a peer sent it, leniently (what is not understood is left out).
    ///
    /// Hand-written, not derived: a derive would refuse the whole filter for one member of
    /// the wrong type, where this reads that member as not asked for.
    pub fn from_json(value: &Value) -> Self {
        let flag = |key: &str| value.get(key).and_then(Value::as_bool).unwrap_or(false);
        let uris = value.get("resourceSubscriptions").and_then(Value::as_array);
        SubscriptionFilter {
            tools_list_changed: flag("toolsListChanged"),
            prompts_list_changed: flag("promptsListChanged"),
            resources_list_changed: flag("resourcesListChanged"),
            resource_subscriptions: uris
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        }
    }

    /// The filter as sent (its `Serialize`, as a `Value`).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a `SubscriptionFilter` serializes")
    }

    /// True when this filter asks for `change`.
    pub fn wants(&self, change: &Change) -> bool {
        match change {
            Change::ToolsListChanged => self.tools_list_changed,
            Change::PromptsListChanged => self.prompts_list_changed,
            Change::ResourcesListChanged => self.resources_list_changed,
            Change::ResourceUpdated(uri) => self.resource_subscriptions.iter().any(|u| u == uri),
        }
    }
}

/// One change notification a server sends on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// `notifications/tools/list_changed`
    ToolsListChanged,
    /// `notifications/prompts/list_changed`
    PromptsListChanged,
    /// `notifications/resources/list_changed`
    ResourcesListChanged,
    /// `notifications/resources/updated` about this URI.
    ResourceUpdated(String),
}

impl Change {
    /// The notification's method.
    pub fn method(&self) -> &'static str {
        match self {
            Change::ToolsListChanged => "notifications/tools/list_changed",
            Change::PromptsListChanged => "notifications/prompts/list_changed",
            Change::ResourcesListChanged => "notifications/resources/list_changed",
            Change::ResourceUpdated(_) => "notifications/resources/updated",
        }
    }

    /// The change a notification tells of, from its method and its params' `uri`; `None` for
    /// any other notification.
    pub fn from_notification(method: &str, uri: Option<&Value>) -> Option<Self> {
        Some(match method {
            "notifications/tools/list_changed" => Change::ToolsListChanged,
            "notifications/prompts/list_changed" => Change::PromptsListChanged,
            "notifications/resources/list_changed" => Change::ResourcesListChanged,
            "notifications/resources/updated" => Change::ResourceUpdated(uri?.as_str()?.to_owned()),
            _ => return None,
        })
    }

    /// The notification; on a listen stream it carries the stream's id in `_meta` ("All
    /// notifications delivered on the stream carry `io.modelcontextprotocol/subscriptionId`",
    /// Receiving Notifications).
    pub fn notification(&self, subscription: Option<&RequestId>) -> Value {
        let mut params = Map::new();
        if let Some(id) = subscription {
            params.insert("_meta".into(), subscription_meta(id));
        }
        if let Change::ResourceUpdated(uri) = self {
            params.insert("uri".into(), Value::String(uri.clone()));
        }
        if params.is_empty() {
            return message([("method", self.method().into())]);
        }
        message([
            ("method", self.method().into()),
            ("params", Value::Object(params)),
        ])
    }
}

/// `notifications/subscriptions/acknowledged` for the listen `id`, with the filter the server
/// agreed to honor (Acknowledgment).
pub fn acknowledged(id: &RequestId, granted: &SubscriptionFilter) -> Value {
    let mut params = Map::new();
    params.insert("_meta".into(), subscription_meta(id));
    params.insert("notifications".into(), granted.to_json());
    message([
        ("method", ACKNOWLEDGED.into()),
        ("params", Value::Object(params)),
    ])
}

/// The result that ends the listen `id` gracefully, before the stateless stamp
/// (`SubscriptionsListenResult`; Graceful Closure).
pub fn closed_result(id: &RequestId) -> Value {
    let mut result = Map::new();
    result.insert("_meta".into(), subscription_meta(id));
    Value::Object(result)
}

/// The subscription id of a message of a listen stream (its `params._meta` or, for the closing
/// result, `result._meta`).
pub fn subscription_id(params: Option<&Value>) -> Option<RequestId> {
    RequestId::from_json(params?.get("_meta")?.get(SUBSCRIPTION_ID_KEY)?)
}

fn subscription_meta(id: &RequestId) -> Value {
    let mut meta = Map::new();
    meta.insert(SUBSCRIPTION_ID_KEY.into(), id.to_json());
    Value::Object(meta)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn filter(notifications: Value) -> Result<SubscriptionFilter, i64> {
        let params = json!({ "notifications": notifications });
        let params = serde_json::from_value(params).unwrap();
        SubscriptionFilter::from_params(Some(&params)).map_err(|e| e.code)
    }

    #[test]
    fn the_filter_reads_strictly_and_writes_only_what_is_on() {
        let f = filter(json!({
            "toolsListChanged": true,
            "resourcesListChanged": false,
            "resourceSubscriptions": ["a://1", "a://2", "a://1"],
            "someLaterKind": true
        }))
        .unwrap();
        assert_eq!(
            f,
            SubscriptionFilter {
                tools_list_changed: true,
                resource_subscriptions: vec!["a://1".into(), "a://2".into()],
                ..SubscriptionFilter::default()
            }
        );
        assert_eq!(
            f.to_json(),
            json!({"toolsListChanged": true, "resourceSubscriptions": ["a://1", "a://2"]})
        );
        assert_eq!(SubscriptionFilter::from_json(&f.to_json()), f);
        let all = SubscriptionFilter::resources(["a://1"])
            .with_tools_list_changed()
            .with_prompts_list_changed()
            .with_resources_list_changed();
        assert_eq!(
            all.to_json().to_string(),
            r#"{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["a://1"]}"#
        );
        assert_eq!(filter(json!({})).unwrap().to_json(), json!({}));
        for bad in [
            json!({"toolsListChanged": "yes"}),
            json!({"resourceSubscriptions": "a://1"}),
            json!({"resourceSubscriptions": [1]}),
            json!([]),
        ] {
            assert_eq!(filter(bad.clone()), Err(-32602), "{bad}");
        }
        assert_eq!(
            SubscriptionFilter::from_params(Some(&Params::default())).map_err(|e| e.code),
            Err(-32602)
        );
    }

    #[test]
    fn changes_are_tagged_only_on_a_listen_stream() {
        let id = RequestId::from(7);
        let updated = Change::ResourceUpdated("a://1".into());
        assert_eq!(
            updated.notification(None),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "a://1"}})
        );
        assert_eq!(
            updated.notification(Some(&id)),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                   "params": {"_meta": {SUBSCRIPTION_ID_KEY: 7}, "uri": "a://1"}})
        );
        assert_eq!(
            Change::ResourcesListChanged.notification(None),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
        );
        let tagged = Change::ToolsListChanged.notification(Some(&id));
        assert_eq!(subscription_id(tagged.get("params")), Some(id.clone()));
        let method = tagged["method"].as_str().unwrap();
        assert_eq!(
            Change::from_notification(method, tagged["params"].get("uri")),
            Some(Change::ToolsListChanged)
        );
        let ack = acknowledged(&id, &SubscriptionFilter::resources(["a://1"]));
        assert_eq!(
            ack,
            json!({"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": {
                "_meta": {SUBSCRIPTION_ID_KEY: 7},
                "notifications": {"resourceSubscriptions": ["a://1"]}}})
        );
        assert_eq!(
            closed_result(&RequestId::String("listen-1".into())),
            json!({"_meta": {SUBSCRIPTION_ID_KEY: "listen-1"}})
        );
    }
}
