//! What a generated handler calls at run time: boxing its future (on the blocking pool for a
//! synchronous body), taking each argument out of the validated arguments, borrowing injected
//! values, and the state requirements of its `&T` parameters. Re-exported through `__private`.

use std::any::{Any, TypeId};

use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::Context;
use crate::error::ToolError;
use crate::tool::call::CallParts;
use crate::tool::output::ToolOutput;
use crate::tool::spec::StateReq;

/// Boxes a handler future.
pub fn boxed<'a, F>(f: F) -> BoxFuture<'a, Result<ToolOutput, ToolError>>
where
    F: std::future::Future<Output = Result<ToolOutput, ToolError>> + Send + 'a,
{
    Box::pin(f)
}

/// Runs a synchronous handler body on the blocking pool and boxes the wait for it. A panic in the
/// body is caught on the pool's thread (where the panic hook records its location) and carried
/// back to the call's containment, which hides it from the model and logs it.
pub fn boxed_blocking<F>(f: F) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
where
    F: FnOnce() -> Result<ToolOutput, ToolError> + Send + 'static,
{
    Box::pin(async move {
        match tokio::task::spawn_blocking(move || crate::tool::panic::catch_sync(f)).await {
            Ok(Ok(result)) => result,
            Ok(Err(panicked)) => std::panic::resume_unwind(Box::new(panicked)),
            Err(join) => Err(ToolError::internal(format!(
                "the blocking task of a synchronous tool ended: {join}"
            ))),
        }
    })
}

/// Takes one argument out of the validated arguments: `None` when absent.
pub fn take_arg<T: DeserializeOwned>(
    parts: &mut CallParts,
    name: &str,
) -> Result<Option<T>, ToolError> {
    match parts.args.remove(name) {
        None => Ok(None),
        Some(v) => serde_json::from_value::<T>(v)
            .map(Some)
            .map_err(|e| crate::tool::call::deserialize_failure(parts.ctx.tool_name(), name, &e)),
    }
}

/// A default or literal value serialized for the schema.
pub fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Borrows an injected value: the context, or a state value.
pub fn inject<T: Any + Send + Sync>(parts: &CallParts) -> Result<&T, ToolError> {
    if let Some(ctx) = (&parts.ctx as &dyn Any).downcast_ref::<T>() {
        return Ok(ctx);
    }
    parts.state.get::<T>().ok_or_else(|| {
        ToolError::internal(format!(
            "tool `{}` borrows state of type `{}`, which the server was not given",
            parts.ctx.tool_name(),
            std::any::type_name::<T>()
        ))
    })
}

/// The state requirement of an injected `&T`, or `None` when `T` is the context.
pub fn state_req<T: Any + Send + Sync>() -> Option<StateReq> {
    (TypeId::of::<T>() != TypeId::of::<Context>()).then(|| StateReq {
        type_id: TypeId::of::<T>(),
        type_name: std::any::type_name::<T>(),
    })
}

// ---- argument kinds: `Option<T>` arguments are optional and nullable --------------------------
//
// Autoref specialization on the concrete argument type written in the signature: the generated
// code calls `(&ArgProbe::<T>::new()).__mcp_arg_kind()`, which picks `OptionArg` for `Option<U>` and
// `PlainArg` for anything else. The type system decides, so an alias of `Option` is seen too.
