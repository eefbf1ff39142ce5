//! The request a server sends (`sampling/createMessage` params) and the result the client returns.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    IncludeContext, ModelPreferences, Role, SamplingContent, SamplingMessage, SamplingTool,
    ToolChoice, one_or_many,
};

/// The params of `sampling/createMessage`: what to ask the client's model.
///
/// ```
/// use mcp_runtime::context::{CreateMessageRequest, ModelPreferences};
///
/// let request = CreateMessageRequest::new(300)
///     .system_prompt("Summarize this code for a reviewer")
///     .user("fn main() {}")
///     .temperature(0.2)
///     .model_preferences(ModelPreferences::default().hint("claude").speed_priority(0.8));
/// assert_eq!(request.max_tokens, 300);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequest {
    /// The conversation so far; the model writes the next message.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the model may write (required by the specification).
    pub max_tokens: u32,
    /// The system prompt; the client may change or drop it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Which model the server would like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// Sequences that end the message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Which servers' context to add to the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Tools the model may call (2025-11-25; the client must declare `sampling.tools`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<SamplingTool>,
    /// How the model may use `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Provider-specific metadata passed through to the model's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl CreateMessageRequest {
    /// A request for at most `max_tokens` tokens, with no message yet.
    pub fn new(max_tokens: u32) -> Self {
        CreateMessageRequest {
            messages: Vec::new(),
            max_tokens,
            system_prompt: None,
            temperature: None,
            model_preferences: None,
            stop_sequences: Vec::new(),
            include_context: None,
            tools: Vec::new(),
            tool_choice: None,
            metadata: None,
        }
    }

    /// Adds a text message from the user.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message(SamplingMessage::user(text))
    }

    /// Adds a text message from the assistant.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message(SamplingMessage::assistant(text))
    }

    /// Adds a message (an image, audio, a tool result, several blocks).
    pub fn message(mut self, message: SamplingMessage) -> Self {
        self.messages.push(message);
        self
    }

    /// Adds a stop sequence.
    pub fn stop_sequence(mut self, sequence: impl Into<String>) -> Self {
        self.stop_sequences.push(sequence.into());
        self
    }

    /// Adds a tool the model may call.
    pub fn tool(mut self, tool: SamplingTool) -> Self {
        self.tools.push(tool);
        self
    }

    setters! {
        /// The system prompt.
        pub fn system_prompt(text: impl Into<String>) => system_prompt = Some(text.into());
        /// The sampling temperature.
        pub fn temperature(t: f64) => temperature = Some(t);
        /// Which model the server would like.
        pub fn model_preferences(p: ModelPreferences) => model_preferences = Some(p);
        /// Which servers' context to add.
        pub fn include_context(c: IncludeContext) => include_context = Some(c);
        /// How the model may use the tools.
        pub fn tool_choice(c: ToolChoice) => tool_choice = Some(c);
        /// Metadata for the model's provider.
        pub fn metadata(m: Value) => metadata = Some(m);
    }
}

/// Why the model stopped: one of the standard reasons, or the provider's own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum StopReason {
    /// `"endTurn"`: the model finished its turn.
    EndTurn,
    /// `"stopSequence"`: a stop sequence was met.
    StopSequence,
    /// `"maxTokens"`: `max_tokens` was reached.
    MaxTokens,
    /// `"toolUse"`: the model wants to call tools (its content holds the calls).
    ToolUse,
    /// Any other reason, as sent.
    Other(String),
}

impl From<String> for StopReason {
    fn from(s: String) -> Self {
        match s.as_str() {
            "endTurn" => StopReason::EndTurn,
            "stopSequence" => StopReason::StopSequence,
            "maxTokens" => StopReason::MaxTokens,
            "toolUse" => StopReason::ToolUse,
            _ => StopReason::Other(s),
        }
    }
}

impl From<StopReason> for String {
    fn from(r: StopReason) -> String {
        match r {
            StopReason::EndTurn => "endTurn".into(),
            StopReason::StopSequence => "stopSequence".into(),
            StopReason::MaxTokens => "maxTokens".into(),
            StopReason::ToolUse => "toolUse".into(),
            StopReason::Other(s) => s,
        }
    }
}

/// The model's message: the result of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who wrote it (the assistant).
    pub role: Role,
    /// What it says: one block, or several (tool calls, in 2025-11-25).
    #[serde(with = "one_or_many")]
    pub content: Vec<SamplingContent>,
    /// The model that wrote it.
    pub model: String,
    /// Why the model stopped, when the client says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
}

impl CreateMessageResult {
    /// An assistant message of `content` written by `model`, ended at the end of its turn.
    pub fn new(model: impl Into<String>, content: Vec<SamplingContent>) -> Self {
        CreateMessageResult {
            role: Role::Assistant,
            content,
            model: model.into(),
            stop_reason: Some(StopReason::EndTurn),
        }
    }

    /// An assistant message of one text block, written by `model`.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        CreateMessageResult::new(model, vec![SamplingContent::text(text)])
    }

    setters! {
        /// Why the model stopped (`None`: not said).
        pub fn stop_reason(reason: Option<StopReason>) => stop_reason = reason;
    }

    /// The text blocks of the answer, joined; `None` when it has none.
    pub fn text_content(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(SamplingContent::as_text)
            .collect();
        (!texts.is_empty()).then(|| texts.concat())
    }
}
