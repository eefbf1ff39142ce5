//! What `prompts/get` returns: messages (a role and one content block each) and what a
//! `#[prompt]` body may return to make them.

use serde::Serialize;
use serde_json::Value;

use crate::error::visible::{ErrConv, PlainConv};
use crate::error::{IntoToolError, ToolError};
use crate::tool::content::{Content, content_from_json};

pub use crate::protocol::Role;

/// One message of a prompt: a role and a content block (text, image, audio, a resource link or
/// an embedded resource).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessage {
    /// Who the message is from.
    pub role: Role,
    /// What it says.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user: `PromptMessage::user("Summarize this")`, or any [`Content`]
    /// (`PromptMessage::user(Content::image_bytes(&png, "image/png"))`).
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: content.into(),
        }
    }

    /// The message as MCP JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads a message from MCP JSON; `None` when it is not one.
    ///
    /// Hand-written, not derived: [`Content`] is read by `content_from_json`, not by a
    /// `Deserialize` of its own.
    pub fn from_json(v: &Value) -> Option<Self> {
        let role = match v.get("role")?.as_str()? {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            _ => return None,
        };
        Some(PromptMessage {
            role,
            content: content_from_json(v.get("content")?)?,
        })
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

/// The result of `prompts/get`: the messages, and a description of this rendering when the
/// prompt gives one (else the prompt's own description is sent).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct GetPromptResult {
    /// A description of the prompt as rendered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

impl GetPromptResult {
    /// The messages, described.
    pub fn new(description: impl Into<String>, messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            description: Some(description.into()),
            messages,
        }
    }

    /// The result as MCP JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads a result from MCP JSON; `None` when it is not one (hand-written, as
    /// [`PromptMessage::from_json`] is).
    pub fn from_json(v: &Value) -> Option<Self> {
        let messages = v.get("messages")?.as_array()?;
        Some(GetPromptResult {
            description: v
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            messages: messages
                .iter()
                .map(PromptMessage::from_json)
                .collect::<Option<_>>()?,
        })
    }
}

/// What becomes the messages of a prompt: a `String` (one user message), a [`PromptMessage`], a
/// `Vec<PromptMessage>`, or a whole [`GetPromptResult`].
pub trait IntoPromptMessages {
    /// The rendered prompt.
    fn into_prompt_result(self) -> GetPromptResult;
}

impl IntoPromptMessages for String {
    fn into_prompt_result(self) -> GetPromptResult {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptMessages for PromptMessage {
    fn into_prompt_result(self) -> GetPromptResult {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptMessages for Vec<PromptMessage> {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult {
            description: None,
            messages: self,
        }
    }
}

impl IntoPromptMessages for GetPromptResult {
    fn into_prompt_result(self) -> GetPromptResult {
        self
    }
}

/// What a `#[prompt]` function may return: a type that becomes messages, or a `Result` of one
/// whose error becomes a [`ToolError`]. `M` tells the two apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot become the messages of a prompt",
    label = "a prompt returns `String`, `PromptMessage`, `Vec<PromptMessage>` or `GetPromptResult`",
    note = "build the messages with `PromptMessage::user(...)` and `PromptMessage::assistant(...)`; a `Result<T, E>` of one of these types works too"
)]
pub trait PromptReturn<M, C = PlainConv<M>> {
    /// The rendered prompt, or the body's error as `C` converts it.
    fn into_prompt(self) -> Result<GetPromptResult, ToolError>;
}

/// Marks a return type that is messages itself.
pub struct Plain;
/// Marks a `Result` return type (`M` is its error's conversion).
pub struct Fallible<M>(std::marker::PhantomData<M>);

impl<T: IntoPromptMessages, C: ErrConv<ToolError>> PromptReturn<Plain, C> for T {
    fn into_prompt(self) -> Result<GetPromptResult, ToolError> {
        Ok(self.into_prompt_result())
    }
}

impl<T: IntoPromptMessages, E: IntoToolError<M>, M, C: ErrConv<E>> PromptReturn<Fallible<M>, C>
    for Result<T, E>
{
    fn into_prompt(self) -> Result<GetPromptResult, ToolError> {
        self.map(IntoPromptMessages::into_prompt_result)
            .map_err(C::convert)
    }
}

/// The operations on a prompt's return type, as the generated handler calls them.
pub struct PromptRetFns<R> {
    /// Converts the returned value.
    pub convert: fn(R) -> Result<GetPromptResult, ToolError>,
}

/// The operations on `R`; the bound is the return contract, reported at the return type.
/// `C` converts the body's error as a tool's is: a [`VisibleError`](crate::VisibleError) shown,
/// any other type hidden.
pub fn prompt_ret_fns<R: PromptReturn<M, C>, M, C>(_: C) -> PromptRetFns<R> {
    PromptRetFns {
        convert: |value| value.into_prompt(),
    }
}
