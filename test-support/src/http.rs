//! A server on Streamable HTTP at `127.0.0.1:0` (any free loopback port), stopped when dropped.

use std::net::SocketAddr;

use mcp_runtime::Server;
use mcp_runtime::transport::http::{HttpOptions, router};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// A server listening on a loopback port; the serving task is aborted when this is dropped.
pub struct Served {
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The address it listens on.
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `server` with `options` on a free loopback port.
pub async fn serve(server: &Server, options: HttpOptions) -> Served {
    serve_app(router(server, options)).await
}

/// Serves an axum application (an MCP router, perhaps with layers) on a free loopback port;
/// its endpoint is taken to be `/mcp`.
pub async fn serve_app(app: axum::Router) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    Served {
        url: format!("http://{addr}/mcp"),
        addr,
        task,
    }
}

/// The protocol version of the stateless era.
pub const STATELESS: &str = "2026-07-28";

/// The stateless `_meta` envelope an HTTP request carries (no client info).
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A stateless `tools/call` body: `name` with `arguments` and the [`meta`] envelope.
pub fn stateless_call(id: impl Into<Value>, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call", "params": {
        "name": name, "arguments": arguments, "_meta": meta()
    }})
}
