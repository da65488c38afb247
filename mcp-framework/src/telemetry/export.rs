//! The OTLP export of traces that [`ServerBuilder::run`](crate::ServerBuilder::run) sets up
//! when the standard OpenTelemetry variables ask for it: `OTEL_TRACES_EXPORTER=otlp`, or an
//! `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; `OTEL_SDK_DISABLED=true`
//! or `OTEL_TRACES_EXPORTER=none` keep it off. The exporter reads the rest itself
//! (`OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` by default or `http/json`, headers,
//! timeout); the service is `OTEL_SERVICE_NAME`, else the server's name. Spans are batched
//! and sent from the SDK's own thread; [`Export`] flushes what is left when dropped.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

/// Why the export could not start.
#[derive(Debug, thiserror::Error)]
#[error("OTLP trace export: {0}")]
pub(crate) struct ExportError(String);

/// The running export: flushes and stops when dropped.
#[derive(Debug)]
pub(crate) struct Export {
    provider: SdkTracerProvider,
}

impl Drop for Export {
    fn drop(&mut self) {
        if let Err(e) = self.provider.shutdown() {
            eprintln!("OTLP trace export: {e}");
        }
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Whether the environment asks for an OTLP trace export.
pub(crate) fn wanted() -> bool {
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return false;
    }
    match var("OTEL_TRACES_EXPORTER") {
        Some(v) => v.split(',').any(|e| e.trim() == "otlp"),
        None => {
            var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
                || var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some()
        }
    }
}

/// A `tracing` layer exporting spans over OTLP/HTTP, and the guard of the export.
pub(crate) fn layer<S>(service: &str) -> Result<(impl Layer<S>, Export), ExportError>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| ExportError(e.to_string()))?;
    let service = var("OTEL_SERVICE_NAME").unwrap_or_else(|| service.to_owned());
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name(service).build())
        .build();
    let tracer = provider.tracer("mcp-framework");
    let layer = tracing_opentelemetry::layer().with_tracer(tracer);
    Ok((layer, Export { provider }))
}
