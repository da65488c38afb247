//! The process's Prometheus metrics, named after the OpenTelemetry semantic conventions for
//! MCP: `mcp_server_operation_duration_seconds` (a histogram per method, tool or prompt,
//! protocol version, transport and `error_type`), `mcp_server_session_duration_seconds`
//! (legacy sessions), and gauges of the requests in flight, open `subscriptions/listen`
//! streams and legacy sessions. Off until [`enable`] (what `ServerBuilder::run` does for
//! `--metrics-bind`): until then recording is one atomic load.

use std::future::Future;
use std::sync::OnceLock;
use std::time::Instant;

use super::span::Transport;
use crate::protocol::ProtocolVersion;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

/// The methods measured under their own name (any other is `other`).
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
];

static METRICS: OnceLock<Metrics> = OnceLock::new();

/// The labels of an operation (`error_type`: a JSON-RPC error code, `tool_error`, or empty).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Operation {
    mcp_method_name: String,
    gen_ai_tool_name: String,
    gen_ai_prompt_name: String,
    mcp_protocol_version: String,
    network_transport: &'static str,
    error_type: String,
}

/// The metrics of the process.
#[derive(Debug)]
pub(crate) struct Metrics {
    registry: Registry,
    operations: Family<Operation, Histogram>,
    session_duration: Histogram,
    in_flight: Gauge,
    listen_streams: Gauge,
    sessions: Gauge,
}

fn durations() -> Histogram {
    // 100 µs to about 27 minutes.
    Histogram::new(exponential_buckets(0.0001, 4.0, 12))
}

/// Turns the metrics on (idempotent).
pub(crate) fn enable() -> &'static Metrics {
    METRICS.get_or_init(|| {
        let mut registry = Registry::default();
        let operations =
            Family::<Operation, Histogram>::new_with_constructor(durations as fn() -> Histogram);
        registry.register_with_unit(
            "mcp_server_operation_duration",
            "Duration of MCP requests handled by the server",
            Unit::Seconds,
            operations.clone(),
        );
        let session_duration = durations();
        registry.register_with_unit(
            "mcp_server_session_duration",
            "Duration of legacy MCP sessions",
            Unit::Seconds,
            session_duration.clone(),
        );
        let in_flight = Gauge::default();
        registry.register(
            "mcp_server_requests_in_flight",
            "Requests being handled",
            in_flight.clone(),
        );
        let listen_streams = Gauge::default();
        registry.register(
            "mcp_server_listen_streams",
            "Open subscriptions/listen streams",
            listen_streams.clone(),
        );
        let sessions = Gauge::default();
        registry.register(
            "mcp_server_sessions",
            "Open legacy sessions",
            sessions.clone(),
        );
        Metrics {
            registry,
            operations,
            session_duration,
            in_flight,
            listen_streams,
            sessions,
        }
    })
}

/// The metrics, when on.
pub(crate) fn get() -> Option<&'static Metrics> {
    METRICS.get()
}

/// The metrics in the Prometheus text format (version 0.0.4), and its content type.
pub(crate) fn encode() -> (String, &'static str) {
    let mut out = String::new();
    if let Some(m) = get() {
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &m.registry);
    }
    (
        out,
        prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
    )
}

/// One request being measured: in flight until [`finish`](Self::finish) (or drop).
#[derive(Debug)]
pub(crate) struct Timer {
    metrics: &'static Metrics,
    started: Instant,
    labels: Option<Operation>,
}

impl Metrics {
    /// Starts measuring a request. Every label has bounded values: `method` is kept only if
    /// it is a method of MCP, `target` only if the caller found it in the catalog, `version`
    /// only if it is a revision this server knows.
    pub(crate) fn start(
        &'static self,
        method: &str,
        target: Option<&str>,
        version: Option<ProtocolVersion>,
        transport: Transport,
    ) -> Timer {
        self.in_flight.inc();
        let method = if KNOWN_METHODS.contains(&method) {
            method
        } else {
            "other"
        };
        let (tool, prompt) = match method {
            "tools/call" => (target, None),
            "prompts/get" => (None, target),
            _ => (None, None),
        };
        Timer {
            metrics: self,
            started: Instant::now(),
            labels: Some(Operation {
                mcp_method_name: method.to_owned(),
                gen_ai_tool_name: tool.unwrap_or_default().to_owned(),
                gen_ai_prompt_name: prompt.unwrap_or_default().to_owned(),
                mcp_protocol_version: version.map_or("", ProtocolVersion::as_str).to_owned(),
                network_transport: transport.as_str(),
                error_type: String::new(),
            }),
        }
    }

    /// A listen stream opened; closed when the guard drops.
    pub(crate) fn listen_opened(&'static self) -> GaugeGuard {
        self.listen_streams.inc();
        GaugeGuard(&self.listen_streams)
    }

    /// A legacy session opened.
    pub(crate) fn session_opened(&self) {
        self.sessions.inc();
    }

    /// A legacy session that lasted since `opened` closed.
    pub(crate) fn session_closed(&self, opened: Instant) {
        self.sessions.dec();
        self.session_duration
            .observe(opened.elapsed().as_secs_f64());
    }
}

impl Timer {
    /// Records the request's duration; `error_type` names its failure (a JSON-RPC code,
    /// `tool_error`), if any.
    pub(crate) fn finish(mut self, error_type: Option<&str>) {
        if let Some(mut labels) = self.labels.take() {
            if let Some(e) = error_type {
                e.clone_into(&mut labels.error_type);
            }
            self.metrics
                .operations
                .get_or_create(&labels)
                .observe(self.started.elapsed().as_secs_f64());
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.metrics.in_flight.dec();
    }
}

tokio::task_local! {
    /// Set when the request's tool answered with `isError` (its reply is a result).
    static TOOL_ERROR: std::cell::Cell<bool>;
}

/// Runs a request's future, saying whether its tool answered with `isError`. It takes the
/// future pinned where it is (not moved in), so the request's state machine is not copied
/// into this one.
pub(crate) async fn watching_tool_errors<F: Future>(
    fut: std::pin::Pin<&mut F>,
) -> (F::Output, bool) {
    TOOL_ERROR
        .scope(std::cell::Cell::new(false), async move {
            let out = fut.await;
            (out, TOOL_ERROR.with(std::cell::Cell::get))
        })
        .await
}

/// The running request's tool answered with `isError`.
pub(crate) fn note_tool_error() {
    let _ = TOOL_ERROR.try_with(|c| c.set(true));
}

/// Decrements a gauge when dropped.
#[derive(Debug)]
pub(crate) struct GaugeGuard(&'static Gauge);

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}
