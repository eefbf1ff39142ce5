//! What the code `#[resource]` generates calls, re-exported through `__private`: the checked
//! operations on a template variable's type and on the return type (text, bytes and contents
//! directly, any other `Serialize` value as JSON), chosen by autoref on the type as written.

use serde::Serialize;
use serde_json::{Value, json};

use crate::__private::RetProbe;
use futures_util::future::BoxFuture;

use crate::error::visible::{ErrConv, ErrProbe};
use crate::error::{IntoToolError, ProtocolError, ToolError};
use crate::prompt::CompleteRequest;
use crate::prompt::complete::filter_prefix;
use crate::resource::contents::{IntoResourceContents, ResourceContents, UriVar};
use crate::tool::handler::CallParts;

/// The operations on one template variable's type.
pub struct VarFns<T> {
    /// Takes the variable's value out of the matched URI.
    pub take: fn(&mut CallParts, &str) -> Result<T, ToolError>,
    /// The type's fixed values, if it has some.
    pub candidates: fn() -> Option<Vec<String>>,
}

/// The operations on a variable of type `T`; the bound is the "string-like variable" contract.
pub fn var_fns<T: UriVar>() -> VarFns<T> {
    VarFns {
        take: take_var::<T>,
        candidates: T::candidates,
    }
}

fn take_var<T: UriVar>(parts: &mut CallParts, name: &str) -> Result<T, ToolError> {
    let text = match parts.args.remove(name) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    T::from_uri_var(&text).ok_or_else(|| {
        let mut message = format!("Invalid params: `{name}` cannot be {text:?}");
        if let Some(values) = T::candidates() {
            message.push_str(&format!("; expected one of: {}", values.join(", ")));
        }
        ProtocolError::invalid_params(message)
            .with_data(json!({ "uri": parts.ctx.tool_name() }))
            .into()
    })
}

/// The completion of a variable whose type has fixed values: those starting with what was typed.
pub fn fixed_candidates(
    values: Option<Vec<String>>,
    request: &CompleteRequest,
) -> Option<BoxFuture<'static, Result<Vec<String>, ToolError>>> {
    let values = filter_prefix(&values?, request.value());
    Some(Box::pin(std::future::ready(Ok(values))))
}

/// The operations on one return type.
pub struct ResRetFns<R> {
    /// Converts the returned value into the read's contents.
    pub convert: fn(R) -> Result<Vec<ResourceContents>, ToolError>,
}

/// Tag for `Result<T, E>`.
pub struct ResultRes;
/// Tag for text, bytes and contents.
pub struct DirectRes;
/// Tag for any other type: JSON text.
pub struct JsonRes;

/// Selected for `Result<T, E>` (the generated code probes `&&RetProbe<R>`, the probe `#[tool]` uses).
pub trait ResultResKind {
    /// The tag.
    fn __mcp_res_kind(&self) -> ResultRes {
        ResultRes
    }
}
impl<T, E> ResultResKind for &RetProbe<Result<T, E>> {}

/// Selected for a type implementing [`IntoResourceContents`].
pub trait DirectResKind {
    /// The tag.
    fn __mcp_res_kind(&self) -> DirectRes {
        DirectRes
    }
}
impl<T: IntoResourceContents> DirectResKind for &&RetProbe<T> {}

/// Selected for everything else.
pub trait JsonResKind {
    /// The tag.
    fn __mcp_res_kind(&self) -> JsonRes {
        JsonRes
    }
}
impl<T> JsonResKind for RetProbe<T> {}

/// A return type sent as JSON text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a resource",
    label = "not text, bytes, `ResourceContents`, nor a `Serialize` value",
    note = "return `String` (text), `Vec<u8>` or `bytes::Bytes` (a base64 blob), `ResourceContents` or `Vec<ResourceContents>`, any `Serialize` type (JSON text), or a `Result` of one of these"
)]
pub trait JsonResource: Serialize {}
impl<T: Serialize> JsonResource for T {}

/// How the `Ok` value of a `Result` becomes contents: the tag [`DirectRes`] or [`JsonRes`] that
/// the same autoref picks for the `Ok` type (`ok` gives its probe).
pub trait OkContents<T> {
    /// Converts the `Ok` value.
    fn convert(value: T) -> Result<Vec<ResourceContents>, ToolError>;
}

impl<T: IntoResourceContents> OkContents<T> for DirectRes {
    fn convert(value: T) -> Result<Vec<ResourceContents>, ToolError> {
        value.into_resource_contents()
    }
}

impl<T: JsonResource> OkContents<T> for JsonRes {
    fn convert(value: T) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents::json(&value)?])
    }
}

impl ResultRes {
    /// The probe of the `Ok` type, whose tag says how an `Ok` value is converted.
    pub fn ok<T, E>(&self, _: &RetProbe<Result<T, E>>) -> RetProbe<T> {
        RetProbe::new()
    }

    /// The probe of the error type, whose tag says how an error is converted.
    pub fn err<T, E>(&self, _: &RetProbe<Result<T, E>>) -> ErrProbe<E> {
        ErrProbe::new()
    }

    /// The operations on `Result<T, E>`: the error as a tool's is (`C`: a
    /// [`VisibleError`](crate::VisibleError) shown, any other type hidden), the `Ok` value as `K`
    /// says (text, bytes and contents directly; any other `Serialize` value as JSON).
    pub fn fns<T, E: IntoToolError<M>, M, K: OkContents<T>, C: ErrConv<E>>(
        &self,
        _: &RetProbe<Result<T, E>>,
        _: K,
        _: C,
    ) -> ResRetFns<Result<T, E>> {
        ResRetFns {
            convert: |r| K::convert(r.map_err(C::convert)?),
        }
    }
}

impl DirectRes {
    /// The probe itself: not a `Result`.
    pub fn ok<T>(&self, _: &RetProbe<T>) -> RetProbe<T> {
        RetProbe::new()
    }

    /// Not a `Result`: the probe of `ToolError`, which converts as itself.
    pub fn err<T>(&self, _: &RetProbe<T>) -> ErrProbe<ToolError> {
        ErrProbe::new()
    }

    /// The operations on text, bytes or contents.
    pub fn fns<T: IntoResourceContents, K, C: ErrConv<ToolError>>(
        &self,
        _: &RetProbe<T>,
        _: K,
        _: C,
    ) -> ResRetFns<T> {
        ResRetFns {
            convert: <DirectRes as OkContents<T>>::convert,
        }
    }
}

impl JsonRes {
    /// The probe itself: not a `Result`.
    pub fn ok<T>(&self, _: &RetProbe<T>) -> RetProbe<T> {
        RetProbe::new()
    }

    /// Not a `Result`: the probe of `ToolError`, which converts as itself.
    pub fn err<T>(&self, _: &RetProbe<T>) -> ErrProbe<ToolError> {
        ErrProbe::new()
    }

    /// The operations on a value sent as JSON text.
    pub fn fns<T: JsonResource, K, C: ErrConv<ToolError>>(
        &self,
        _: &RetProbe<T>,
        _: K,
        _: C,
    ) -> ResRetFns<T> {
        ResRetFns {
            convert: <JsonRes as OkContents<T>>::convert,
        }
    }
}
