//! The kit of test tools served over stdio; flags set the server options (see `KitOptions`).

use integration_tests::kit::KitOptions;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .finish()
        .with(examples::log_filter(LevelFilter::INFO))
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
