//! [`BuildError`]: why a server could not be built, said so that a person can act on it.

use std::fmt;

use crate::prompt::PromptBuildError;
use crate::resource::DuplicateResource;
use crate::tool::ToolBuildError;
use crate::tool::table::DuplicateTool;

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// A tool (or a resource) borrows a state type the builder was not given.
    MissingState {
        /// The tool (or the resource's name).
        tool: String,
        /// The type it borrows.
        type_name: String,
    },
    /// An option has a value that cannot work.
    InvalidOption(String),
    /// Two of the tool tables given to the builder publish the same name.
    DuplicateTool(DuplicateTool),
    /// Two of the resource tables given to the builder publish the same URI.
    DuplicateResource(DuplicateResource),
    /// A resource cannot be served (a URI template `#[resource]` did not check, or a URI twice
    /// in one hand-made table); a resource borrowing missing state is [`BuildError::MissingState`].
    Resource(String),
    /// A tool's contract cannot be served (a schema keyword or pattern the validator does not
    /// implement, named with its JSON Pointer, or a panic while its schemas were generated).
    Tool(ToolBuildError),
    /// A prompt cannot be served (its name published twice across the prompt tables, or its
    /// arguments' schema cannot be validated).
    Prompt(PromptBuildError),
    /// More than one of the above, in the order found.
    Several(Vec<BuildError>),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::MissingState { tool, type_name } => write!(
                f,
                "tool `{tool}` borrows state of type `{type_name}`, but the server was not given \
                 one; add `.state(…)` with a `{type_name}` to the builder"
            ),
            BuildError::InvalidOption(m) => f.write_str(m),
            BuildError::DuplicateTool(d) => d.fmt(f),
            BuildError::DuplicateResource(d) => d.fmt(f),
            BuildError::Resource(m) => f.write_str(m),
            BuildError::Tool(e) => e.fmt(f),
            BuildError::Prompt(e) => e.fmt(f),
            BuildError::Several(all) => {
                write!(f, "{} problems:", all.len())?;
                for e in all {
                    write!(f, "\n- {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for BuildError {}
