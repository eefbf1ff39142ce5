//! The kit of test tools served over stdio; flags set the server options (see `KitOptions`).

use integration_tests::kit::KitOptions;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let options = match KitOptions::from_args(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("kit_server: {e}");
            std::process::exit(2);
        }
    };
    options.server().serve_stdio().await
}
