//! A stdio server of notes whose `touch` tool tells clients that a note changed: what a
//! `subscriptions/listen` stream is tested against in a real process (tests/it/subscriptions_stdio.rs).

use mcp_runtime::ResourceUpdates;
use mcp_runtime::prelude::*;

/// One note, by its title.
#[resource(uri = "notes://{title}", mime_type = "text/plain")]
fn note(title: String) -> String {
    format!("the note {title}")
}

/// Tell the clients listening to `uri` that it changed; returns how many were told.
#[tool]
fn touch(updates: &ResourceUpdates, uri: String) -> usize {
    updates.updated(&uri)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let builder = Server::builder("watch", "1.0.0");
    let updates = builder.resource_updates();
    builder
        .state(updates)
        .resources(resources![note])
        .tools(tools![touch])
        .install_log_subscriber(false)
        .build()
        .expect("a valid server")
        .serve_stdio()
        .await
}
