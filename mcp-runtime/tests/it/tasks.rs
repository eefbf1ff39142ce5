//! Tasks (`#[tool(task)]`) in memory in both eras, and over Streamable HTTP in the stateless era:
//! create, status, result, input, cancel, list, TTLs and limits. (Over stdio: the examples'
//! `tests/it/tasks_stdio.rs`, on the conformance server's fixtures.)

use std::time::Duration;

use mcp_runtime::client::{ElicitationAnswer, started_task_id};
use mcp_runtime::prelude::*;
use mcp_runtime::{BuildError, Client, ClientError, Elicitation, ServerBuilder};
use serde_json::{Value, json};
use test_support::task_calls::{start, wait_for};

/// Sleep `ms`, then say so.
#[tool(task)]
async fn slow(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pick {
    color: String,
}

/// Ask the user for a color mid-task.
#[tool(task)]
async fn ask(ctx: &Context) -> Result<String, ToolError> {
    ctx.progress(1.0, Some(2.0), Some("asking"));
    match ctx.elicit::<Pick>("Which color?").await {
        Ok(Elicitation::Accept(p)) => Ok(format!("picked {}", p.color)),
        Ok(_) => Ok("no color".into()),
        Err(e) => Err(e.into_tool_error("could not ask")),
    }
}

/// Only ever a task.
#[tool(task = "required")]
async fn must() -> String {
    "done".into()
}

/// Never a task.
#[tool]
fn plain() -> String {
    "plain".into()
}

fn builder() -> ServerBuilder {
    Server::builder("tasks", "1.0.0").tools(tools![slow, ask, must, plain])
}

async fn handshake(server: &Server) -> Client {
    Client::builder()
        .elicitation_handler(|_| async { ElicitationAnswer::Accept(json!({"color": "teal"})) })
        .in_process(server)
        .await
        .unwrap()
}

async fn stateless(server: &Server) -> Client {
    Client::builder()
        .stateless()
        .elicitation_handler(|_| async { ElicitationAnswer::Accept(json!({"color": "teal"})) })
        .in_process(server)
        .await
        .unwrap()
}

/// The error code `method` is refused with.
async fn refusal(client: &Client, method: &str, params: Value) -> i64 {
    code(client.request(method, params).await.unwrap_err())
}

fn code(e: ClientError) -> i64 {
    match e {
        ClientError::Protocol(p) => p.code,
        other => panic!("expected a protocol error, got {other}"),
    }
}

#[tokio::test]
async fn handshake_era_create_get_result_list_cancel() {
    let server = builder()
        .max_task_ttl(Duration::from_secs(5))
        .build()
        .unwrap();
    let client = handshake(&server).await;
    let caps = &client.session().unwrap().capabilities;
    assert_eq!(caps["tasks"]["requests"]["tools"]["call"], json!({}));
    let listing = client.list_tools().await.unwrap();
    assert_eq!(listing[0]["execution"]["taskSupport"], "optional");
    assert_eq!(listing[2]["execution"]["taskSupport"], "required");
    assert!(listing[3].get("execution").is_none());

    let ttl = Some(Duration::from_secs(3600));
    let created = client
        .call_tool_as_task("slow", json!({"ms": 50}), ttl)
        .await
        .unwrap();
    assert_eq!(created["task"]["status"], "working");
    assert_eq!(created["task"]["ttl"], 5000, "the requested ttl is capped");
    let id = started_task_id(&created).unwrap().to_owned();
    assert_eq!(client.get_task(&id).await.unwrap()["taskId"], id.as_str());
    let result = client.task_result(&id).await.unwrap();
    assert_eq!(result["content"][0]["text"], "slept 50ms");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert_eq!(client.get_task(&id).await.unwrap()["status"], "completed");

    let long = client
        .call_tool_as_task("slow", json!({"ms": 60_000}), None)
        .await
        .unwrap();
    let long = started_task_id(&long).unwrap().to_owned();
    let listed = client.list_tasks(None).await.unwrap();
    let ids = listed["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["taskId"]);
    assert_eq!(ids.collect::<Vec<_>>(), [&json!(id), &json!(long)]);
    assert_eq!(
        client.cancel_task(&long).await.unwrap()["status"],
        "cancelled"
    );
    assert_eq!(code(client.cancel_task(&long).await.unwrap_err()), -32602);
    assert_eq!(code(client.get_task("nope").await.unwrap_err()), -32602);

    // Another session sees none of them.
    let other = handshake(&server).await;
    assert_eq!(code(other.get_task(&id).await.unwrap_err()), -32602);
    assert_eq!(other.list_tasks(None).await.unwrap()["tasks"], json!([]));
}

#[tokio::test]
async fn handshake_era_ordinary_calls_and_required_tasks() {
    let server = builder().build().unwrap();
    let client = handshake(&server).await;
    let ordinary = client.call_tool("slow", json!({"ms": 1})).await.unwrap();
    assert_eq!(ordinary.content[0].to_json()["text"], "slept 1ms");
    let refused = client.call_tool_raw("must", json!({})).await.unwrap_err();
    assert_eq!(code(refused), -32601);
    let task = client
        .call_tool_as_task("must", json!({}), None)
        .await
        .unwrap();
    let id = started_task_id(&task).unwrap();
    assert_eq!(
        client.task_result(id).await.unwrap()["content"][0]["text"],
        "done"
    );
    // A tool that is never a task ignores the request for one.
    let plain = client
        .call_tool_as_task("plain", json!({}), None)
        .await
        .unwrap();
    assert_eq!(plain["content"][0]["text"], "plain");
    let update = json!({"taskId": "x", "inputResponses": {}});
    assert_eq!(refusal(&client, "tasks/update", update).await, -32601);
}

#[tokio::test]
async fn handshake_era_task_asks_over_the_session() {
    let server = builder().build().unwrap();
    let client = handshake(&server).await;
    let id = &start(&client, "ask", json!({})).await;
    let result = client.task_result(id).await.unwrap();
    assert_eq!(result["content"][0]["text"], "picked teal");
    let done = client.get_task(id).await.unwrap();
    assert_eq!(
        done["statusMessage"], "asking",
        "a progress message is the status message"
    );
}

#[tokio::test]
async fn stateless_era_server_decides_and_inlines_the_result() {
    let server = builder().build().unwrap();
    let client = stateless(&server).await;
    assert_eq!(
        client.session().unwrap().capabilities["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    assert!(
        client
            .session()
            .unwrap()
            .capabilities
            .get("tasks")
            .is_none()
    );

    let created = client
        .call_tool_as_task("slow", json!({"ms": 50}), None)
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task");
    assert!(created["ttlMs"].as_u64().unwrap() > 0);
    let id = started_task_id(&created).unwrap().to_owned();
    let done = wait_for(&client, &id, "completed").await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "slept 50ms");
    assert_eq!(
        client.task_result(&id).await.unwrap()["content"][0]["text"],
        "slept 50ms"
    );

    let long = client
        .call_tool_as_task("slow", json!({"ms": 60_000}), None)
        .await
        .unwrap();
    let long = started_task_id(&long).unwrap().to_owned();
    let ack = client.cancel_task(&long).await.unwrap();
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("taskId").is_none());
    assert_eq!(
        wait_for(&client, &long, "cancelled").await["status"],
        "cancelled"
    );
    assert_eq!(
        client.cancel_task(&long).await.unwrap()["resultType"],
        "complete"
    );

    for removed in ["tasks/result", "tasks/list"] {
        assert_eq!(
            refusal(&client, removed, json!({"taskId": id})).await,
            -32601
        );
    }
    // Without the extension: an ordinary result, -32021 for what must be a task and for tasks/*.
    let ordinary = client.call_tool("slow", json!({"ms": 1})).await.unwrap();
    assert_eq!(ordinary.content[0].to_json()["text"], "slept 1ms");
    assert_eq!(
        code(client.call_tool_raw("must", json!({})).await.unwrap_err()),
        -32021
    );
    assert_eq!(
        refusal(&client, "tasks/get", json!({"taskId": id})).await,
        -32021
    );
}

#[tokio::test]
async fn stateless_era_input_flow_through_tasks_update() {
    let server = builder().build().unwrap();
    let client = stateless(&server).await;
    let id = start(&client, "ask", json!({})).await;
    let parked = wait_for(&client, &id, "input_required").await;
    let (key, request) = parked["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    assert_eq!(request["method"], "elicitation/create");
    let ignored = client
        .update_task(&id, [("other".to_owned(), json!({}))].into_iter().collect())
        .await
        .unwrap();
    assert_eq!(ignored["resultType"], "complete");
    let answer = json!({"action": "accept", "content": {"color": "plum"}});
    let ack = client
        .update_task(&id, [(key.clone(), answer)].into_iter().collect())
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    let done = wait_for(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "picked plum");
}

#[tokio::test]
async fn limits_and_expiry() {
    let server = builder()
        .max_tasks(1)
        .task_ttl(Duration::from_millis(300))
        .build()
        .unwrap();
    let client = stateless(&server).await;
    let first = client
        .call_tool_as_task("slow", json!({"ms": 10}), None)
        .await
        .unwrap();
    let id = started_task_id(&first).unwrap().to_owned();
    let refused = client
        .call_tool_as_task("slow", json!({"ms": 10}), None)
        .await
        .unwrap_err();
    assert_eq!(code(refused), -32600, "the server keeps one task at most");
    assert_eq!(wait_for(&client, &id, "completed").await["ttlMs"], 300);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        code(client.get_task(&id).await.unwrap_err()),
        -32602,
        "expired"
    );
    // The expired task freed its place.
    assert!(
        client
            .call_tool_as_task("slow", json!({"ms": 10}), None)
            .await
            .is_ok()
    );

    let bad = builder().task_ttl(Duration::ZERO).build();
    assert!(matches!(bad, Err(BuildError::InvalidOption(m)) if m.contains("ttl")));
}

#[cfg(feature = "http")]
mod http {
    use super::*;
    use mcp_runtime::http::HttpOptions;
    use test_support::http::{exchange, json_headers, meta, post_bytes, serve};

    /// One stateless request over HTTP with its routing headers; the tasks extension declared.
    async fn post(
        addr: std::net::SocketAddr,
        method: &str,
        name: &str,
        mut params: Value,
    ) -> Value {
        params["_meta"] = meta();
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut headers = json_headers(None);
        headers.push("MCP-Protocol-Version: 2026-07-28".into());
        headers.push(format!("Mcp-Method: {method}"));
        headers.push(format!("Mcp-Name: {name}"));
        let request = post_bytes(addr, &headers, body.to_string().as_bytes());
        let response = exchange(addr, &request).await;
        response.json()
    }

    #[tokio::test]
    async fn stateless_tasks_over_http() {
        let served = serve(&builder().build().unwrap(), HttpOptions::default()).await;
        let created = post(
            served.addr,
            "tools/call",
            "ask",
            json!({"name": "ask", "arguments": {}}),
        )
        .await;
        assert_eq!(created["result"]["resultType"], "task");
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let mut key = String::new();
        for _ in 0..200 {
            let task = post(served.addr, "tasks/get", &id, json!({"taskId": id})).await;
            if let Some(requests) = task["result"]["inputRequests"].as_object() {
                key = requests.keys().next().unwrap().clone();
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let answer = json!({"action": "accept", "content": {"color": "red"}});
        let params = json!({"taskId": id, "inputResponses": {key: answer}});
        let ack = post(served.addr, "tasks/update", &id, params).await;
        assert_eq!(ack["result"]["resultType"], "complete");
        let mut done = Value::Null;
        for _ in 0..200 {
            done = post(served.addr, "tasks/get", &id, json!({"taskId": id})).await;
            if done["result"]["status"] == "completed" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(done["result"]["result"]["content"][0]["text"], "picked red");
        // The routing header must name the task.
        let wrong = post(served.addr, "tasks/get", "another", json!({"taskId": id})).await;
        assert_eq!(wrong["error"]["code"], -32020);
    }
}
