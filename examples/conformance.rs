//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) runs its
//! server scenarios against: one `#[tool]` function per tool name the suite calls.
//!
//! Run it over HTTP: `cargo run -p examples --bin conformance -- --http 127.0.0.1:3001`, then
//! `npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp`; `.ci/conformance`
//! does both for the three suites CI runs. Every prompt fixture is a `#[prompt]` function;
//! resources are still answered with empty lists (see `conformance/expected-failures.txt`).

#[path = "conformance_tasks.rs"]
mod conformance_tasks;

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::{ClientRequestError, Contents, ProtocolError, Tool};
use serde_json::{Map, Value, json};

/// A 1x1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file with no samples: 8 kHz, 16-bit mono.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

// ---- content ----

/// Return a simple text.
#[tool]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// Return an image.
#[tool]
fn test_image_content() -> Content {
    Content::image(PNG, "image/png")
}

/// Return an audio clip.
#[tool]
fn test_audio_content() -> Content {
    Content::audio(WAV, "audio/wav")
}

/// Return an embedded text resource.
#[tool]
fn test_embedded_resource() -> Content {
    Content::embedded_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Return a text, an image and an embedded resource.
#[tool]
fn test_multiple_content_types() -> Contents {
    Contents(vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG, "image/png"),
        Content::embedded_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ])
}

/// Always fail.
#[tool]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

// ---- logging and progress ----

/// Send three info log messages, 50 ms apart.
#[tool]
async fn test_tool_with_logging(ctx: &Context) -> String {
    log_three(ctx).await
}

/// Send three info log messages, 50 ms apart (the stateless era's name).
#[tool]
async fn test_logging_tool(ctx: &Context) -> String {
    log_three(ctx).await
}

async fn log_three(ctx: &Context) -> String {
    ctx.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Tool with logging executed successfully".into()
}

/// Report progress 0, 50 and 100 of 100, 50 ms apart.
#[tool]
async fn test_tool_with_progress(ctx: &Context) -> String {
    for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(done, Some(100.0), None);
    }
    "Tool with progress executed successfully".into()
}

// ---- requests to the client (handshake era) ----

/// Ask the client's LLM to answer `prompt`.
#[tool]
async fn test_sampling(ctx: &Context, prompt: String) -> Result<String, ToolError> {
    if !ctx.client_capabilities().sampling() {
        return Err(ToolError::new("the client does not support sampling"));
    }
    let params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": 100
    });
    let result = ctx
        .client_request("sampling/createMessage", params)
        .await
        .map_err(asked)?;
    let text = result["content"]["text"].as_str().unwrap_or_default();
    Ok(format!("LLM response: {text}"))
}

/// Ask the user for a username and an email address, showing `message`.
#[tool]
async fn test_elicitation(ctx: &Context, message: String) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let answer = elicit(ctx, &message, schema).await?;
    Ok(format!(
        "User response: <action: {}, content: {}>",
        answer["action"].as_str().unwrap_or_default(),
        answer.get("content").cloned().unwrap_or(json!({}))
    ))
}

/// Ask for one value of each primitive type, each with a default (SEP-1034).
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: &Context) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    });
    let answer = elicit(
        ctx,
        "Please review and update the form fields with defaults",
        schema,
    )
    .await?;
    Ok(completed(&answer))
}

/// Ask with the five enum shapes of SEP-1330.
#[tool]
async fn test_elicitation_sep1330_enums(ctx: &Context) -> Result<String, ToolError> {
    let titled = |pairs: &[(&str, &str)]| -> Vec<Value> {
        pairs
            .iter()
            .map(|(c, t)| json!({"const": c, "title": t}))
            .collect()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Choose an option",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Choose a titled option",
                "oneOf": titled(&[("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")])
            },
            "legacyEnum": {
                "type": "string",
                "description": "Choose a legacy option",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Choose multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Choose multiple titled options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"anyOf": titled(&[("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])}
            }
        },
        "required": []
    });
    let answer = elicit(ctx, "Please select options from the enum fields", schema).await?;
    Ok(completed(&answer))
}

async fn elicit(ctx: &Context, message: &str, schema: Value) -> Result<Value, ToolError> {
    if !ctx.client_capabilities().elicitation() {
        return Err(ToolError::new("the client does not support elicitation"));
    }
    ctx.client_request(
        "elicitation/create",
        json!({"message": message, "requestedSchema": schema}),
    )
    .await
    .map_err(asked)
}

fn completed(answer: &Value) -> String {
    format!(
        "Elicitation completed: action={}, content={}",
        answer["action"].as_str().unwrap_or_default(),
        answer.get("content").cloned().unwrap_or(json!({}))
    )
}

fn asked(error: ClientRequestError) -> ToolError {
    ToolError::new(format!("the request to the client failed: {error}"))
}

// ---- JSON Schema 2020-12 ----

/// A street address.
#[derive(Debug, Deserialize, JsonSchema)]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

/// Tool with JSON Schema 2020-12 features
#[tool]
#[allow(non_snake_case)]
fn json_schema_2020_12_tool(
    name: Option<String>,
    address: Option<Address>,
    contactMethod: Option<String>,
    phone: Option<String>,
    email: Option<String>,
) -> String {
    let reach = match contactMethod.as_deref() {
        Some("phone") => phone.unwrap_or_default(),
        _ => email.or(phone).unwrap_or_default(),
    };
    let city = address
        .and_then(|a| a.city.or(a.street))
        .unwrap_or_default();
    format!(
        "{} ({reach}) {city}",
        name.unwrap_or_else(|| "anonymous".into())
    )
}

/// The schema the suite expects, keywords Rust types do not express included.
fn schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

// ---- the stateless era (2026-07-28) ----

/// Echo the region, which the client also sends as the `Mcp-Param-Region` header (SEP-2243).
#[tool]
fn test_custom_headers(region: String) -> String {
    format!("region: {region}")
}

/// The derived schema, with `region` marked to travel in a header too.
fn schema_custom_headers(tool: &Tool) -> Value {
    let mut schema = tool.input_schema().clone();
    schema["properties"]["region"]["x-mcp-header"] = "Region".into();
    schema
}

/// Needs the sampling capability; without it the call fails with -32021.
#[tool]
fn test_missing_capability(ctx: &Context) -> Result<String, ToolError> {
    if !ctx.client_capabilities().sampling() {
        // MCP's "missing required client capability" error code.
        return Err(
            ProtocolError::new(-32021, "Missing required client capability: sampling")
                .with_data(json!({"requiredCapabilities": {"sampling": {}}}))
                .into(),
        );
    }
    Ok("the client declared sampling".into())
}

/// Ask the user for a name; in the stateless era the question comes back as `input_required`.
#[tool]
async fn test_streaming_elicitation(ctx: &Context) -> Result<String, ToolError> {
    #[derive(Deserialize, JsonSchema)]
    struct Name {
        name: String,
    }
    match ctx.elicit::<Name>("What is your name?").await {
        Ok(Elicitation::Accept(n)) => Ok(format!("Hello, {}!", n.name)),
        Ok(_) => Ok("No name given.".into()),
        Err(e) => Err(e.into_tool_error("this tool needs the elicitation capability")),
    }
}

/// Keys that sign `requestState`, so that a state that went through the client is verified
/// before it is trusted. Per process: replicas behind a load balancer would share one key.
struct StateKeys(std::collections::hash_map::RandomState);

impl StateKeys {
    fn seal(&self, payload: &str) -> String {
        format!("{payload}.{:016x}", self.mac(payload))
    }

    /// The payload of a sealed state, or -32602 when it was altered.
    fn open<'s>(&self, state: Option<&'s str>) -> Result<Option<&'s str>, ToolError> {
        let Some(state) = state else {
            return Ok(None);
        };
        let valid = state.rsplit_once('.').filter(|(payload, mac)| {
            u64::from_str_radix(mac, 16).is_ok_and(|m| m == self.mac(payload))
        });
        match valid {
            Some((payload, _)) => Ok(Some(payload)),
            None => Err(ProtocolError::invalid_params(
                "Invalid params: requestState failed its integrity check",
            )
            .into()),
        }
    }

    fn mac(&self, payload: &str) -> u64 {
        let mut h = self.0.build_hasher();
        h.write(payload.as_bytes());
        h.finish()
    }
}

fn elicit_request(message: &str, field: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {field: {"type": kind}},
                "required": [field]
            }
        }
    })
}

fn sampling_request(text: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens
        }
    })
}

fn roots_request() -> Value {
    json!({"method": "roots/list", "params": {}})
}

fn requests(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}

/// Asks for one input, `ask` under `key`, with `state` as the `requestState` to come back.
async fn require_one(
    ctx: &Context,
    key: &'static str,
    ask: Value,
    state: Option<String>,
) -> ToolError {
    ctx.require_input(requests([(key, ask)]), state).await
}

/// Answers `answer` once the confirmation comes back with the sealed `state`; asks for it (with
/// that state sealed) until then.
async fn confirm_with_state(
    ctx: &Context,
    keys: &StateKeys,
    state: &str,
    answer: &str,
) -> Result<String, ToolError> {
    if keys.open(ctx.request_state())? == Some(state) && ctx.input_response("confirm").is_some() {
        return Ok(answer.into());
    }
    let ask = elicit_request("Please confirm", "ok", "boolean");
    Err(require_one(ctx, "confirm", ask, Some(keys.seal(state))).await)
}

/// The accepted form's field `field`, when `key` was answered with one.
fn accepted<'a>(ctx: &'a Context, key: &str, field: &str) -> Result<Option<&'a Value>, ToolError> {
    match ctx.input_response(key) {
        None => Ok(None),
        Some(Value::Object(answer)) => Ok(answer
            .get("content")
            .and_then(|c| c.get(field))
            .filter(|_| answer.get("action").and_then(Value::as_str) == Some("accept"))),
        Some(_) => Err(ProtocolError::invalid_params(format!(
            "Invalid params: inputResponses.{key} must be an object"
        ))
        .into()),
    }
}

/// Ask for the user's name, then greet them.
#[tool]
async fn test_input_required_result_elicitation(ctx: &Context) -> Result<String, ToolError> {
    if let Some(name) = accepted(ctx, "user_name", "name")? {
        return Ok(format!("Hello, {}!", name.as_str().unwrap_or_default()));
    }
    let ask = elicit_request("What is your name?", "name", "string");
    Err(require_one(ctx, "user_name", ask, None).await)
}

/// Ask the client's LLM a question, then repeat its answer.
#[tool]
async fn test_input_required_result_sampling(ctx: &Context) -> Result<String, ToolError> {
    if let Some(answer) = ctx.input_response("capital_question") {
        let text = answer["content"]["text"].as_str().unwrap_or_default();
        return Ok(format!("The model answered: {text}"));
    }
    let ask = sampling_request("What is the capital of France?", 100);
    Err(require_one(ctx, "capital_question", ask, None).await)
}

/// Ask for the client's roots, then list them.
#[tool]
async fn test_input_required_result_list_roots(ctx: &Context) -> Result<String, ToolError> {
    if let Some(answer) = ctx.input_response("client_roots") {
        let uris: Vec<&str> = answer["roots"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["uri"].as_str())
            .collect();
        return Ok(format!("Roots: {}", uris.join(", ")));
    }
    Err(require_one(ctx, "client_roots", roots_request(), None).await)
}

/// Ask for a confirmation with a signed `requestState`; answer `state-ok` once both come back.
#[tool]
async fn test_input_required_result_request_state(
    ctx: &Context,
    keys: &StateKeys,
) -> Result<String, ToolError> {
    confirm_with_state(
        ctx,
        keys,
        "confirm",
        "state-ok: the requestState came back intact",
    )
    .await
}

/// Ask for a name, a greeting and the roots at once.
#[tool]
async fn test_input_required_result_multiple_inputs(
    ctx: &Context,
    keys: &StateKeys,
) -> Result<String, ToolError> {
    let state = keys.open(ctx.request_state())?;
    let keys_given = ["user_name", "greeting", "client_roots"]
        .iter()
        .all(|k| ctx.input_response(k).is_some());
    if state == Some("multiple") && keys_given {
        let name = accepted(ctx, "user_name", "name")?.and_then(Value::as_str);
        return Ok(format!(
            "All inputs received for {}",
            name.unwrap_or("someone")
        ));
    }
    let asks = requests([
        (
            "user_name",
            elicit_request("What is your name?", "name", "string"),
        ),
        ("greeting", sampling_request("Generate a greeting", 50)),
        ("client_roots", roots_request()),
    ]);
    Err(ctx.require_input(asks, Some(keys.seal("multiple"))).await)
}

/// Ask for a name, then a colour, carrying the name in the `requestState` between rounds.
#[tool]
async fn test_input_required_result_multi_round(
    ctx: &Context,
    keys: &StateKeys,
) -> Result<String, ToolError> {
    let state = keys.open(ctx.request_state())?;
    if let Some(name_hex) = state.and_then(|s| s.strip_prefix("round2:"))
        && let Some(color) = accepted(ctx, "step2", "color")?
    {
        let name = String::from_utf8(hex_decode(name_hex)).unwrap_or_default();
        return Ok(format!(
            "{name} likes {}",
            color.as_str().unwrap_or_default()
        ));
    }
    if state == Some("round1")
        && let Some(name) = accepted(ctx, "step1", "name")?
    {
        let name = name.as_str().unwrap_or_default();
        let ask = elicit_request("Step 2: What is your favorite color?", "color", "string");
        let next = keys.seal(&format!("round2:{}", hex_encode(name.as_bytes())));
        return Err(require_one(ctx, "step2", ask, Some(next)).await);
    }
    let ask = elicit_request("Step 1: What is your name?", "name", "string");
    Err(require_one(ctx, "step1", ask, Some(keys.seal("round1"))).await)
}

/// Ask for a confirmation with a signed `requestState`; an altered state is refused.
#[tool]
async fn test_input_required_result_tampered_state(
    ctx: &Context,
    keys: &StateKeys,
) -> Result<String, ToolError> {
    confirm_with_state(
        ctx,
        keys,
        "tamper-check",
        "the requestState came back intact",
    )
    .await
}

/// Ask only what the client declared it can answer.
#[tool]
async fn test_input_required_result_capabilities(ctx: &Context) -> Result<String, ToolError> {
    if ctx.input_response("greeting").is_some() || ctx.input_response("user_name").is_some() {
        return Ok("inputs received".into());
    }
    let caps = ctx.client_capabilities();
    let mut asks = Map::new();
    if caps.sampling() {
        asks.insert(
            "greeting".into(),
            sampling_request("Generate a greeting", 50),
        );
    }
    if caps.elicitation() {
        asks.insert(
            "user_name".into(),
            elicit_request("What is your name?", "name", "string"),
        );
    }
    if asks.is_empty() {
        return Ok("the client declared nothing this tool could ask".into());
    }
    Err(ctx.require_input(asks, None).await)
}

fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex_decode(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

// ---- prompts ----

/// A simple prompt without arguments.
#[prompt]
fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with two arguments, substituted into its text.
#[prompt]
fn test_prompt_with_arguments(
    /// First test argument.
    #[arg(complete = cities)]
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// The completion fixture's values for `arg1`, by prefix.
fn cities(request: &CompleteRequest) -> Vec<String> {
    let all = ["paris", "park", "party", "test", "testing"];
    let matching = all.into_iter().filter(|c| c.starts_with(request.value()));
    matching.map(str::to_owned).collect()
}

/// A prompt embedding the resource it is given.
#[prompt]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    let text = "Embedded resource content for testing.";
    vec![
        PromptMessage::user(Content::embedded_text(resource_uri, "text/plain", text)),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt showing an image.
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::image(PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
struct UserContext {
    context: String,
}

/// A prompt that asks the user for its context first: in the stateless era an `input_required`
/// result, in the handshake era an elicitation request in the middle of `prompts/get`.
#[prompt]
async fn test_input_required_result_prompt(ctx: &Context) -> Result<String, ToolError> {
    let question = "What context should the prompt use?";
    let context = if ctx.protocol_version() == Some("2026-07-28") {
        match accepted(ctx, "user_context", "context")? {
            Some(c) => c.as_str().unwrap_or_default().to_owned(),
            None => {
                let ask = elicit_request(question, "context", "string");
                return Err(require_one(ctx, "user_context", ask, None).await);
            }
        }
    } else {
        match ctx.elicit::<UserContext>(question).await {
            Ok(Elicitation::Accept(c)) => c.context,
            Ok(_) => "none".into(),
            Err(e) => return Err(e.into_tool_error("this prompt asks the user for its context")),
        }
    };
    Ok(format!("Write with this context in mind: {context}"))
}

// ---- resources: the suite's fixtures, through `#[resource]` -------------------------------------

/// The bytes of [`PNG`], served as a blob.
const PNG_BYTES: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A static text resource.
#[resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
fn static_text() -> String {
    "This is the content of the static text resource.".into()
}

/// A static binary resource (a 1x1 red PNG).
#[resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
fn static_binary() -> Vec<u8> {
    PNG_BYTES.to_vec()
}

/// A resource clients subscribe to.
#[resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
fn watched_resource() -> String {
    "Watched resource content.".into()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateData {
    id: String,
    template_test: bool,
    data: String,
}

/// Data for one id, from a template.
#[resource(
    uri = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json"
)]
fn template_data(id: String) -> TemplateData {
    TemplateData {
        data: format!("Data for ID: {id}"),
        template_test: true,
        id,
    }
}

/// The server: every tool above, the 2020-12 tool with its hand-written schema, every prompt
/// fixture and every resource fixture.
pub fn server() -> Server {
    let table = tools![
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_error_handling,
        test_tool_with_logging,
        test_logging_tool,
        test_tool_with_progress,
        test_sampling,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        json_schema_2020_12_tool,
        test_missing_capability,
        test_custom_headers,
        test_streaming_elicitation,
        test_input_required_result_elicitation,
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_request_state,
        test_input_required_result_multiple_inputs,
        test_input_required_result_multi_round,
        test_input_required_result_tampered_state,
        test_input_required_result_capabilities,
    ];
    let tools = table.iter().cloned().map(|tool: Tool| match tool.name() {
        "json_schema_2020_12_tool" => tool
            .with_input_schema(schema_2020_12())
            .expect("the 2020-12 schema compiles"),
        "test_custom_headers" => {
            let schema = schema_custom_headers(&tool);
            tool.with_input_schema(schema).expect("the schema compiles")
        }
        _ => tool,
    });
    Server::builder("mcp-tools-conformance", "1.0.0")
        .state(StateKeys(Default::default()))
        .tools(mcp_runtime::ToolTable::from_tools(
            tools.collect::<Vec<_>>(),
        ))
        .prompts(prompts![
            test_simple_prompt,
            test_prompt_with_arguments,
            test_prompt_with_embedded_resource,
            test_prompt_with_image,
            test_input_required_result_prompt,
        ])
        .tools(conformance_tasks::tools())
        .resources(resources![
            static_text,
            static_binary,
            watched_resource,
            template_data
        ])
        .build()
        .unwrap_or_else(|e| panic!("the server cannot be built: {e}"))
}

fn main() -> std::process::ExitCode {
    examples::init_logging();
    mcp_runtime::cli::run(server())
}
