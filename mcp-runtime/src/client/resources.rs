//! The client's resource requests: list (every page), list templates, read, subscribe and
//! unsubscribe.

use serde_json::{Value, json};

use super::{Client, ClientError};
use crate::resource::ResourceContents;

impl Client {
    /// Every resource (`resources/list`), following `nextCursor` page by page.
    pub async fn list_resources(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("resources/list", "resources").await
    }

    /// Every resource template (`resources/templates/list`), page by page.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// Reads `uri` (`resources/read`): its contents items, text or decoded blob.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, ClientError> {
        let result = self.request("resources/read", json!({"uri": uri})).await?;
        let items = result.get("contents").and_then(Value::as_array);
        let items = items.ok_or_else(|| invalid(&result, "resources/read without contents"))?;
        items
            .iter()
            .map(|item| {
                ResourceContents::from_json(item)
                    .ok_or_else(|| invalid(item, "not a contents item"))
            })
            .collect()
    }

    /// Asks for `notifications/resources/updated` about `uri` (`resources/subscribe`, 2025 era).
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        self.request("resources/subscribe", json!({"uri": uri}))
            .await
            .map(drop)
    }

    /// Stops them (`resources/unsubscribe`).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        self.request("resources/unsubscribe", json!({"uri": uri}))
            .await
            .map(drop)
    }
}

fn invalid(got: &Value, what: &str) -> ClientError {
    ClientError::InvalidResult(format!("{what}: {got}"))
}
