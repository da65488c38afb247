//! The request log: one `INFO` line per request under the target [`TARGET`] (the spans'),
//! written when the request ends: `{method} {target}` with its outcome (`ok`, `error`,
//! `cancelled`, `listening`), the JSON-RPC error code, and the duration in milliseconds
//! (three significant digits). Never an argument value: the target is the item the request
//! resolved to (bounded names), or nothing.

use std::time::Instant;

use crate::middleware::audit::milliseconds;

pub(crate) use super::span::TARGET;

/// A request being timed for its log line (made only when the line is wanted).
#[derive(Debug)]
pub(crate) struct RequestLine {
    method: String,
    target: Option<String>,
    started: Instant,
}

/// How a request ended, as the line says it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Outcome {
    Ok,
    Error(i32),
    Cancelled,
    Listening,
}

impl RequestLine {
    /// Timing starts now; `None` when nobody wants the line (the check is a cached
    /// callsite's).
    pub(crate) fn start(method: &str, target: Option<&str>) -> Option<Self> {
        tracing::enabled!(target: TARGET, tracing::Level::INFO).then(|| Self {
            method: method.to_owned(),
            target: target.map(str::to_owned),
            started: Instant::now(),
        })
    }

    /// Writes the line.
    pub(crate) fn finish(self, outcome: Outcome) {
        let duration_ms = milliseconds(self.started.elapsed());
        let target = self.target.as_deref().unwrap_or("");
        let (outcome, code) = match outcome {
            Outcome::Ok => ("ok", None),
            Outcome::Error(code) => ("error", Some(code)),
            Outcome::Cancelled => ("cancelled", None),
            Outcome::Listening => ("listening", None),
        };
        let space = if target.is_empty() { "" } else { " " };
        tracing::info!(
            target: TARGET,
            outcome = %outcome,
            code,
            duration_ms,
            "{}{space}{target}",
            self.method,
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn three_significant_digits() {
        let ms = |micros| milliseconds(Duration::from_micros(micros)).to_string();
        assert_eq!(ms(50_720), "50.7");
        assert_eq!(ms(51), "0.051");
        assert_eq!(ms(1_103_820), "1100");
        assert_eq!(ms(12_345), "12.3");
        assert_eq!(ms(0), "0");
        assert_eq!(
            milliseconds(Duration::from_nanos(50_720)).to_string(),
            "0.051"
        );
    }
}
