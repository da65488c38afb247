//! A `tracing` bridge: events emitted while a handler runs are also sent to the client as
//! `notifications/message` (when the request asked for log messages at that level), if
//! they are the server's own: by default only the framework's (`mcp_framework…`) and the
//! targets you name (your crates), never those of the libraries a handler calls (`hyper`,
//! `h2`, `reqwest`, a database driver…), whose events may carry what a client should not
//! see (addresses, headers, queries).
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt as _;
//! use tracing_subscriber::util::SubscriberInitExt as _;
//!
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     // `module_path!()` in `main.rs` is this crate's name: its events are forwarded.
//!     .with(mcp_framework::logging::layer().target(module_path!()))
//!     .init();
//! ```

use std::fmt::Write as _;
use std::future::Future;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context as LayerContext, Layer};

use crate::context::Context;
use crate::protocol::LoggingLevel;

tokio::task_local! {
    static CURRENT: Context;
}

/// Runs a handler future with its context available to the bridge.
pub(crate) fn scope<F: Future>(cx: Context, fut: F) -> impl Future<Output = F::Output> {
    CURRENT.scope(cx, fut)
}

/// The layer forwarding handler `tracing` events to the client: those of the framework's
/// targets, and of the targets named with [`target`](Self::target).
#[derive(Debug, Clone)]
pub struct ClientLogLayer {
    /// The target prefixes forwarded; `None`: every target.
    targets: Option<Vec<String>>,
}

impl Default for ClientLogLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientLogLayer {
    /// The framework's own events only (targets `mcp_framework` and below): name your
    /// crates with [`target`](Self::target).
    pub fn new() -> Self {
        Self {
            targets: Some(vec!["mcp_framework".to_owned()]),
        }
    }

    /// Also forwards the events whose target is `prefix` or below it (`prefix::…`): a
    /// crate's name as in its paths (`my_app` for the package `my-app`; `module_path!()`
    /// written in `main.rs` or `lib.rs` is it), or a module's path.
    #[must_use]
    pub fn target(mut self, prefix: impl Into<String>) -> Self {
        if let Some(targets) = &mut self.targets {
            targets.push(prefix.into());
        }
        self
    }

    /// Forwards the events of every target, other crates' included (what this layer did
    /// before it had a list): only for servers whose clients may see everything the
    /// libraries their handlers call log.
    #[must_use]
    pub fn all_targets(mut self) -> Self {
        self.targets = None;
        self
    }

    /// Whether events of `target` are forwarded.
    fn forwards(&self, target: &str) -> bool {
        self.targets.as_ref().is_none_or(|prefixes| {
            prefixes.iter().any(|p| {
                target
                    .strip_prefix(p.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
            })
        })
    }
}

/// The [`ClientLogLayer`] of the framework's own events ([`ClientLogLayer::new`]); add
/// your crates with [`target`](ClientLogLayer::target).
pub fn layer() -> ClientLogLayer {
    ClientLogLayer::new()
}

struct Fields {
    message: String,
    fields: Map<String, Value>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.fields.insert(field.name().to_owned(), value.into());
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.fields.insert(field.name().to_owned(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.fields.insert(field.name().to_owned(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.fields.insert(field.name().to_owned(), value.into());
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.fields.insert(field.name().to_owned(), value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.fields
                .insert(field.name().to_owned(), format!("{value:?}").into());
        }
    }
}

impl<S: Subscriber> Layer<S> for ClientLogLayer {
    fn on_event(&self, event: &Event<'_>, _: LayerContext<'_, S>) {
        if !self.forwards(event.metadata().target()) {
            return;
        }
        let _ = CURRENT.try_with(|cx| {
            let level = match *event.metadata().level() {
                Level::ERROR => LoggingLevel::Error,
                Level::WARN => LoggingLevel::Warning,
                Level::INFO => LoggingLevel::Info,
                Level::DEBUG | Level::TRACE => LoggingLevel::Debug,
            };
            if cx.log_level().is_none_or(|min| level < min) {
                return;
            }
            let mut f = Fields {
                message: String::new(),
                fields: Map::new(),
            };
            event.record(&mut f);
            let data = if f.fields.is_empty() {
                Value::String(f.message)
            } else {
                f.fields.insert("message".into(), f.message.into());
                Value::Object(f.fields)
            };
            cx.try_log(level, Some(event.metadata().target()), data);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_matched_by_whole_path_segments() {
        let layer = layer().target("my_app");
        for target in [
            "mcp_framework",
            "mcp_framework::audit",
            "my_app",
            "my_app::tools",
        ] {
            assert!(layer.forwards(target), "{target}");
        }
        for target in [
            "my_application",
            "my_app_helpers::x",
            "hyper::proto::h1",
            "h2::codec",
            "reqwest::connect",
            "mcp_framework_extra",
            "",
        ] {
            assert!(!layer.forwards(target), "{target}");
        }
        assert!(layer.all_targets().forwards("hyper::proto::h1"));
        assert!(!ClientLogLayer::default().forwards("my_app"));
    }
}
