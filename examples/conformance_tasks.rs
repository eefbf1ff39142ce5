//! The fixtures of the suite's tasks scenarios (the `io.modelcontextprotocol/tasks` extension):
//! a sync-only tool beside tools that run as tasks, each declared with `#[tool(task)]`.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::{Elicitation, ProtocolError, ToolTable};

/// Greet someone (never a task).
#[tool]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Sleep `seconds`, then say so; cancelled while it sleeps, it ends `cancelled`.
#[tool(task)]
async fn slow_compute(#[arg(max = 3600)] seconds: f64, label: Option<String>) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    format!(
        "computed {} after {seconds}s",
        label.as_deref().unwrap_or("a result")
    )
}

/// A job that fails after about a second, with a tool error.
#[tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed"))
}

/// A job that ends with a protocol error (an internal failure), so its task ends `failed`.
#[tool(task)]
async fn protocol_error_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    Err(ProtocolError::internal("Internal error: the job's worker crashed").into())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Delete a file once the user confirms (asked through the task's input flow).
#[tool(task)]
async fn confirm_delete(ctx: &Context, filename: String) -> Result<String, ToolError> {
    let asked = ctx.elicit::<Confirm>(format!("Delete {filename}?")).await;
    match asked.map_err(|e| e.into_tool_error("the confirmation could not be asked"))? {
        Elicitation::Accept(Confirm { confirm: true }) => Ok(format!("deleted {filename}")),
        _ => Ok(format!("kept {filename}")),
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Named {
    name: String,
    confirm: bool,
}

/// Ask two questions at once; finish when both are answered.
#[tool(task)]
async fn multi_input(ctx: &Context) -> Result<String, ToolError> {
    let (a, b) = tokio::join!(
        ctx.elicit::<Named>("First name?"),
        ctx.elicit::<Named>("Second name?")
    );
    let name = |e: Result<Elicitation<Named>, _>| match e {
        Ok(Elicitation::Accept(n)) if n.confirm => n.name,
        _ => "(none)".to_owned(),
    };
    Ok(format!("got {} and {}", name(a), name(b)))
}

/// Ask the user's name in an `input_required` round trip, then finish as a task.
#[tool(task = "required")]
async fn test_tool_with_task(ctx: &Context) -> Result<String, ToolError> {
    if let Some(name) = super::accepted(ctx, "user_name", "name")? {
        return Ok(format!("Hello, {}!", name.as_str().unwrap_or_default()));
    }
    let ask = super::elicit_request("What is your name?", "name", "string");
    Err(super::require_one(ctx, "user_name", ask, None).await)
}

/// The tools above.
pub fn tools() -> ToolTable {
    tools![
        greet,
        slow_compute,
        failing_job,
        protocol_error_job,
        confirm_delete,
        multi_input,
        test_tool_with_task,
    ]
}
