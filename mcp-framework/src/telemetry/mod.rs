//! Telemetry of requests: one span per request named and attributed after the
//! OpenTelemetry semantic conventions for MCP ([`span`]), joined to the client's trace when
//! the request carries W3C trace context (`traceparent`/`tracestate` in `_meta`, or HTTP
//! headers) and the `otel` feature is on ([`propagation`]), and the OTLP export
//! `ServerBuilder::run` sets up from the standard `OTEL_*` variables (`export`, feature
//! `otel`); the request log, one `INFO` line per request ([`line`]); and the process's
//! Prometheus metrics (`metrics`, feature `metrics`).
//!
//! The spans are at `DEBUG` level under the target [`span::TARGET`]: without a subscriber
//! that wants them (the default logging is `info`), creating one costs a disabled-callsite
//! check and nothing else.

#[cfg(feature = "otel")]
pub(crate) mod export;
pub(crate) mod line;
#[cfg(feature = "metrics")]
pub(crate) mod metrics;
pub(crate) mod propagation;
pub(crate) mod span;

/// A tool result with `isError`: `error.type = tool_error` on the current request span,
/// and on its metrics.
pub(crate) fn tool_error() {
    span::record_error(&tracing::Span::current(), "tool_error");
    #[cfg(feature = "metrics")]
    metrics::note_tool_error();
}
