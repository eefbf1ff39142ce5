//! What a generated handler calls at run time: boxing its future (on the blocking pool for a
//! synchronous body), taking each argument out of the validated arguments, borrowing injected
//! values, and the state requirements of its `&T` parameters. Re-exported through `__private`.

use std::any::{Any, TypeId};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::ToolError;
use crate::schema::{FlatKeys, InputSchema};
use crate::tool::state::{StateMap, StateReq};
use crate::validate::{Violation, format_violations};

/// Boxes a handler future (a tool's, whose `T` is its output, or a prompt's).
pub fn boxed<'a, T, F>(f: F) -> BoxFuture<'a, Result<T, ToolError>>
where
    F: std::future::Future<Output = Result<T, ToolError>> + Send + 'a,
{
    Box::pin(f)
}

/// Runs a synchronous handler body on the blocking pool and boxes the wait for it. A panic in the
/// body is caught on the pool's thread (where the panic hook records its location) and carried
/// back to the call's containment, which hides it from the model and logs it.
///
/// The body and its output are boxed before they reach the pool, so that tokio's blocking task
/// (its cell, harness and join), the panic containment and the wait are compiled once for every
/// tool rather than once per tool: per synchronous tool, that was about 1,400 lines of LLVM IR
/// (`cargo llvm-lines`), 12 % of a test binary of 132 such tools. It costs two small allocations
/// on a call that already hands itself to another thread.
pub fn boxed_blocking<T, F>(f: F) -> BoxFuture<'static, Result<T, ToolError>>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    let body: Body = Box::new(move || f().map(|t| Box::new(t) as Box<dyn Any + Send>));
    Box::pin(async move {
        match run_blocking(body).await?.downcast::<T>() {
            Ok(t) => Ok(*t),
            // Not reachable: the body above boxes a `T`.
            Err(_) => Err(ToolError::internal(
                "the blocking task of a synchronous tool returned another type",
            )),
        }
    })
}

/// A synchronous body with its output boxed: one type for every tool's.
type Body = Box<dyn FnOnce() -> Result<Box<dyn Any + Send>, ToolError> + Send>;

async fn run_blocking(body: Body) -> Result<Box<dyn Any + Send>, ToolError> {
    match tokio::task::spawn_blocking(move || crate::tool::panic::catch_sync(body)).await {
        Ok(Ok(result)) => result,
        Ok(Err(panicked)) => std::panic::resume_unwind(Box::new(panicked)),
        Err(join) => Err(ToolError::internal(format!(
            "the blocking task of a synchronous tool ended: {join}"
        ))),
    }
}

/// Takes one argument out of the validated arguments: `None` when absent.
pub fn take_arg<T: DeserializeOwned>(
    parts: &mut CallParts,
    name: &str,
) -> Result<Option<T>, ToolError> {
    match parts.args.remove(name) {
        None => Ok(None),
        Some(v) => deserialize(parts, Some(name), v).map(Some),
    }
}

/// The operations on a `#[arg(flatten)]` argument type, whose fields are the tool's arguments.
pub struct FlatFns<T> {
    /// Declares its fields into the inputSchema; the parameter's name is for messages.
    pub declare: fn(&mut InputSchema, &'static str),
    /// The keys it takes at call time (the generated code keeps them once per tool).
    pub keys: fn() -> FlatKeys,
    /// Takes it out of the validated arguments, after every ordinary argument.
    pub take: fn(&mut CallParts, &[&FlatKeys], usize) -> Result<T, ToolError>,
}

/// Takes the `me`th flattened argument (`#[arg(flatten)]`) out of the validated arguments, once
/// every ordinary argument is taken: the properties its struct publishes, and, when it has a
/// catch-all map, every key that no other flattened struct publishes. `all` lists the keys of
/// every flattened argument of the tool, in order.
pub fn take_flat<T: DeserializeOwned>(
    parts: &mut CallParts,
    all: &[&FlatKeys],
    me: usize,
) -> Result<T, ToolError> {
    let own = all[me];
    let others = || all.iter().enumerate().filter(move |(i, _)| *i != me);
    let mine = |key: &String| {
        own.names.contains(key) || (own.catch_all && !others().any(|(_, k)| k.names.contains(key)))
    };
    let keys: Vec<String> = parts.args.keys().filter(|k| mine(k)).cloned().collect();
    let map: Map<String, Value> = keys
        .into_iter()
        .filter_map(|k| parts.args.remove(&k).map(|v| (k, v)))
        .collect();
    deserialize(parts, None, Value::Object(map))
}

/// Deserializes a validated value through `serde_path_to_error`, so that a value the schema
/// allowed and serde still refused (a custom `Deserialize`, `#[schemars(with)]`) is named by its
/// own JSON Pointer: under argument `name`, or at the top level for a flattened struct.
fn deserialize<T: DeserializeOwned>(
    parts: &CallParts,
    name: Option<&str>,
    value: Value,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let pointer = json_pointer(name, e.path());
        deserialize_failure(parts.ctx.tool_name(), &pointer, e.inner())
    })
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
    parts
        .state
        .get::<T>()
        .ok_or_else(|| missing_state::<T>(parts.ctx.tool_name()))
}

/// The hidden failure of a tool that borrows state the server was not given (`build` refuses
/// such a server, so only a table called directly can meet it).
pub(crate) fn missing_state<T>(tool: &str) -> ToolError {
    ToolError::internal(format!(
        "tool `{tool}` borrows state of type `{}`, which the server was not given",
        std::any::type_name::<T>()
    ))
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

/// `/name/field/0/…`: the JSON Pointer of the value serde refused, inside argument `name` (or
/// at the top level).
fn json_pointer(name: Option<&str>, path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    let mut push = |token: &str| {
        pointer.push('/');
        pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
    };
    if let Some(name) = name {
        push(name);
    }
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => push(&index.to_string()),
            Segment::Map { key } => push(key),
            Segment::Enum { variant } => push(variant),
            Segment::Unknown => {}
        }
    }
    pointer
}

/// Everything a handler needs for one call; the arguments are already validated.
pub struct CallParts {
    /// The validated arguments.
    pub args: Map<String, Value>,
    /// The request context.
    pub ctx: Context,
    /// The server's state.
    pub state: Arc<StateMap>,
}

/// Converts a value that failed to deserialize after passing the schema into a rejection.
pub(crate) fn deserialize_failure(
    tool: &str,
    pointer: &str,
    error: &serde_json::Error,
) -> ToolError {
    tracing::info!(tool, fields = ?[pointer], "rejected arguments");
    ToolError::new_raw(format_violations(
        tool,
        &[Violation {
            path: pointer.to_owned(),
            // An integer outside its Rust type names the bound it breaks, not serde's words.
            message: {
                let message = error.to_string();
                crate::validate::integer_out_of_range(&message).unwrap_or(message)
            },
        }],
    ))
}

/// A receiver a `#[toolbox]` method takes by value: `self: Arc<Self>`, a handle on the server's
/// state that the body may keep past the call (to spawn a task, say).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the receiver of a tool method",
    label = "a tool method takes `&self` or `self: Arc<Self>`",
    note = "the server keeps the state and shares it between calls: take `&self`, or `self: Arc<Self>` to keep a handle past the call"
)]
pub trait SharedReceiver: Sized {
    /// The state type the receiver shares.
    type State: Any + Send + Sync;
    /// The receiver for one call.
    fn from_state(state: &StateMap) -> Option<Self>;
}

impl<T: Any + Send + Sync> SharedReceiver for Arc<T> {
    type State = T;
    fn from_state(state: &StateMap) -> Option<Self> {
        state.get_arc::<T>()
    }
}

/// The operations on a receiver taken by value, as the generated handler calls them.
pub struct ReceiverFns<R> {
    /// The state requirement of the receiver's type.
    pub state_req: fn() -> Option<StateReq>,
    /// The receiver for one call.
    pub get: fn(&CallParts) -> Result<R, ToolError>,
}

/// The operations on a `self: R` receiver.
pub fn receiver_fns<R: SharedReceiver>() -> ReceiverFns<R> {
    ReceiverFns {
        state_req: state_req::<R::State>,
        get: |parts| {
            R::from_state(&parts.state)
                .ok_or_else(|| missing_state::<R::State>(parts.ctx.tool_name()))
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_name_the_refused_value_and_escape_keys() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Inner {
            n: std::num::NonZeroU8,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Outer {
            #[serde(rename = "a/b~c")]
            items: Vec<Inner>,
        }
        let v = serde_json::json!({"a/b~c": [{"n": 1}, {"n": 0}]});
        let e = serde_path_to_error::deserialize::<_, Outer>(v).unwrap_err();
        assert_eq!(json_pointer(Some("spec"), e.path()), "/spec/a~1b~0c/1/n");
        assert_eq!(json_pointer(None, e.path()), "/a~1b~0c/1/n");
    }
}
