//! Sampling: a tool asks the client's model for a message (`sampling/createMessage`), typed.
//!
//! [`CreateMessageRequest`] is what the server asks: messages, a system prompt, `maxTokens` (the
//! one number the specification requires), model preferences, stop sequences and, since
//! 2025-11-25, tools the model may call. [`CreateMessageResult`] is the model's answer. Both are
//! the wire shapes (serde, camelCase), so the in-process client's handler receives and returns the
//! same types ([`crate::ClientBuilder::on_sampling`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Context;
use super::ask::{AskError, Question};
pub use crate::protocol::Role;

/// One content block of a sampling message or of the model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum SamplingContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The base64 data.
        data: String,
        /// Its MIME type (`image/png`).
        mime_type: String,
    },
    /// An audio clip, base64-encoded.
    Audio {
        /// The base64 data.
        data: String,
        /// Its MIME type (`audio/wav`).
        mime_type: String,
    },
    /// The model asks to call a tool (2025-11-25, with `tools` in the request).
    ToolUse {
        /// The call's identifier, which its [`SamplingContent::ToolResult`] names.
        id: String,
        /// The tool's name.
        name: String,
        /// The tool's arguments.
        input: Map<String, Value>,
    },
    /// The result of a tool the model called, sent back in a user message (2025-11-25).
    ToolResult {
        /// The [`SamplingContent::ToolUse`] this answers.
        tool_use_id: String,
        /// The result's content blocks, as a `tools/call` result's `content`.
        content: Vec<Value>,
        /// The result's structured content.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        structured_content: Option<Value>,
        /// Whether the tool failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
    },
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Text { text: text.into() }
    }

    /// An image block from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        SamplingContent::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An audio block from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        SamplingContent::Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// A tool call the model asks for.
    pub fn tool_use(
        id: impl Into<String>,
        name: impl Into<String>,
        input: Map<String, Value>,
    ) -> Self {
        SamplingContent::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
        }
    }

    /// The result of the tool call `tool_use_id`, as content blocks.
    pub fn tool_result(tool_use_id: impl Into<String>, content: Vec<Value>) -> Self {
        SamplingContent::ToolResult {
            tool_use_id: tool_use_id.into(),
            content,
            structured_content: None,
            is_error: None,
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// A message's content: one block on the wire when there is one (as every version writes it),
/// an array when there are several (2025-11-25).
mod one_or_many {
    use super::SamplingContent;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(
        blocks: &[SamplingContent],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match blocks {
            [one] => one.serialize(s),
            many => many.serialize(s),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<SamplingContent>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum OneOrMany {
            One(SamplingContent),
            Many(Vec<SamplingContent>),
        }
        Ok(match OneOrMany::deserialize(d)? {
            OneOrMany::One(one) => vec![one],
            OneOrMany::Many(many) => many,
        })
    }
}

/// One message of the conversation the model continues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What it says.
    #[serde(with = "one_or_many")]
    pub content: Vec<SamplingContent>,
}

impl SamplingMessage {
    /// A message of `role` made of `content`.
    pub fn new(role: Role, content: Vec<SamplingContent>) -> Self {
        SamplingMessage { role, content }
    }

    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::User, vec![SamplingContent::text(text)])
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::Assistant, vec![SamplingContent::text(text)])
    }
}

/// A hint for the client's choice of model: a name, or part of one (`"claude"`, `"sonnet"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelHint {
    /// The model name or a substring of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The server's preferences for the model the client picks; advisory. Priorities are 0 to 1.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names to prefer, the first match first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<ModelHint>,
    /// How much a cheap model matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much a fast model matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much a capable model matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

impl ModelPreferences {
    /// Adds a model-name hint.
    pub fn hint(mut self, name: impl Into<String>) -> Self {
        self.hints.push(ModelHint {
            name: Some(name.into()),
        });
        self
    }

    setters! {
        /// How much a cheap model matters, 0 to 1.
        pub fn cost_priority(p: f64) => cost_priority = Some(p);
        /// How much a fast model matters, 0 to 1.
        pub fn speed_priority(p: f64) => speed_priority = Some(p);
        /// How much a capable model matters, 0 to 1.
        pub fn intelligence_priority(p: f64) => intelligence_priority = Some(p);
    }
}

/// Which servers' context the client should add to the prompt (soft-deprecated beyond `none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum IncludeContext {
    /// No context.
    None,
    /// This server's context.
    ThisServer,
    /// Every connected server's context.
    AllServers,
}

/// A tool the model may call while sampling (2025-11-25): a tool's name and schemas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingTool {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: Value,
}

impl SamplingTool {
    /// A tool named `name` taking arguments of `input_schema`.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        SamplingTool {
            name: name.into(),
            description: None,
            input_schema,
        }
    }

    setters! {
        /// What the tool does, for the model.
        pub fn description(text: impl Into<String>) => description = Some(text.into());
    }
}

/// How the model may use the request's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    Auto,
    /// The model must call a tool.
    Required,
    /// The model must not call a tool.
    None,
}

/// `toolChoice` of a sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolChoice {
    /// The mode; absent means `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

impl ToolChoice {
    /// A choice of this mode.
    pub fn mode(mode: ToolChoiceMode) -> Self {
        ToolChoice { mode: Some(mode) }
    }
}

mod request;
pub use request::{CreateMessageRequest, CreateMessageResult, StopReason};

impl Context {
    /// Asks the client's model for a message (`sampling/createMessage`) and returns its answer.
    ///
    /// The era decides how, as for [`Context::elicit`]: a request to the client in the handshake
    /// era, through the task's input flow in a task, and in the stateless era an
    /// `input_required` result the client answers by calling the tool again (the tool then runs
    /// from the start: ask before changing anything).
    ///
    /// Fails with [`AskError::Unsupported`] when the client did not declare `sampling`, or
    /// `sampling.tools` for a request with tools or a tool choice.
    pub async fn sample(
        &self,
        request: CreateMessageRequest,
    ) -> Result<CreateMessageResult, AskError> {
        let caps = self.client_capabilities();
        if self.scope().is_none() {
            return Err(AskError::NotConnected);
        }
        if !caps.sampling() {
            return Err(AskError::Unsupported("sampling"));
        }
        if (!request.tools.is_empty() || request.tool_choice.is_some()) && !caps.sampling_tools() {
            return Err(AskError::Unsupported("sampling.tools"));
        }
        let params = serde_json::to_value(&request)
            .map_err(|e| AskError::InvalidResponse(format!("the request does not encode: {e}")))?;
        let answer = self
            .ask(Question::Sample, params)
            .await
            .map_err(AskError::from_request)?;
        serde_json::from_value(answer).map_err(|e| {
            AskError::InvalidResponse(format!("not a sampling/createMessage result: {e}"))
        })
    }
}
