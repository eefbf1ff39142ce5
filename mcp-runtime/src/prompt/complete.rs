//! Completion of prompt arguments: the `complete = fn` an argument names (sync or async), the
//! request it receives, and the capped answer `completion/complete` sends.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use crate::error::{ProtocolError, ToolError};
use crate::tool::panic::{catch, next_error_id};
use crate::tool::state::StateMap;

/// The most values one `completion/complete` answer holds (the specification's limit); `total`
/// and `hasMore` say how many there were.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What a completion fn receives: the argument being completed, what the user typed so far, the
/// other arguments already given, and the server's state.
#[derive(Clone)]
pub struct CompleteRequest {
    pub(crate) argument: String,
    pub(crate) value: String,
    pub(crate) arguments: BTreeMap<String, String>,
    pub(crate) state: Arc<StateMap>,
}

impl CompleteRequest {
    /// A request outside a server (for testing a completion fn directly).
    pub fn new(argument: impl Into<String>, value: impl Into<String>) -> Self {
        CompleteRequest {
            argument: argument.into(),
            value: value.into(),
            arguments: BTreeMap::new(),
            state: Arc::new(StateMap::new()),
        }
    }

    /// With an argument already given (`context.arguments` of the request).
    pub fn with_argument(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.arguments.insert(name.into(), value.into());
        self
    }

    /// The published name of the argument being completed.
    pub fn argument(&self) -> &str {
        &self.argument
    }

    /// What the user typed so far: the prefix to complete.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The other arguments already given.
    pub fn arguments(&self) -> &BTreeMap<String, String> {
        &self.arguments
    }

    /// One argument already given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// Server state of type `T` (given to the builder with `.state(…)`), if there is one.
    pub fn state<T: std::any::Any + Send + Sync>(&self) -> Option<&T> {
        self.state.get::<T>()
    }
}

/// What a completion fn returns: the candidate values, best first.
pub trait IntoCandidates {
    /// The values.
    fn into_candidates(self) -> Result<Vec<String>, ToolError>;
}

impl IntoCandidates for Vec<String> {
    fn into_candidates(self) -> Result<Vec<String>, ToolError> {
        Ok(self)
    }
}

impl IntoCandidates for Vec<&str> {
    fn into_candidates(self) -> Result<Vec<String>, ToolError> {
        Ok(self.into_iter().map(str::to_owned).collect())
    }
}

impl<T: IntoCandidates> IntoCandidates for Result<T, ToolError> {
    fn into_candidates(self) -> Result<Vec<String>, ToolError> {
        self.and_then(IntoCandidates::into_candidates)
    }
}

/// The completion fn of one argument, as the server calls it.
pub type CompleteFn = fn(CompleteRequest) -> BoxFuture<'static, Result<Vec<String>, ToolError>>;

/// Marks a synchronous completion fn.
pub struct Sync_<R>(std::marker::PhantomData<R>);
/// Marks an `async` completion fn.
pub struct Async_<R>(std::marker::PhantomData<R>);

/// A fn that `#[arg(complete = …)]` can name: `fn(&CompleteRequest) -> Vec<String>`, or
/// `async fn(CompleteRequest) -> Vec<String>` (a `Result<Vec<String>, ToolError>` works too).
#[diagnostic::on_unimplemented(
    message = "`complete = ...` must name a fn taking `&CompleteRequest` (or an `async fn` taking `CompleteRequest`) and returning `Vec<String>`",
    label = "this fn does not have a completion fn's signature",
    note = "write `fn titles(request: &CompleteRequest) -> Vec<String>`, or `async fn titles(request: CompleteRequest) -> Vec<String>`"
)]
pub trait Completer<M>: Send + Sync + 'static {
    /// Runs the fn.
    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'static, Result<Vec<String>, ToolError>>;
}

impl<F, R> Completer<Sync_<R>> for F
where
    F: Fn(&CompleteRequest) -> R + Send + Sync + 'static,
    R: IntoCandidates,
{
    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'static, Result<Vec<String>, ToolError>> {
        let out = self(&request).into_candidates();
        Box::pin(std::future::ready(out))
    }
}

impl<F, Fut> Completer<Async_<Fut>> for F
where
    F: Fn(CompleteRequest) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCandidates,
{
    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'static, Result<Vec<String>, ToolError>> {
        let fut = self(request);
        Box::pin(async move { fut.await.into_candidates() })
    }
}

/// Runs `f`: what the generated `complete = f` calls, through the bound that checks its signature.
pub fn complete_with<M, F: Completer<M>>(
    f: F,
    request: CompleteRequest,
) -> BoxFuture<'static, Result<Vec<String>, ToolError>> {
    f.complete(request)
}

/// Runs the completion fn of argument `argument` of `owner` (a prompt, or a resource template)
/// with its panics contained: its values, or the JSON-RPC error `completion/complete` answers. A
/// `ToolError` the fn returns shows its message (if it has one for the model); a panic is hidden
/// and logged with an error id.
pub(crate) async fn run_completer(
    kind: &str,
    owner: &str,
    argument: &str,
    completion: BoxFuture<'static, Result<Vec<String>, ToolError>>,
) -> Result<Vec<String>, ProtocolError> {
    match catch(completion).await {
        Ok(Ok(values)) => Ok(values),
        Ok(Err(e)) => {
            let message = e.message().unwrap_or("the completion failed").to_owned();
            Err(ProtocolError::internal(format!(
                "Error completing {argument}: {message}"
            )))
        }
        Err(panic) => {
            let id = next_error_id();
            tracing::error!(%kind, owner, error_id = %id, "completion panicked at {}: {}", panic.location, panic.message);
            Err(ProtocolError::internal("Internal error").with_data(json!({"errorId": id})))
        }
    }
}

/// The values of a fixed set that start with `prefix`, in order.
pub(crate) fn filter_prefix(choices: &[String], prefix: &str) -> Vec<String> {
    choices
        .iter()
        .filter(|c| c.starts_with(prefix))
        .cloned()
        .collect()
}

/// The `completion/complete` result: at most [`MAX_COMPLETION_VALUES`] values, with the total.
pub(crate) fn completion_result(mut values: Vec<String>) -> Value {
    let total = values.len();
    values.truncate(MAX_COMPLETION_VALUES);
    json!({"completion": {
        "values": values,
        "total": total,
        "hasMore": total > MAX_COMPLETION_VALUES,
    }})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_capped_at_one_hundred_with_the_total() {
        let many: Vec<String> = (0..150).map(|i| format!("v{i}")).collect();
        let r = completion_result(many);
        assert_eq!(
            r["completion"]["values"].as_array().map(Vec::len),
            Some(100)
        );
        assert_eq!(r["completion"]["total"], 150);
        assert_eq!(r["completion"]["hasMore"], true);
        let few = completion_result(vec!["a".into()]);
        assert_eq!(few["completion"]["hasMore"], false);
        assert_eq!(few["completion"]["total"], 1);
    }

    #[test]
    fn fixed_choices_filter_by_prefix() {
        let c = vec![
            "formal".to_owned(),
            "friendly".to_owned(),
            "casual".to_owned(),
        ];
        assert_eq!(filter_prefix(&c, "f"), ["formal", "friendly"]);
        assert_eq!(filter_prefix(&c, ""), c);
    }
}
