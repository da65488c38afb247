//! The process around a server that `ServerBuilder::run` serves: logs to stderr (and, with
//! the `otel` feature, trace export) and the signals that start a graceful shutdown.

/// What [`init_telemetry`] started that must outlive the server (the trace export, which
/// flushes when this is dropped).
#[derive(Debug)]
pub(crate) struct Telemetry {
    #[cfg(feature = "otel")]
    _export: Option<crate::telemetry::export::Export>,
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`); with the `otel` feature and the
/// standard `OTEL_*` variables asking for it, also exports traces over OTLP (request spans,
/// and whatever else is at `info` or above).
pub(crate) fn init_telemetry(service: &str) -> Telemetry {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::{EnvFilter, Layer as _};
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter);
    #[cfg(feature = "otel")]
    if crate::telemetry::export::wanted() {
        use tracing_subscriber::filter::Targets;
        match crate::telemetry::export::layer(service) {
            Ok((traces, export)) => {
                let wanted = Targets::new()
                    .with_target(crate::telemetry::span::TARGET, tracing::Level::DEBUG)
                    .with_default(tracing::Level::INFO);
                let _ = tracing_subscriber::registry()
                    .with(logs)
                    .with(traces.with_filter(wanted))
                    .try_init();
                return Telemetry {
                    _export: Some(export),
                };
            }
            Err(e) => eprintln!("{e}; serving without it"),
        }
    }
    let _ = service;
    let _ = tracing_subscriber::registry().with(logs).try_init();
    Telemetry {
        #[cfg(feature = "otel")]
        _export: None,
    }
}

/// Completes on SIGINT or SIGTERM (Ctrl-C elsewhere).
pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
