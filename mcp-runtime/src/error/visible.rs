//! Domain errors the model may read: `impl VisibleError for DeskError {}` and a tool returning
//! `Result<T, DeskError>` answers `isError: true` with the error's `Display`, as `?` on a
//! `DeskError` inside a `Result<T, ToolError>` tool does. Every other error type stays hidden.
//!
//! Rust lets one blanket `From<E> for ToolError` exist (the hidden one, for every
//! `std::error::Error`), so the choice is made where the error's type is known: `#[tool]`
//! converts the error of its return type, and of each `?` in its body, through an autoref probe
//! ([`ErrProbe`]) that prefers `VisibleError` and falls back to the conversion `?` makes.

use std::marker::PhantomData;

use super::{IntoToolError, ToolError};

/// An error type whose failures the model may read (it can act on them: a note that does not
/// exist, a desk that is closed), where any other error type is hidden behind an error id.
///
/// The default shows the error's `Display`; override [`visible_message`](Self::visible_message)
/// to show its chain ([`error_chain`]) or to keep one variant hidden:
///
/// ```
/// use mcp_runtime::VisibleError;
///
/// #[derive(Debug)]
/// enum DeskError {
///     NoSuchNote(String),
///     Database(std::io::Error),
/// }
/// # impl std::fmt::Display for DeskError {
/// #     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
/// #         match self {
/// #             DeskError::NoSuchNote(id) => write!(f, "no note {id}"),
/// #             DeskError::Database(_) => f.write_str("the notes database failed"),
/// #         }
/// #     }
/// # }
/// # impl std::error::Error for DeskError {}
///
/// impl VisibleError for DeskError {
///     fn visible_message(&self) -> Option<String> {
///         match self {
///             DeskError::NoSuchNote(_) => Some(self.to_string()),
///             // Hidden from the model, logged in full with an error id.
///             DeskError::Database(_) => None,
///         }
///     }
/// }
/// ```
pub trait VisibleError: std::error::Error + Send + Sync + 'static {
    /// What the model reads, or `None` to hide this value as any other error is. The default
    /// is the error's `Display` (its sources are not shown unless this says so).
    fn visible_message(&self) -> Option<String> {
        Some(self.to_string())
    }
}

/// `error`'s `Display` followed by each of its sources', joined by `": "`: for a
/// [`VisibleError::visible_message`] that shows the chain.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

impl ToolError {
    /// The error of a [`VisibleError`] type: visible with its message, or hidden (logged with
    /// an error id) when [`VisibleError::visible_message`] says `None`.
    pub fn from_visible<E: VisibleError>(error: E) -> ToolError {
        match error.visible_message() {
            Some(message) => ToolError::new(message),
            None => ToolError::internal(error),
        }
    }
}

// ---- what `#[tool]` generates calls (re-exported through `__private`) ---------------------------

/// The probe of an error type `E`: `(&&probe).__mcp_err_kind()` is [`VisibleConv`] when `E`
/// implements [`VisibleError`], [`PlainConv`] otherwise.
pub struct ErrProbe<E>(PhantomData<fn() -> E>);

impl<E> ErrProbe<E> {
    /// The probe of `E`.
    pub const fn new() -> Self {
        ErrProbe(PhantomData)
    }

    /// The probe of the type of `error`, for a `?` in a tool's body.
    pub fn of(_: &E) -> Self {
        ErrProbe(PhantomData)
    }
}

impl<E> Default for ErrProbe<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// How an error value becomes a [`ToolError`], chosen by the probe.
pub trait ErrConv<E> {
    /// Converts the error.
    fn convert(error: E) -> ToolError;
}

/// Tag: a [`VisibleError`], shown or hidden as it says.
pub struct VisibleConv;

impl<E: VisibleError> ErrConv<E> for VisibleConv {
    fn convert(error: E) -> ToolError {
        ToolError::from_visible(error)
    }
}

/// Tag: any other error type of a tool's return type, hidden ([`IntoToolError`]).
pub struct PlainConv<M>(PhantomData<M>);

impl<E: IntoToolError<M>, M> ErrConv<E> for PlainConv<M> {
    fn convert(error: E) -> ToolError {
        error.into_tool_error()
    }
}

/// Selected for an error type implementing [`VisibleError`].
pub trait VisibleErrKind {
    /// The tag.
    fn __mcp_err_kind(&self) -> VisibleConv {
        VisibleConv
    }
    /// The conversion of a `?`.
    fn __mcp_question<E: VisibleError>(&self) -> fn(E) -> ToolError {
        ToolError::from_visible::<E>
    }
}
impl<E: VisibleError> VisibleErrKind for &ErrProbe<E> {}

/// Selected for every other error type.
pub trait PlainErrKind {
    /// The tag.
    fn __mcp_err_kind<M>(&self) -> PlainConv<M> {
        PlainConv(PhantomData)
    }
    /// The conversion of a `?`: the one `?` itself makes.
    fn __mcp_question<E>(&self) -> fn(E) -> ToolError
    where
        ToolError: From<E>,
    {
        ToolError::from
    }
}
impl<E> PlainErrKind for ErrProbe<E> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Closed(Option<std::io::Error>);
    impl std::fmt::Display for Closed {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the desk is closed")
        }
    }
    impl std::error::Error for Closed {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.0.as_ref().map(|e| e as _)
        }
    }
    impl VisibleError for Closed {
        fn visible_message(&self) -> Option<String> {
            self.0.is_none().then(|| error_chain(self))
        }
    }

    #[test]
    #[allow(clippy::needless_borrow)] // the autoref probe's references are the point
    fn the_probe_prefers_visible_and_falls_back_to_what_question_mark_does() {
        let visible = (&&ErrProbe::<Closed>::new()).__mcp_question()(Closed(None));
        assert_eq!(visible.message(), Some("the desk is closed"));
        let hidden = (&&ErrProbe::<Closed>::new()).__mcp_question()(Closed(Some(
            std::io::Error::other("disk"),
        )));
        assert!(hidden.is_internal());
        let io = std::io::Error::other("disk");
        let plain = (&&ErrProbe::of(&io)).__mcp_question()(io);
        assert!(plain.is_internal());
        let text = "a &str converts as ? converts it";
        let plain = (&&ErrProbe::of(&text)).__mcp_question()(text);
        assert!(plain.is_internal());
        let kind = (&&ErrProbe::<Closed>::new()).__mcp_err_kind();
        let shown = <VisibleConv as ErrConv<Closed>>::convert(Closed(None));
        let _: VisibleConv = kind;
        assert_eq!(shown.message(), Some("the desk is closed"));
    }

    #[test]
    fn the_chain_joins_every_source() {
        let e = Closed(Some(std::io::Error::other("disk full")));
        assert_eq!(error_chain(&e), "the desk is closed: disk full");
    }
}
