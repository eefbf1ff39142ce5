//! `#[prompt]` end to end, in memory (over the stdio framing `serve_io` runs) in both eras:
//! `prompts/list` and its pages, `prompts/get` with string arguments read into typed parameters,
//! -32602 for an unknown prompt and for a bad argument, every content kind, state and context
//! injection, an elicitation in the middle of `prompts/get`, the capabilities, and build errors.

use mcp_runtime::client::{ElicitationAnswer, ElicitationRequest};
use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, Client, ClientBuilder, ClientError, Role};
use serde_json::{Value, json};

/// Greets someone.
#[prompt(title = "Greeting")]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Say hello to {name}.")
}

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde", rename_all = "lowercase")]
enum Tone {
    Formal,
    Casual,
}

/// Writes a letter.
#[prompt]
async fn letter(
    /// To whom.
    #[arg(min_length = 2)]
    to: String,
    /// How many paragraphs.
    #[arg(minimum = 1, maximum = 5)]
    paragraphs: u8,
    /// The tone.
    tone: Option<Tone>,
    /// Sign it.
    signed: Option<bool>,
) -> Vec<PromptMessage> {
    let tone = match tone {
        Some(Tone::Formal) => "formal",
        Some(Tone::Casual) => "casual",
        None => "neutral",
    };
    vec![
        PromptMessage::user(format!(
            "Write {paragraphs} {tone} paragraphs to {to}; signed: {signed:?}."
        )),
        PromptMessage::assistant("Dear reader,"),
    ]
}

/// Shows a picture, a sound and a document.
#[prompt(name = "media")]
fn media_prompt() -> GetPromptResult {
    GetPromptResult::new(
        "three kinds of content",
        vec![
            PromptMessage::user(Content::image_bytes(b"png", "image/png")),
            PromptMessage::user(Content::audio_bytes(b"wav", "audio/wav")),
            PromptMessage::user(Content::embedded_text("notes://a", "text/plain", "A note")),
        ],
    )
}

struct Signature(String);

/// Signs with the server's signature.
#[prompt]
fn signed(sig: &Signature, ctx: &Context) -> Result<PromptMessage, ToolError> {
    if ctx.tool_name() != "signed" {
        return Err(ToolError::new("wrong name in the context"));
    }
    Ok(PromptMessage::assistant(format!("-- {}", sig.0)))
}

/// Fails on purpose.
#[prompt]
fn refuses(
    #[arg(one_of = ["visible", "hidden", "panic"])] how: String,
) -> Result<String, ToolError> {
    match how.as_str() {
        "visible" => Err(ToolError::new("not today")),
        "hidden" => Err(ToolError::internal("the database is down")),
        _ => panic!("a prompt panicked"),
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
struct Topic {
    topic: String,
}

/// Asks the user for a topic first.
#[prompt]
async fn ask_topic(ctx: &Context) -> Result<String, ToolError> {
    match ctx.elicit::<Topic>("Which topic?").await {
        Ok(Elicitation::Accept(t)) => Ok(format!("Talk about {}.", t.topic)),
        Ok(_) => Ok("Talk about anything.".into()),
        Err(e) => Err(e.into_tool_error("this prompt asks the user for a topic")),
    }
}

fn builder() -> ServerBuilder {
    let all = prompts![greet, letter, media_prompt, signed, refuses, ask_topic];
    Server::builder("prompts", "1.0.0")
        .state(Signature("Ada".into()))
        .prompts(all)
}

fn server() -> Server {
    builder().build().unwrap()
}

fn eras() -> [ClientBuilder; 2] {
    [Client::builder(), Client::builder().stateless()]
}

/// A client of [`server`] in each era.
async fn clients() -> Vec<Client> {
    let mut out = Vec::new();
    for builder in eras() {
        out.push(builder.in_process(&server()).await.unwrap());
    }
    out
}

fn answering(req: ElicitationRequest) -> std::future::Ready<ElicitationAnswer> {
    assert_eq!(req.message, "Which topic?");
    std::future::ready(ElicitationAnswer::Accept(json!({"topic": "tides"})))
}

fn code(e: &ClientError) -> Option<i64> {
    e.protocol().map(|p| p.code)
}

#[tokio::test]
async fn prompts_are_listed_with_their_arguments() {
    for client in clients().await {
        let list = client.list_prompts().await.unwrap();
        let names: Vec<&str> = list.iter().filter_map(|p| p["name"].as_str()).collect();
        assert_eq!(
            names,
            ["greet", "letter", "media", "signed", "refuses", "ask_topic"]
        );
        assert_eq!(
            list[0],
            json!({"name": "greet", "title": "Greeting", "description": "Greets someone.",
                   "arguments": [{"name": "name", "description": "Who to greet.", "required": true}]})
        );
        let args = &list[1]["arguments"];
        let required: Vec<(&str, bool)> = args
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["name"].as_str().unwrap(),
                    a["required"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            required,
            [
                ("to", true),
                ("paragraphs", true),
                ("tone", false),
                ("signed", false)
            ]
        );
        assert!(list[2].get("arguments").is_none(), "{}", list[2]);
    }
}

#[tokio::test]
async fn prompts_list_pages_follow_the_cursor() {
    let server = builder().page_size(4).build().unwrap();
    for builder in eras() {
        let client = builder.in_process(&server).await.unwrap();
        let first = client.request("prompts/list", json!({})).await.unwrap();
        assert_eq!(first["prompts"].as_array().unwrap().len(), 4);
        assert_eq!(first["nextCursor"], "prompts-4");
        let second = client
            .request("prompts/list", json!({"cursor": "prompts-4"}))
            .await
            .unwrap();
        assert_eq!(second["prompts"].as_array().unwrap().len(), 2);
        assert!(second.get("nextCursor").is_none());
        let bad = client
            .request("prompts/list", json!({"cursor": "tools-4"}))
            .await
            .unwrap_err();
        assert_eq!(code(&bad), Some(-32602));
        assert_eq!(client.list_prompts().await.unwrap().len(), 6);
    }
}

#[tokio::test]
async fn string_arguments_become_typed_parameters() {
    for client in clients().await {
        let got = client.get_prompt("greet", [("name", "Ada")]).await.unwrap();
        assert_eq!(got.messages, [PromptMessage::user("Say hello to Ada.")]);
        assert_eq!(got.description.as_deref(), Some("Greets someone."));

        let args = [
            ("to", "Bo"),
            ("paragraphs", "3"),
            ("tone", "casual"),
            ("signed", "true"),
        ];
        let got = client.get_prompt("letter", args).await.unwrap();
        assert_eq!(got.messages.len(), 2);
        assert_eq!(
            got.messages[0].content,
            Content::text("Write 3 casual paragraphs to Bo; signed: Some(true).")
        );
        assert_eq!(got.messages[1].role, Role::Assistant);
        let got = client
            .get_prompt("letter", [("to", "Bo"), ("paragraphs", "1")])
            .await
            .unwrap();
        assert_eq!(
            got.messages[0].content,
            Content::text("Write 1 neutral paragraphs to Bo; signed: None.")
        );
    }
}

#[tokio::test]
async fn bad_arguments_are_invalid_params_naming_the_argument_and_the_rule() {
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[("to", "Bo"), ("paragraphs", "9")],
            "Invalid arguments for prompt letter: /paragraphs: must be <= 5 (got 9)",
        ),
        (&[("to", "Bo"), ("paragraphs", "three")], "/paragraphs: "),
        (&[("to", "B"), ("paragraphs", "1")], "/to: "),
        (&[("to", "Bo")], "paragraphs"),
        (
            &[("to", "Bo"), ("paragraphs", "1"), ("tone", "angry")],
            "/tone: ",
        ),
    ];
    for client in clients().await {
        for (args, expected) in cases {
            let e = client
                .get_prompt("letter", args.iter().copied())
                .await
                .unwrap_err();
            assert_eq!(code(&e), Some(-32602), "{args:?}: {e}");
            let message = &e.protocol().unwrap().message;
            assert!(message.contains(expected), "{args:?}: {message}");
        }
        let unknown = client.get_prompt("nope", []).await.unwrap_err();
        assert_eq!(code(&unknown), Some(-32602));
        assert_eq!(unknown.protocol().unwrap().message, "Unknown prompt: nope");
        let not_strings = client
            .request(
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": 3}}),
            )
            .await
            .unwrap_err();
        assert_eq!(code(&not_strings), Some(-32602));
    }
}

#[tokio::test]
async fn every_content_kind_and_injection_reach_the_client() {
    for client in clients().await {
        let raw = client.get_prompt_raw("media", []).await.unwrap();
        assert_eq!(raw["description"], "three kinds of content");
        let kinds: Vec<&str> = raw["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"]["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["image", "audio", "resource"]);
        assert_eq!(raw["messages"][0]["content"]["data"], "cG5n");
        assert_eq!(
            raw["messages"][2]["content"]["resource"]["uri"],
            "notes://a"
        );
        let signed = client.get_prompt("signed", []).await.unwrap();
        assert_eq!(signed.messages, [PromptMessage::assistant("-- Ada")]);
    }
}

#[tokio::test]
async fn a_failing_body_is_a_json_rpc_error_and_internal_failures_stay_hidden() {
    for client in clients().await {
        let visible = client
            .get_prompt("refuses", [("how", "visible")])
            .await
            .unwrap_err();
        let p = visible.protocol().unwrap();
        assert_eq!(
            (p.code, p.message.as_str()),
            (-32603, "Error rendering prompt refuses: not today")
        );
        for how in ["hidden", "panic"] {
            let e = client
                .get_prompt("refuses", [("how", how)])
                .await
                .unwrap_err();
            let p = e.protocol().unwrap();
            assert_eq!(p.message, "Error rendering prompt refuses", "{how}");
            assert!(
                p.data.as_ref().is_some_and(|d| d["errorId"].is_string()),
                "{how}"
            );
        }
        // The server still serves.
        assert!(client.get_prompt("greet", [("name", "Ada")]).await.is_ok());
    }
}

#[tokio::test]
async fn a_prompt_asks_the_user_mid_get_in_both_eras() {
    for builder in eras() {
        let client = builder
            .elicitation_handler(answering)
            .in_process(&server())
            .await
            .unwrap();
        let got = client.get_prompt("ask_topic", []).await.unwrap();
        assert_eq!(got.messages, [PromptMessage::user("Talk about tides.")]);
    }
}

#[tokio::test]
async fn the_stateless_era_answers_input_required_then_the_prompt() {
    let client = Client::builder()
        .stateless()
        .in_process(&server())
        .await
        .unwrap();
    let meta = |caps: Value| {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": caps,
        })
    };
    let caps = json!({"elicitation": {"form": {}}});
    let first = client
        .request_unstamped(
            "prompts/get",
            json!({"name": "ask_topic", "_meta": meta(caps.clone())}),
        )
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required");
    let ask = &first["inputRequests"]["elicit-0"];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "Which topic?");
    let retry = json!({
        "name": "ask_topic",
        "_meta": meta(caps),
        "inputResponses": {"elicit-0": {"action": "accept", "content": {"topic": "rain"}}},
    });
    let second = client
        .request_unstamped("prompts/get", retry)
        .await
        .unwrap();
    assert_eq!(second["messages"][0]["content"]["text"], "Talk about rain.");
}

#[tokio::test]
async fn capabilities_are_declared_only_when_there_are_prompts() {
    let client = Client::in_process(&server()).await.unwrap();
    let session = client.session().unwrap().clone();
    let declared = &session.capabilities;
    assert_eq!(declared["prompts"], json!({"listChanged": false}));
    assert!(declared.get("completions").is_some(), "{declared}");

    #[tool]
    /// Adds.
    fn add(a: i64, b: i64) -> i64 {
        a + b
    }
    let tools_only = Server::builder("t", "1").tools(tools![add]).build();
    let declared = test_support::declares(&tools_only.unwrap(), "prompts/list", json!({})).await;
    assert_eq!(declared, (false, false, Err(Some(-32601))));
}

#[test]
fn build_errors_name_missing_state_and_duplicate_names() {
    let e = Server::builder("p", "1")
        .prompts(prompts![signed])
        .build()
        .unwrap_err();
    assert!(
        matches!(&e, BuildError::MissingState { tool, .. } if tool == "signed"),
        "{e}"
    );
    let e = Server::builder("p", "1")
        .prompts(prompts![greet])
        .prompts(prompts![greet])
        .build()
        .unwrap_err();
    let BuildError::Prompt(p) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(p.prompt, "greet");
    assert!(p.problem.contains("prompts.rs"), "{e}");
}
