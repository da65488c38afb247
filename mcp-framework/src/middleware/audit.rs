//! [`AuditLayer`]: one `tracing` event per call, when it ends, with what was called, by whom,
//! how it ended and how long it took.

use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use tower::{Layer, Service};

use super::call::{Call, CallOutput, Method};
use super::error::error_code;
use crate::future::BoxFuture;
use tower::BoxError;

/// Records every call as one `tracing` event at `INFO` level, target
/// `mcp_framework::audit`, when the call ends: `method`, `name`, `principal` (when there is
/// one), `request_id`, `outcome` (`ok`, `tool_error` for a result with `isError: true`,
/// `input_required`, `error` with its JSON-RPC `code`, or `cancelled` when the call was
/// dropped unfinished: the client cancelled it, or an outer layer gave up on it) and
/// `duration_ms`.
///
/// The events go wherever the application's `tracing` subscriber sends them (`run()`
/// logs to stderr), never to the client: they are not the handler's log messages.
/// Add it outermost to see every call, including those other layers refuse.
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditLayer;

impl AuditLayer {
    /// The audit layer.
    pub fn new() -> Self {
        Self
    }
}

impl<S> Layer<S> for AuditLayer {
    type Service = Audit<S>;

    fn layer(&self, inner: S) -> Audit<S> {
        Audit { inner }
    }
}

/// The service of [`AuditLayer`].
#[derive(Debug, Clone)]
pub struct Audit<S> {
    inner: S,
}

impl<S> Service<Call> for Audit<S>
where
    S: Service<Call, Response = CallOutput, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = CallOutput;
    type Error = BoxError;
    type Future = BoxFuture<Result<CallOutput, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let mut record = Record {
            method: call.method(),
            name: call.name().to_owned(),
            principal: call.principal().map(|p| p.subject().to_owned()),
            request_id: call.request_id().to_string(),
            start: Instant::now(),
            done: false,
        };
        let fut = self.inner.call(call);
        Box::pin(async move {
            let out = fut.await;
            let (outcome, code) = match &out {
                Ok(CallOutput::Tool(r)) if r.is_error() => ("tool_error", None),
                Ok(CallOutput::InputRequired(_)) => ("input_required", None),
                Ok(_) => ("ok", None),
                Err(e) => ("error", Some(error_code(e))),
            };
            record.emit(outcome, code);
            out
        })
    }
}

/// What is known of a call while it runs; emitted once, when it ends or is dropped.
struct Record {
    method: Method,
    name: String,
    principal: Option<String>,
    request_id: String,
    start: Instant,
    done: bool,
}

impl Record {
    fn emit(&mut self, outcome: &'static str, code: Option<i32>) {
        self.done = true;
        let duration_ms = milliseconds(self.start.elapsed());
        tracing::info!(
            target: "mcp_framework::audit",
            method = self.method.as_str(),
            name = %self.name,
            principal = self.principal.as_deref(),
            request_id = %self.request_id,
            outcome,
            code,
            duration_ms,
            "{} {} {outcome}",
            self.method,
            self.name,
        );
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if !self.done {
            self.emit("cancelled", None);
        }
    }
}

/// `d` in milliseconds with three significant digits (at least a microsecond's): 0.051,
/// 12.3, 1100. Printed as the shortest decimal that reads back the same.
pub(crate) fn milliseconds(d: std::time::Duration) -> f64 {
    let ms = d.as_secs_f64() * 1000.0;
    if ms <= 0.0 {
        return 0.0;
    }
    let digits = 2 - ms.log10().floor() as i32;
    let scale = 10f64.powi(digits.clamp(-6, 3));
    (ms * scale).round() / scale
}
