//! [`Prometheus`]: an OpenTelemetry meter provider whose reader is the Prometheus exporter of
//! the OpenTelemetry project (`opentelemetry-prometheus`), and its metrics in Prometheus' text
//! exposition format, what a scrape of `/metrics` answers.

use std::fmt;

use opentelemetry::metrics::{Meter, MeterProvider};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use prometheus::{Encoder, TextEncoder};

/// The instrumentation scope the server's instruments are made in.
pub const SCOPE: &str = "mcp-runtime";

/// The content type of [`Prometheus::encode`]'s text (format 0.0.4).
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Why the Prometheus exporter could not be made.
#[derive(Debug, thiserror::Error)]
#[error("the Prometheus exporter could not be made: {0}")]
#[non_exhaustive]
pub struct PrometheusError(String);

/// A meter provider for a Prometheus scrape: give [`Prometheus::meter`] to
/// [`ServerBuilder::metrics`](crate::ServerBuilder::metrics), and serve
/// [`Prometheus::encode`] (with the `http` feature:
/// [`HttpOptions::metrics`](crate::transport::http::HttpOptions::metrics) serves it on the
/// listener). Cheap to clone: clones share the provider and its registry.
///
/// ```
/// use mcp_runtime::metrics::Prometheus;
/// # use mcp_runtime::prelude::*;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let prometheus = Prometheus::new()?;
/// let server = Server::builder("calc", "1.0.0").metrics(prometheus.meter()).build()?;
/// # let _ = server;
/// assert!(prometheus.encode().contains("target_info"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Prometheus {
    provider: SdkMeterProvider,
    registry: prometheus::Registry,
}

impl Prometheus {
    /// A meter provider whose only reader is a Prometheus exporter, on a registry of its own.
    pub fn new() -> Result<Self, PrometheusError> {
        let registry = prometheus::Registry::new();
        let exporter = opentelemetry_prometheus::exporter()
            .with_registry(registry.clone())
            .build()
            .map_err(|e| PrometheusError(e.to_string()))?;
        let provider = SdkMeterProvider::builder().with_reader(exporter).build();
        Ok(Prometheus { provider, registry })
    }

    /// The meter the server's instruments are made on (scope [`SCOPE`]).
    pub fn meter(&self) -> Meter {
        self.provider.meter(SCOPE)
    }

    /// The provider: for the application's own instruments, next to the server's.
    pub fn provider(&self) -> &SdkMeterProvider {
        &self.provider
    }

    /// Every metric of the provider, collected now, in Prometheus' text format ([`CONTENT_TYPE`]).
    pub fn encode(&self) -> String {
        let families = self.registry.gather();
        let mut text = Vec::with_capacity(4096);
        if let Err(e) = TextEncoder::new().encode(&families, &mut text) {
            tracing::error!(error = %e, "encoding the metrics failed");
        }
        String::from_utf8(text).unwrap_or_default()
    }
}

impl fmt::Debug for Prometheus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prometheus").finish_non_exhaustive()
    }
}
