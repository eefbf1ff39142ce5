//! Requests the server sends the client are bounded: an elicitation nobody answers ends after
//! `client_request_timeout` with a clear result, and an answer outside the requested schema is an
//! invalid response, never deserialized blind.

use std::time::{Duration, Instant};

use mcp_runtime::client::ElicitationAnswer;
use mcp_runtime::prelude::*;
use mcp_runtime::{Client, ElicitError};
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
pub struct Seats {
    /// How many seats.
    #[schemars(range(min = 1, max = 8))]
    pub count: u8,
}

/// Ask how many seats to book.
#[tool]
async fn book(ctx: &Context) -> Result<String, ToolError> {
    match ctx.elicit::<Seats>("How many seats?").await {
        Ok(Elicitation::Accept(s)) => Ok(format!("booked {}", s.count)),
        Ok(_) => Ok("not booked".into()),
        Err(e @ (ElicitError::TimedOut(_) | ElicitError::InvalidResponse(_))) => {
            Err(ToolError::new(e.to_string()))
        }
        Err(e) => Err(ToolError::internal(e)),
    }
}

fn server() -> Server {
    Server::builder("elicit", "1")
        .client_request_timeout(Duration::from_millis(300))
        .tools(tools![book])
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_unanswered_elicitation_times_out() {
    let client = Client::builder()
        .elicitation_handler(|_| std::future::pending::<ElicitationAnswer>())
        .in_process(&server())
        .await
        .unwrap();
    let started = Instant::now();
    let result = client.call_tool("book", json!({})).await.unwrap();
    assert!(result.is_error);
    assert_eq!(
        result.first_text(),
        Some("Error executing tool book: the client did not answer within 0.3s")
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    client.ping().await.unwrap();
}

#[tokio::test]
async fn an_answer_outside_the_requested_schema_is_invalid() {
    for (content, expected) in [
        (json!({"count": 9}), "/count: must be <= 8 (got 9)"),
        (
            json!({"count": "two"}),
            "/count: must be an integer (got string)",
        ),
    ] {
        let answer = content.clone();
        let client = Client::builder()
            .elicitation_handler(move |_| {
                let answer = answer.clone();
                async move { ElicitationAnswer::Accept(answer) }
            })
            .in_process(&server())
            .await
            .unwrap();
        let result = client.call_tool("book", json!({})).await.unwrap();
        assert!(result.is_error, "{content}");
        let text = result.first_text().unwrap();
        assert!(
            text.starts_with("Error executing tool book: invalid elicitation response: ")
                && text.contains(expected),
            "{text}"
        );
    }
    let client = Client::builder()
        .elicitation_handler(|_| async { ElicitationAnswer::Accept(json!({"count": 2})) })
        .in_process(&server())
        .await
        .unwrap();
    let ok = client.call_tool("book", json!({})).await.unwrap();
    assert_eq!(ok.first_text(), Some("booked 2"));
}
