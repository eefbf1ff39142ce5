//! The client's side of prompts and completion: `prompts/list`, `prompts/get` (answering an
//! `input_required` result as `tools/call` does) and `completion/complete`.

use serde_json::{Map, Value, json};

use super::{Client, ClientError};
use crate::prompt::GetPromptResult;

/// A `completion/complete` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The values, at most 100.
    pub values: Vec<String>,
    /// How many values there are in all, when the server says.
    pub total: Option<u64>,
    /// Whether there are more values than those sent.
    pub has_more: bool,
}

impl Client {
    /// Every prompt, following `nextCursor` page by page.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// Gets a prompt with its arguments (`(name, value)` pairs; prompt arguments are strings).
    pub async fn get_prompt<'a>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<GetPromptResult, ClientError> {
        let raw = self.get_prompt_raw(name, arguments).await?;
        GetPromptResult::from_json(&raw)
            .ok_or_else(|| ClientError::InvalidResult(format!("not a prompt result: {raw}")))
    }

    /// [`Client::get_prompt`], returning the result object as sent.
    pub async fn get_prompt_raw<'a>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Value, ClientError> {
        let params = json!({"name": name, "arguments": strings(arguments)});
        self.request_with_input("prompts/get", params).await
    }

    /// Completes the argument `argument` of the prompt `prompt` from what was typed (`value`),
    /// with the arguments already given.
    pub async fn complete<'a>(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
        given: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Completion, ClientError> {
        let reference = json!({"type": "ref/prompt", "name": prompt});
        self.complete_ref(reference, argument, value, strings(given))
            .await
    }

    /// Completes the variable `variable` of the resource template `uri_template` (as published,
    /// `notes://{title}`) from what was typed (`value`), with the variables already given.
    pub async fn complete_resource<'a>(
        &self,
        uri_template: &str,
        variable: &str,
        value: &str,
        given: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Completion, ClientError> {
        let reference = json!({"type": "ref/resource", "uri": uri_template});
        self.complete_ref(reference, variable, value, strings(given))
            .await
    }

    async fn complete_ref(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        given: Map<String, Value>,
    ) -> Result<Completion, ClientError> {
        let params = json!({
            "ref": reference,
            "argument": {"name": argument, "value": value},
            "context": {"arguments": given},
        });
        let raw = self.request("completion/complete", params).await?;
        let c = raw.get("completion");
        let values = c
            .and_then(|c| c.get("values"))
            .and_then(Value::as_array)
            .and_then(|v| {
                v.iter()
                    .map(|s| s.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| ClientError::InvalidResult(format!("not a completion: {raw}")))?;
        Ok(Completion {
            values,
            total: c.and_then(|c| c.get("total")).and_then(Value::as_u64),
            has_more: c
                .and_then(|c| c.get("hasMore"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// `(name, value)` pairs as the object of strings prompt arguments are on the wire.
fn strings<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.into()))
        .collect()
}
