//! Which attribute a function is under.

/// What a function under one of the attributes becomes: the pipeline (arguments, injection,
/// validation, the handler) is the same, the registration and the return contract differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `#[tool]`
    Tool,
    /// `#[prompt]`
    Prompt,
}

impl Kind {
    /// `tool` or `prompt`, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
        }
    }
}
