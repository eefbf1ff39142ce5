//! The kit of test tools served over stdio; flags set the server options (see `KitOptions`).

use integration_tests::kit::KitOptions;
use tracing_subscriber::filter::LevelFilter;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    examples::init_logging_at(LevelFilter::INFO);
    let options = match KitOptions::from_args(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("kit_server: {e}");
            std::process::exit(2);
        }
    };
    options.server().serve_stdio().await
}
