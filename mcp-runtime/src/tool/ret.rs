//! What `#[tool]` generates for a tool's return type (re-exported through `__private`): the
//! autoref probe that tells `Result<T, E>` from a plain value, and the operations on each (its
//! outputSchema, and the conversion of a returned value, the error through its own probe so that
//! a `VisibleError` is shown).

use std::marker::PhantomData;

use schemars::SchemaGenerator;

use crate::error::visible::{ErrConv, ErrProbe};
use crate::error::{IntoToolError, ToolError};
use crate::schema::OutputSchema;
use crate::tool::output::{IntoToolOutput, ToolOutput};

// ---- return kinds: `Result<T, E>` or a plain value ---------------------------------------------

/// A zero-sized stand-in for a return type.
pub struct RetProbe<T>(PhantomData<fn() -> T>);

impl<T> RetProbe<T> {
    /// The probe.
    pub const fn new() -> Self {
        RetProbe(PhantomData)
    }
}

impl<T> Default for RetProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Tag for `Result<T, E>` return types.
pub struct ResultRet;
/// Tag for other return types.
pub struct PlainRet;

/// Selected for `Result<T, E>`.
pub trait ResultRetKind {
    /// The tag.
    fn __mcp_ret_kind(&self) -> ResultRet {
        ResultRet
    }
}
impl<T, E> ResultRetKind for RetProbe<Result<T, E>> {}

/// Selected for everything else.
pub trait PlainRetKind {
    /// The tag.
    fn __mcp_ret_kind(&self) -> PlainRet {
        PlainRet
    }
}
impl<T> PlainRetKind for &RetProbe<T> {}

impl ResultRet {
    /// The output schema of `T`.
    pub fn output_schema<T: IntoToolOutput, E: IntoToolError<M>, M>(
        &self,
        _: &RetProbe<Result<T, E>>,
        generator: &mut SchemaGenerator,
    ) -> Option<OutputSchema> {
        T::output_schema(generator)
    }
    /// Converts the returned value.
    pub fn convert<T: IntoToolOutput + Send + 'static, E: IntoToolError<M>, M>(
        &self,
        value: Result<T, E>,
    ) -> Result<ToolOutput, ToolError> {
        match value {
            Ok(v) => v.into_tool_output(),
            Err(e) => Err(e.into_tool_error()),
        }
    }
}

impl PlainRet {
    /// The output schema of `T`.
    pub fn output_schema<T: IntoToolOutput>(
        &self,
        _: &RetProbe<T>,
        generator: &mut SchemaGenerator,
    ) -> Option<OutputSchema> {
        T::output_schema(generator)
    }
    /// Converts the returned value.
    pub fn convert<T: IntoToolOutput + Send + 'static>(
        &self,
        value: T,
    ) -> Result<ToolOutput, ToolError> {
        value.into_tool_output()
    }
}

/// The operations on one return type.
pub struct RetFns<R> {
    /// Its outputSchema.
    pub output_schema: fn(&mut SchemaGenerator) -> Option<OutputSchema>,
    /// Converts a returned value into the call result.
    pub convert: fn(R) -> Result<ToolOutput, ToolError>,
}

impl ResultRet {
    /// The probe of the error type, whose tag ([`VisibleConv`] or [`PlainConv`]) says how an
    /// error is converted.
    pub fn err<T, E>(&self, _: &RetProbe<Result<T, E>>) -> ErrProbe<E> {
        ErrProbe::new()
    }

    /// The operations on a `Result<T, E>` return type; `C` converts the error (a
    /// [`VisibleError`](crate::VisibleError) is shown, any other type hidden).
    pub fn fns<T: IntoToolOutput + Send + 'static, E: IntoToolError<M>, M, C: ErrConv<E>>(
        &self,
        _: &RetProbe<Result<T, E>>,
        _: C,
    ) -> RetFns<Result<T, E>> {
        RetFns {
            output_schema: T::output_schema,
            convert: |value| match value {
                Ok(v) => v.into_tool_output(),
                Err(e) => Err(C::convert(e)),
            },
        }
    }
}

impl PlainRet {
    /// Not a `Result`: the probe of `ToolError`, which converts as itself.
    pub fn err<T>(&self, _: &RetProbe<T>) -> ErrProbe<ToolError> {
        ErrProbe::new()
    }

    /// The operations on a plain return type (`C` is the tag of [`err`](Self::err)'s probe,
    /// unused: nothing fails).
    pub fn fns<T: IntoToolOutput + Send + 'static, C: ErrConv<ToolError>>(
        &self,
        _: &RetProbe<T>,
        _: C,
    ) -> RetFns<T> {
        RetFns {
            output_schema: T::output_schema,
            convert: |value| PlainRet.convert(value),
        }
    }
}
