//! [`BuildError`]: why a server could not be built, said so that a person can act on it.

use crate::prompt::PromptBuildError;
use crate::resource::DuplicateResource;
use crate::tool::ToolBuildError;
use crate::tool::table::DuplicateTool;

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A tool (or a resource) borrows a state type the builder was not given.
    #[error(
        "tool `{tool}` borrows state of type `{type_name}`, but the server was not given one; \
         add `.state(…)` with a `{type_name}` to the builder"
    )]
    MissingState {
        /// The tool (or the resource's name).
        tool: String,
        /// The type it borrows.
        type_name: String,
    },
    /// An option has a value that cannot work.
    #[error("{0}")]
    InvalidOption(String),
    /// Two of the tool tables given to the builder publish the same name.
    #[error(transparent)]
    DuplicateTool(DuplicateTool),
    /// Two of the resource tables given to the builder publish the same URI.
    #[error(transparent)]
    DuplicateResource(DuplicateResource),
    /// A resource cannot be served (a URI template `#[resource]` did not check, or a URI twice
    /// in one hand-made table); a resource borrowing missing state is [`BuildError::MissingState`].
    #[error("{0}")]
    Resource(String),
    /// A tool's contract cannot be served (a schema keyword or pattern the validator does not
    /// implement, named with its JSON Pointer, or a panic while its schemas were generated).
    #[error(transparent)]
    Tool(ToolBuildError),
    /// A prompt cannot be served (its name published twice across the prompt tables, or its
    /// arguments' schema cannot be validated).
    #[error(transparent)]
    Prompt(PromptBuildError),
    /// More than one of the above, in the order found.
    #[error("{} problems:{}", .0.len(), Bullets(.0))]
    Several(Vec<BuildError>),
}

/// Each problem on a line of its own, after a dash.
struct Bullets<'a>(&'a [BuildError]);

impl std::fmt::Display for Bullets<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|e| write!(f, "\n- {e}"))
    }
}
