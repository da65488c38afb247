//! The process around a server that `ServerBuilder::run` serves: logs to stderr (and, with
//! the `otel` feature, trace export) and the signals that start a graceful shutdown, end
//! its grace period, or exit at once.

use std::sync::Arc;

use crate::runtime::state::ServerInner;

/// What [`init_telemetry`] started that must outlive the server (the trace export, which
/// flushes when this is dropped).
#[derive(Debug)]
pub(crate) struct Telemetry {
    #[cfg(feature = "otel")]
    _export: Option<crate::telemetry::export::Export>,
}

/// How log lines are written (`--log-format`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub(crate) enum LogFormat {
    /// One line of text per event (coloured when stderr is a terminal and `NO_COLOR` is
    /// not set)
    #[default]
    Text,
    /// One JSON object per line
    Json,
}

/// Whether log lines get ANSI colours: only on a terminal, and not under `NO_COLOR`
/// (<https://no-color.org>: set and not empty).
fn colour() -> bool {
    use std::io::IsTerminal as _;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Logs to stderr in `format`, filtered by `RUST_LOG` (default `info`: a line per request,
/// see `telemetry::line`; `warn` when `quiet`, for the commands that do not serve); with the `otel` feature and the standard `OTEL_*` variables
/// asking for it, also exports traces over OTLP (request spans, and whatever else is at
/// `info` or above).
pub(crate) fn init_telemetry(service: &str, format: LogFormat, quiet: bool) -> Telemetry {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::{EnvFilter, Layer as _};
    let default = if quiet { "warn" } else { "info" };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let text = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(colour());
    let logs = match format {
        LogFormat::Text => text.boxed(),
        LogFormat::Json => text.json().with_current_span(false).boxed(),
    }
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

/// Turns SIGINT and SIGTERM into the graceful shutdown of `server`: the first signal starts
/// it (stop taking requests, end listen streams, cut what still runs after the grace
/// period); a second exits the process at once (status 130 for SIGINT, 143 for SIGTERM).
pub(crate) fn on_signals(server: Arc<ServerInner>) {
    tokio::spawn(async move {
        let mut signals = Signals::new();
        let name = signals.recv().await;
        tracing::info!(
            "{name}: shutting down; running requests have {:?} to finish ({name} again exits \
             at once)",
            server.config.drain_timeout
        );
        server.begin_shutdown();
        exit_now(signals.recv().await);
    });
}

/// Exits at once after a second signal.
fn exit_now(name: &'static str) -> ! {
    tracing::warn!("{name} again: exiting now");
    std::process::exit(if name == "SIGTERM" { 143 } else { 130 })
}

/// SIGINT and SIGTERM (Ctrl-C elsewhere), as they come.
struct Signals {
    #[cfg(unix)]
    both: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                both: signal(SignalKind::interrupt())
                    .and_then(|int| Ok((int, signal(SignalKind::terminate())?)))
                    .ok(),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// The name of the next signal (never, if they cannot be watched).
    async fn recv(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            let Some((int, term)) = &mut self.both else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}
