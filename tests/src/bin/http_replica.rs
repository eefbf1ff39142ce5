//! One replica of a stateless deployment: a server whose `replica` tool names the process that
//! served the call (`steps` sends progress and a log message; `linger` names its process in a
//! progress message, then takes its time), on Streamable HTTP at
//! `127.0.0.1:<port>` (the first argument, default 0 for any free port); with a second argument,
//! a Redis URL, its handshake-era sessions and their streams' events live in that Redis (a fleet
//! behind a round-robin balancer). Prints `listening on http://ADDR/mcp` to stderr once bound.

use integration_tests::kit::{add, steps};
use mcp_runtime::prelude::*;
use std::sync::Arc;

use mcp_runtime::http::HttpOptions;
use mcp_runtime::http::{RedisEventStore, RedisSessionStore};
use tracing_subscriber::filter::LevelFilter;

/// The id of the process that served this call.
#[tool]
fn replica() -> u32 {
    std::process::id()
}

/// Reports progress naming this process, then answers after `ms` milliseconds.
#[tool]
async fn linger(ctx: &Context, ms: u64) -> String {
    let pid = std::process::id();
    ctx.progress(0.0, Some(1.0), Some(&format!("pid {pid}")));
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    ctx.progress(1.0, Some(1.0), Some("done"));
    format!("lingered {ms} ms on {pid}")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    examples::init_logging_at(LevelFilter::WARN);
    let port = std::env::args().nth(1).unwrap_or_else(|| "0".into());
    let server = Server::builder("replica", "1.0.0")
        .tools(tools![replica, add, steps, linger])
        .build()
        .expect("no state needed");
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    let mut options = HttpOptions::default();
    if let Some(url) = std::env::args().nth(2) {
        let store = RedisSessionStore::connect(&url)
            .await
            .map_err(std::io::Error::other)?;
        let events = RedisEventStore::beside(&store);
        options = options
            .session_store(Arc::new(store))
            .event_store(Arc::new(events));
    }
    server.serve_http_on(listener, options).await
}
