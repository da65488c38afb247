//! W3C trace context of a request: `traceparent` and `tracestate` from `_meta` (SEP-414),
//! else from the HTTP request's headers. With the `otel` feature the request span becomes
//! a child of the client's span, so the client's trace continues into the server; without
//! it there is nothing to join.

use tracing::Span;

use crate::peer::HttpParts;
use crate::protocol::meta::RequestMeta;

/// The trace context a request carries (read only to join it, with the `otel` feature).
#[derive(Debug, Default, Clone)]
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) struct TraceContext {
    pub(crate) traceparent: Option<String>,
    pub(crate) tracestate: Option<String>,
}

impl TraceContext {
    /// From `_meta` when it has a `traceparent`, else from the HTTP request's headers.
    pub(crate) fn of(meta: &RequestMeta, http: Option<&HttpParts>) -> Self {
        if meta.traceparent.is_some() {
            return Self {
                traceparent: meta.traceparent.clone(),
                tracestate: meta.tracestate.clone(),
            };
        }
        #[cfg(feature = "http")]
        if let Some(http) = http {
            let header = |name| {
                let value = http.headers.get(name)?.to_str().ok()?;
                Some(value.to_owned())
            };
            return Self {
                traceparent: header("traceparent"),
                tracestate: header("tracestate"),
            };
        }
        let _ = http;
        Self::default()
    }

    /// Makes `span` a child of the client's span (a malformed `traceparent` is ignored).
    #[cfg(feature = "otel")]
    pub(crate) fn join(self, span: &Span) {
        use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;

        struct Carrier(TraceContext);
        impl Extractor for Carrier {
            fn get(&self, key: &str) -> Option<&str> {
                match key {
                    "traceparent" => self.0.traceparent.as_deref(),
                    "tracestate" => self.0.tracestate.as_deref(),
                    _ => None,
                }
            }
            fn keys(&self) -> Vec<&str> {
                vec!["traceparent", "tracestate"]
            }
        }
        if span.is_disabled() || self.traceparent.is_none() {
            return;
        }
        let parent =
            opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&Carrier(self));
        let _ = span.set_parent(parent);
    }

    /// Without the `otel` feature there is no trace to join.
    #[cfg(not(feature = "otel"))]
    pub(crate) fn join(self, _span: &Span) {}
}
