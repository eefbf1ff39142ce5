//! Seed 003's task tracker served over stdio, for the interop test with the official Python client.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    integration_tests::tasks::server().serve_stdio().await
}
