//! A `tracing` bridge: events emitted while a handler runs are also sent to the client as
//! `notifications/message` (when the request asked for log messages at that level).
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt as _;
//! use tracing_subscriber::util::SubscriberInitExt as _;
//!
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .with(mcp_framework::logging::layer())
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

/// The layer forwarding handler `tracing` events to the client.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientLogLayer;

/// The [`ClientLogLayer`].
pub fn layer() -> ClientLogLayer {
    ClientLogLayer
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
