//! Any error type a Rust codebase already has can be a tool's error type, and `?` converts any of
//! them inside a `Result<T, ToolError>` tool: each becomes a hidden failure (generic text and an
//! error id for the model), logged in full (the chain of causes, and anyhow's context) under the
//! same id. Only `ToolError::new` reaches the model.

use crate::common;

use std::sync::Arc;

use anyhow::Context as _;
use mcp_runtime::prelude::*;
use serde_json::json;

use common::Recorder;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn secret_io() -> std::io::Error {
    std::io::Error::other("disk at 10.0.0.5 is full")
}

/// Fails with a standard error.
#[tool]
fn std_error() -> Result<String, std::io::Error> {
    Err(secret_io())
}

/// Fails with a boxed error.
#[tool]
fn boxed_error() -> Result<String, BoxError> {
    Err(secret_io().into())
}

/// Fails with an anyhow error that carries context.
#[tool]
fn anyhow_error() -> anyhow::Result<String> {
    Err(secret_io()).context("saving the stock of item 7")
}

/// Fails with an eyre report that carries context.
#[tool]
fn eyre_error() -> eyre::Result<String> {
    use eyre::WrapErr as _;
    Err(secret_io()).wrap_err("saving the stock of item 7")
}

fn anyhow_fails() -> anyhow::Result<u32> {
    Err(secret_io()).context("saving the stock of item 7")
}
fn eyre_fails() -> eyre::Result<u32> {
    Err(eyre::eyre!("disk at 10.0.0.5 is full"))
}
fn boxed_fails() -> Result<u32, BoxError> {
    Err(secret_io().into())
}

/// `?` on each kind of error inside a `ToolError` tool; `visible` stays explicit.
#[tool]
fn question_mark(
    #[arg(one_of = ["io", "anyhow", "eyre", "boxed", "text", "visible"])] how: String,
) -> Result<u32, ToolError> {
    match how.as_str() {
        "io" => Err(secret_io())?,
        "anyhow" => Ok(anyhow_fails()?),
        "eyre" => Ok(eyre_fails()?),
        "boxed" => Ok(boxed_fails()?),
        "text" => Err("disk at 10.0.0.5 is full")?,
        _ => Err(ToolError::new(
            "No item 7. Call list_items to see the valid ids.",
        )),
    }
}

async fn call(table: &ToolTable, name: &str, args: serde_json::Value) -> CallToolResult {
    test_support::call_detached(table, &Arc::new(StateMap::new()), name, args).await
}

/// The model sees `Error executing tool <name>` and an id; the log line with that id holds the
/// whole chain.
async fn assert_hidden(
    table: &ToolTable,
    recorder: &Recorder,
    name: &str,
    args: serde_json::Value,
    chain: &str,
) {
    let result = call(table, name, args.clone()).await;
    assert!(result.is_error, "{name} {args}");
    assert_eq!(
        result.first_text(),
        Some(format!("Error executing tool {name}").as_str())
    );
    assert_eq!(result.content.len(), 1, "nothing else reaches the model");
    let id = result
        .meta
        .as_ref()
        .and_then(|m| m["errorId"].as_str())
        .expect("an errorId");
    let all = recorder.get();
    let logged = all
        .events
        .iter()
        .find(|e| e.fields.get("error_id").map(String::as_str) == Some(id))
        .unwrap_or_else(|| panic!("no log line with error id {id} for {name} {args}"));
    assert_eq!(logged.level, tracing::Level::ERROR);
    let message = &logged.fields["message"];
    assert!(
        message.ends_with(chain),
        "{name} {args}: the log holds {message:?}, not the chain {chain:?}"
    );
    assert!(
        logged.fields.contains_key("details"),
        "the error's Debug is logged too"
    );
}

#[tokio::test]
async fn every_error_type_is_hidden_from_the_model_and_logged_in_full() {
    let (recorder, _guard) = Recorder::install();
    let table = tools![
        std_error,
        boxed_error,
        anyhow_error,
        eyre_error,
        question_mark
    ];
    let full = "disk at 10.0.0.5 is full";
    let with_context = "saving the stock of item 7: disk at 10.0.0.5 is full";
    assert_hidden(&table, &recorder, "std_error", json!({}), full).await;
    assert_hidden(&table, &recorder, "boxed_error", json!({}), full).await;
    assert_hidden(&table, &recorder, "anyhow_error", json!({}), with_context).await;
    assert_hidden(&table, &recorder, "eyre_error", json!({}), with_context).await;
    for (how, chain) in [
        ("io", full),
        ("anyhow", with_context),
        ("eyre", full),
        ("boxed", full),
        ("text", full),
    ] {
        assert_hidden(
            &table,
            &recorder,
            "question_mark",
            json!({"how": how}),
            chain,
        )
        .await;
    }
}

#[tokio::test]
async fn anyhow_keeps_its_context_and_backtrace_in_the_details() {
    let (recorder, _guard) = Recorder::install();
    let table = tools![anyhow_error];
    call(&table, "anyhow_error", json!({})).await;
    let all = recorder.get();
    let details = &all
        .events
        .iter()
        .find(|e| e.fields.contains_key("error_id"))
        .unwrap()
        .fields["details"];
    // anyhow's own `Debug`: the context, then its causes (and a backtrace when one was captured).
    let (context, causes) = details.split_once("\n\nCaused by:\n").expect(details);
    assert_eq!(context, "saving the stock of item 7");
    assert!(causes.contains("disk at 10.0.0.5 is full"), "{details}");
}

#[tokio::test]
async fn a_visible_message_stays_explicit() {
    let table = tools![question_mark];
    let result = call(&table, "question_mark", json!({"how": "visible"})).await;
    assert!(result.is_error);
    assert_eq!(
        result.first_text(),
        Some(
            "Error executing tool question_mark: No item 7. Call list_items to see the valid ids."
        )
    );
    assert!(result.meta.is_none(), "a visible failure has no error id");
}
