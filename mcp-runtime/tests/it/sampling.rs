//! Sampling (`ctx.sample`) and roots (`ctx.roots`) in both eras, through the in-process client's
//! `on_sampling` and `roots`: a request to the client in the handshake era, an `input_required`
//! round trip in the stateless era; the typed request arrives as built, the typed result comes
//! back as sent; a missing capability and a refusal are errors a person reads; a change of roots
//! reaches the server's `on_roots_changed`.

use std::sync::{Arc, Mutex};

use mcp_runtime::context::{
    IncludeContext, ModelPreferences, SamplingTool, StopReason, ToolChoice, ToolChoiceMode,
};
use mcp_runtime::prelude::*;
use mcp_runtime::{
    Client, ClientBuilder, CreateMessageRequest, CreateMessageResult, Root, SamplingContent,
    SamplingMessage,
};
use serde_json::{Value, json};

/// Summarize `text` with the client's model.
#[tool]
async fn summarize(ctx: &Context, text: String) -> Result<String, ToolError> {
    let request = CreateMessageRequest::new(300)
        .system_prompt("Summarize this code for a reviewer")
        .user(text);
    match ctx.sample(request).await {
        Ok(answer) => Ok(answer.text_content().unwrap_or_default()),
        Err(e) => Err(ToolError::new(e.to_string())),
    }
}

/// The request every block and option of sampling is in.
pub fn rich_request() -> CreateMessageRequest {
    let mut input = serde_json::Map::new();
    input.insert("path".into(), json!("src/lib.rs"));
    CreateMessageRequest::new(120)
        .system_prompt("You review code")
        .message(SamplingMessage::new(
            mcp_runtime::Role::User,
            vec![
                SamplingContent::text("What is in this screenshot?"),
                SamplingContent::image("iVBORw0KGgo=", "image/png"),
                SamplingContent::audio("UklGRg==", "audio/wav"),
            ],
        ))
        .message(SamplingMessage::new(
            mcp_runtime::Role::Assistant,
            vec![SamplingContent::tool_use("call-1", "read_file", input)],
        ))
        .message(SamplingMessage::new(
            mcp_runtime::Role::User,
            vec![SamplingContent::tool_result(
                "call-1",
                vec![json!({"type": "text", "text": "fn main() {}"})],
            )],
        ))
        .temperature(0.25)
        .model_preferences(
            ModelPreferences::default()
                .hint("claude")
                .hint("sonnet")
                .cost_priority(0.1)
                .speed_priority(0.5)
                .intelligence_priority(0.9),
        )
        .stop_sequence("\n\nHuman:")
        .stop_sequence("END")
        .include_context(IncludeContext::None)
        .tool(
            SamplingTool::new(
                "read_file",
                json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            )
            .description("Read a file of the workspace"),
        )
        .tool_choice(ToolChoice::mode(ToolChoiceMode::Auto))
        .metadata(json!({"trace": "abc"}))
}

/// The answer to the rich request: a tool call, several blocks.
pub fn rich_answer() -> CreateMessageResult {
    let mut input = serde_json::Map::new();
    input.insert("path".into(), json!("README.md"));
    CreateMessageResult::new(
        "test-model-1",
        vec![
            SamplingContent::text("Let me read the README."),
            SamplingContent::tool_use("call-2", "read_file", input),
        ],
    )
    .stop_reason(Some(StopReason::ToolUse))
}

/// Ask the client's model the rich request; the answer as JSON.
#[tool]
async fn rich(ctx: &Context) -> Result<String, ToolError> {
    match ctx.sample(rich_request()).await {
        Ok(answer) => Ok(serde_json::to_string(&answer).unwrap()),
        Err(e) => Err(ToolError::new(e.to_string())),
    }
}

/// The client's roots, `name=uri` each.
#[tool]
async fn workspace(ctx: &Context) -> Result<Vec<String>, ToolError> {
    match ctx.roots().await {
        Ok(roots) => Ok(roots
            .into_iter()
            .map(|r| format!("{}={}", r.name.unwrap_or_default(), r.uri))
            .collect()),
        Err(e) => Err(ToolError::new(e.to_string())),
    }
}

/// Summarize `text` with the client's model, as a task.
#[tool(task)]
async fn summarize_later(ctx: &Context, text: String) -> Result<String, ToolError> {
    let request = CreateMessageRequest::new(300).user(text);
    match ctx.sample(request).await {
        Ok(answer) => Ok(answer.text_content().unwrap_or_default()),
        Err(e) => Err(ToolError::new(e.to_string())),
    }
}

fn server() -> Server {
    Server::builder("sampling", "1")
        .tools(tools![summarize, rich, workspace, summarize_later])
        .build()
        .unwrap()
}

fn builder(stateless: bool) -> ClientBuilder {
    match stateless {
        true => Client::builder().stateless(),
        false => Client::builder(),
    }
}

/// A model that answers a request with tools with [`rich_answer`], any other with "summary: "
/// and the last message's text, keeping each request it saw.
fn model(
    seen: Arc<Mutex<Vec<CreateMessageRequest>>>,
) -> impl Fn(
    CreateMessageRequest,
) -> futures_util::future::Ready<Result<CreateMessageResult, ProtocolError>>
+ Send
+ Sync
+ 'static {
    move |request| {
        seen.lock().unwrap().push(request.clone());
        let last = request.messages.last().and_then(|m| m.content[0].as_text());
        let answer = if !request.tools.is_empty() {
            rich_answer()
        } else {
            CreateMessageResult::text("test-model-1", format!("summary: {}", last.unwrap_or("")))
        };
        futures_util::future::ready(Ok(answer))
    }
}

fn roots() -> Vec<Root> {
    vec![
        Root::new("file:///work/app").name("app"),
        Root::new("file:///work/lib"),
    ]
}

#[tokio::test]
async fn a_tool_samples_the_clients_model_in_both_eras() {
    for stateless in [false, true] {
        let seen = Arc::default();
        let client = builder(stateless)
            .on_sampling(model(Arc::clone(&seen)))
            .in_process(&server())
            .await
            .unwrap();
        let r = client
            .call_tool("summarize", json!({"text": "fn add(a: i32) {}"}))
            .await
            .unwrap();
        assert!(!r.is_error, "stateless {stateless}: {r:?}");
        assert_eq!(r.first_text(), Some("summary: fn add(a: i32) {}"));
        let seen = seen.lock().unwrap().clone();
        // Stateless: asked once, answered once, on the retry (no second question).
        assert_eq!(seen.len(), 1, "stateless {stateless}");
        assert_eq!(
            seen[0],
            CreateMessageRequest::new(300)
                .system_prompt("Summarize this code for a reviewer")
                .user("fn add(a: i32) {}")
        );
    }
}

#[tokio::test]
async fn the_typed_request_and_result_round_trip_in_both_eras() {
    for stateless in [false, true] {
        let seen = Arc::default();
        let client = builder(stateless)
            .on_sampling(model(Arc::clone(&seen)))
            .in_process(&server())
            .await
            .unwrap();
        let r = client.call_tool("rich", json!({})).await.unwrap();
        assert!(!r.is_error, "stateless {stateless}: {r:?}");
        let answer: CreateMessageResult = serde_json::from_str(r.first_text().unwrap()).unwrap();
        assert_eq!(answer, rich_answer());
        assert_eq!(seen.lock().unwrap().as_slice(), &[rich_request()]);
    }
    // The wire shape: one block stays an object, several an array; camelCase names.
    let wire = serde_json::to_value(rich_request()).unwrap();
    assert_eq!(wire["maxTokens"], 120);
    assert_eq!(wire["messages"][1]["content"]["type"], "tool_use");
    assert_eq!(wire["messages"][0]["content"][1]["mimeType"], "image/png");
    assert_eq!(wire["messages"][2]["content"]["toolUseId"], "call-1");
    assert_eq!(
        wire["modelPreferences"]["hints"],
        json!([{"name": "claude"}, {"name": "sonnet"}])
    );
    assert_eq!(wire["stopSequences"], json!(["\n\nHuman:", "END"]));
    assert_eq!(wire["toolChoice"], json!({"mode": "auto"}));
    assert_eq!(wire["includeContext"], "none");
    assert_eq!(wire["tools"][0]["inputSchema"]["type"], "object");
    let answer = serde_json::to_value(rich_answer()).unwrap();
    assert_eq!(answer["stopReason"], "toolUse");
    assert_eq!(answer["role"], "assistant");
}

#[tokio::test]
async fn a_task_samples_through_its_input_flow() {
    let seen: Arc<Mutex<Vec<CreateMessageRequest>>> = Arc::default();
    let client = Client::builder()
        .on_sampling(model(Arc::clone(&seen)))
        .in_process(&server())
        .await
        .unwrap();
    let started = client
        .call_tool_as_task("summarize_later", json!({"text": "later"}), None)
        .await
        .unwrap();
    let id = mcp_runtime::client::started_task_id(&started).expect("a task");
    let result = client.task_result(id).await.unwrap();
    assert_eq!(result["content"][0]["text"], "summary: later", "{result}");
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        &[CreateMessageRequest::new(300).user("later")]
    );
}

#[tokio::test]
async fn a_tool_reads_the_clients_roots_in_both_eras() {
    for stateless in [false, true] {
        let client = builder(stateless)
            .roots(roots())
            .in_process(&server())
            .await
            .unwrap();
        let r = client.call_tool("workspace", json!({})).await.unwrap();
        assert!(!r.is_error, "stateless {stateless}: {r:?}");
        assert_eq!(
            r.structured_content,
            Some(json!({"result": ["app=file:///work/app", "=file:///work/lib"]}))
        );
    }
}

#[tokio::test]
async fn stateless_questions_are_keyed_by_kind() {
    let client = Client::builder()
        .stateless()
        .roots(roots())
        .on_sampling(model(Arc::default()))
        .in_process(&server())
        .await
        .unwrap();
    for (tool, key, method) in [
        ("summarize", "sample-0", "sampling/createMessage"),
        ("workspace", "roots-0", "roots/list"),
    ] {
        let args = json!({"name": tool, "arguments": {"text": "x"}});
        let args = if tool == "workspace" {
            json!({"name": tool, "arguments": {}})
        } else {
            args
        };
        let r = client.request("tools/call", args).await.unwrap();
        assert_eq!(r["resultType"], "input_required", "{r}");
        assert_eq!(r["inputRequests"][key]["method"], method, "{r}");
    }
}

#[tokio::test]
async fn without_the_capability_the_tool_says_which() {
    for stateless in [false, true] {
        let client = builder(stateless).in_process(&server()).await.unwrap();
        for (tool, args, expected) in [
            (
                "summarize",
                json!({"text": "x"}),
                "Error executing tool summarize: the client does not support sampling (its model): \
                 it did not declare the `sampling` capability",
            ),
            (
                "workspace",
                json!({}),
                "Error executing tool workspace: the client does not support roots: it did not \
                 declare the `roots` capability",
            ),
        ] {
            let r = client.call_tool(tool, args).await.unwrap();
            assert!(r.is_error);
            assert_eq!(r.first_text(), Some(expected), "stateless {stateless}");
        }
    }
    // Before 2025-11-25 sampling has no tools: a request with tools is refused before it is sent.
    let seen: Arc<Mutex<Vec<CreateMessageRequest>>> = Arc::default();
    let client = Client::builder()
        .handshake("2025-06-18")
        .on_sampling(model(Arc::clone(&seen)))
        .in_process(&server())
        .await
        .unwrap();
    let r = client.call_tool("rich", json!({})).await.unwrap();
    assert_eq!(
        r.first_text(),
        Some(
            "Error executing tool rich: the client does not support tool use in sampling: it did \
             not declare the `sampling.tools` capability"
        )
    );
    assert!(seen.lock().unwrap().is_empty());
    let r = client
        .call_tool("summarize", json!({"text": "ok"}))
        .await
        .unwrap();
    assert_eq!(r.first_text(), Some("summary: ok"));
}

#[tokio::test]
async fn a_refusal_reaches_the_tool_or_the_caller() {
    let refuse = |_| async { Err(ProtocolError::new(-1, "the user declined")) };
    let client = Client::builder()
        .on_sampling(refuse)
        .in_process(&server())
        .await
        .unwrap();
    let r = client
        .call_tool("summarize", json!({"text": "x"}))
        .await
        .unwrap();
    assert_eq!(
        r.first_text(),
        Some(
            "Error executing tool summarize: the client refused the request: the user declined (-1)"
        )
    );
    // Stateless: an answer cannot be an error, so the client's call fails with it.
    let client = Client::builder()
        .stateless()
        .on_sampling(refuse)
        .in_process(&server())
        .await
        .unwrap();
    let e = client
        .call_tool("summarize", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(
        e.protocol().map(|e| e.message.as_str()),
        Some("the user declined")
    );
}

#[tokio::test]
async fn a_change_of_roots_reaches_the_server() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let server = Server::builder("roots", "1")
        .tools(tools![workspace])
        .on_roots_changed(move |changed| {
            let tx = tx.clone();
            async move {
                let client = changed.client_info().map(|c| c.name.clone());
                let _ = tx.send((client, changed.roots().await));
            }
        })
        .build()
        .unwrap();
    let client = Client::builder()
        .client_info("roots-client", "1")
        .roots(roots())
        .in_process(&server)
        .await
        .unwrap();
    client.set_roots(vec![Root::new("file:///elsewhere").name("other")]);
    let (name, roots) = tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv())
        .await
        .expect("the callback ran")
        .unwrap();
    assert_eq!(name.as_deref(), Some("roots-client"));
    assert_eq!(
        roots,
        Ok(vec![Root::new("file:///elsewhere").name("other")])
    );
    let r = client.call_tool("workspace", json!({})).await.unwrap();
    assert_eq!(
        r.structured_content,
        Some(json!({"result": ["other=file:///elsewhere"]}))
    );
    let _: Value = client.request("ping", json!({})).await.unwrap();
}
