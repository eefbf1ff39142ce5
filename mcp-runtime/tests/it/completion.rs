//! `completion/complete` in memory (over the stdio framing) in both eras: a `complete = fn`
//! (sync, and async reading state and the arguments already given), an enum's values by
//! themselves, the cap of 100 values with `total` and `hasMore`, and the errors.

use mcp_runtime::prelude::*;
use mcp_runtime::{Client, ClientError};
use serde_json::json;

struct Cities(Vec<&'static str>);

fn cities(request: &CompleteRequest) -> Vec<String> {
    let Some(known) = request.state::<Cities>() else {
        return Vec::new();
    };
    known
        .0
        .iter()
        .filter(|c| c.starts_with(request.value()))
        .map(|c| (*c).to_owned())
        .collect()
}

async fn streets(request: CompleteRequest) -> Result<Vec<String>, ToolError> {
    tokio::task::yield_now().await;
    let city = request.get("city").unwrap_or("nowhere");
    Ok((1..=3)
        .map(|n| format!("{city} street {n}"))
        .filter(|s| s.starts_with(request.value()))
        .collect())
}

fn numbers(request: &CompleteRequest) -> Vec<String> {
    (0..250)
        .map(|n| format!("{}{n}", request.value()))
        .collect()
}

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde", rename_all = "lowercase")]
enum Mode {
    Walk,
    Wander,
    Drive,
}

/// Plans a trip.
#[prompt]
fn trip(
    /// Where to.
    #[arg(complete = cities)]
    city: String,
    /// Which street.
    #[arg(complete = streets)]
    street: Option<String>,
    /// How.
    mode: Option<Mode>,
    /// How many.
    #[arg(complete = numbers)]
    count: Option<u32>,
    /// Free text: nothing completes it.
    note: Option<String>,
) -> String {
    format!("{city} {street:?} {} {count:?} {note:?}", mode.is_some())
}

fn server() -> Server {
    Server::builder("complete", "1.0.0")
        .state(Cities(vec!["Paris", "Parma", "Porto", "Oslo"]))
        .prompts(prompts![trip])
        .build()
        .unwrap()
}

async fn clients() -> Vec<Client> {
    vec![
        Client::in_process(&server()).await.unwrap(),
        Client::builder()
            .stateless()
            .in_process(&server())
            .await
            .unwrap(),
    ]
}

#[tokio::test]
async fn a_sync_completion_fn_reads_state_and_the_prefix() {
    for client in clients().await {
        let c = client.complete("trip", "city", "Par", []).await.unwrap();
        assert_eq!(c.values, ["Paris", "Parma"]);
        assert_eq!((c.total, c.has_more), (Some(2), false));
        let none = client.complete("trip", "city", "Z", []).await.unwrap();
        assert!(none.values.is_empty());
    }
}

#[tokio::test]
async fn an_async_completion_fn_sees_the_arguments_already_given() {
    for client in clients().await {
        let c = client
            .complete("trip", "street", "Oslo street", [("city", "Oslo")])
            .await
            .unwrap();
        assert_eq!(
            c.values,
            ["Oslo street 1", "Oslo street 2", "Oslo street 3"]
        );
        let c = client.complete("trip", "street", "", []).await.unwrap();
        assert_eq!(c.values[0], "nowhere street 1");
    }
}

#[tokio::test]
async fn enums_complete_from_their_variants_by_prefix() {
    for client in clients().await {
        let c = client.complete("trip", "mode", "w", []).await.unwrap();
        assert_eq!(c.values, ["walk", "wander"]);
        let all = client.complete("trip", "mode", "", []).await.unwrap();
        assert_eq!(all.values, ["walk", "wander", "drive"]);
        let free = client
            .complete("trip", "note", "anything", [])
            .await
            .unwrap();
        assert!(free.values.is_empty());
    }
}

#[tokio::test]
async fn answers_are_capped_at_one_hundred_values() {
    for client in clients().await {
        let c = client.complete("trip", "count", "7", []).await.unwrap();
        assert_eq!(c.values.len(), 100);
        assert_eq!(c.values[0], "70");
        assert_eq!((c.total, c.has_more), (Some(250), true));
    }
}

#[tokio::test]
async fn unknown_prompts_and_arguments_are_invalid_params() {
    for client in clients().await {
        let code = |e: ClientError| e.protocol().map(|p| p.code);
        let e = client.complete("nope", "city", "", []).await.unwrap_err();
        assert_eq!(code(e), Some(-32602));
        let e = client.complete("trip", "planet", "", []).await.unwrap_err();
        assert_eq!(code(e), Some(-32602));
        let by_ref = |reference: serde_json::Value| {
            let argument = json!({"name": "title", "value": ""});
            client.request(
                "completion/complete",
                json!({"ref": reference, "argument": argument}),
            )
        };
        let bad_ref = by_ref(json!({"type": "ref/tool", "name": "x"})).await;
        assert_eq!(code(bad_ref.unwrap_err()), Some(-32602));
        // This server publishes no resource template: the reference names nothing.
        let resource = by_ref(json!({"type": "ref/resource", "uri": "notes://{title}"})).await;
        assert_eq!(code(resource.unwrap_err()), Some(-32602));
    }
}

#[tokio::test]
async fn the_completions_capability_is_declared_when_something_completes() {
    /// Nothing to complete here.
    #[prompt]
    fn plain(text: String) -> String {
        text
    }
    let with = Client::in_process(&server()).await.unwrap();
    assert!(
        with.session()
            .unwrap()
            .capabilities
            .get("completions")
            .is_some()
    );
    let server = Server::builder("p", "1").prompts(prompts![plain]).build();
    let params = json!({"ref": {"type": "ref/prompt", "name": "plain"}, "argument": {"name": "text", "value": ""}});
    let declared = test_support::declares(&server.unwrap(), "completion/complete", params).await;
    assert_eq!(declared, (true, false, Err(Some(-32601))));
}

#[test]
fn a_completion_fn_can_be_tested_directly() {
    let request = CompleteRequest::new("street", "Par").with_argument("city", "Par");
    assert_eq!(request.get("city"), Some("Par"));
    assert!(cities(&request).is_empty(), "no state outside a server");
}
