//! A stdio server that sets up no logging of its own, with one tool that fails unexpectedly:
//! what a user's first server looks like when something breaks. `--no-log` opts out of the
//! log the runtime installs.

use std::fmt;

use mcp_runtime::prelude::*;

/// Why the stock could not be saved; caused by the disk.
#[derive(Debug)]
struct SaveError {
    item: String,
    source: std::io::Error,
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "saving the stock of {}", self.item)
    }
}

impl std::error::Error for SaveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Adjust the stock of an item.
#[tool]
fn adjust_stock(item: String, delta: i32) -> Result<i32, SaveError> {
    let _ = delta;
    Err(SaveError {
        item,
        source: std::io::Error::other("disk at 10.0.0.5 is full"),
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let install = !std::env::args().any(|a| a == "--no-log");
    Server::builder("stock", "1.0.0")
        .tools(tools![adjust_stock])
        .install_log_subscriber(install)
        .build()
        .expect("a valid server")
        .serve_stdio()
        .await
}
