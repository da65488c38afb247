//! How an error leaving a stack is answered ([`rejection`]), and [`RateLimited`], the error
//! of a refused call that the client may retry later.

use std::time::Duration;

use super::call::Method;
use crate::protocol::{ErrorObject, codes};
use tower::BoxError;

/// A call refused by a rate limit: answered with `-32603` and `data.retryAfterMs` (over
/// HTTP with `429 Too Many Requests` and `Retry-After`). Return it from a layer of your own
/// to get the same answer.
#[derive(Debug, Clone, thiserror::Error)]
#[error("rate limit exceeded; retry in {} ms", .retry_after.as_millis())]
pub struct RateLimited {
    retry_after: Duration,
}

impl RateLimited {
    /// Refused; the client may retry after `retry_after`.
    pub fn new(retry_after: Duration) -> Self {
        Self { retry_after }
    }

    /// How long the client should wait.
    pub fn retry_after(&self) -> Duration {
        self.retry_after
    }
}

/// What an error leaving a stack becomes.
#[derive(Debug)]
pub(crate) enum Rejection {
    /// This JSON-RPC error.
    Error(ErrorObject),
    /// This JSON-RPC error, because a limit refused the call (HTTP 429).
    Limited(ErrorObject),
}

/// The answer to a call of `method` on `name` that a stack failed with `error`.
pub(crate) fn rejection(error: BoxError, method: Method, name: &str) -> Rejection {
    let kind = method.kind();
    let error = match error.downcast::<ErrorObject>() {
        Ok(e) => return Rejection::Error(*e),
        Err(other) => other,
    };
    let error = match error.downcast::<RateLimited>() {
        Ok(limited) => {
            let millis = u64::try_from(limited.retry_after.as_millis()).unwrap_or(u64::MAX);
            return Rejection::Limited(
                ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    format!("Rate limit exceeded for {kind} `{name}`; retry in {millis} ms"),
                )
                .with_data(serde_json::json!({ "retryAfterMs": millis })),
            );
        }
        Err(other) => other,
    };
    if error.is::<tower::timeout::error::Elapsed>() {
        return Rejection::Error(ErrorObject::internal(format!("{kind} `{name}` timed out")));
    }
    tracing::error!(%method, %name, %error, "middleware failed the call");
    Rejection::Error(ErrorObject::internal(format!(
        "{kind} `{name}` failed: {error}"
    )))
}

/// The JSON-RPC error code a call failed with `error` is answered with.
pub(crate) fn error_code(error: &BoxError) -> i32 {
    error
        .downcast_ref::<ErrorObject>()
        .map_or(codes::INTERNAL_ERROR, |e| e.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_become_answers() {
        let e = ErrorObject::invalid_params("no");
        assert!(matches!(
            rejection(Box::new(e), Method::ToolsCall, "t"),
            Rejection::Error(e) if e.code == codes::INVALID_PARAMS
        ));
        let Rejection::Limited(e) = rejection(
            Box::new(RateLimited::new(Duration::from_millis(1500))),
            Method::PromptsGet,
            "p",
        ) else {
            panic!("limited");
        };
        assert_eq!(e.data.unwrap()["retryAfterMs"], 1500);
        let Rejection::Error(e) = rejection(
            Box::new(tower::timeout::error::Elapsed::new()),
            Method::ToolsCall,
            "slow",
        ) else {
            panic!("an error");
        };
        assert_eq!(
            (e.code, e.message.as_str()),
            (codes::INTERNAL_ERROR, "tool `slow` timed out")
        );
        let Rejection::Error(e) = rejection("boom".into(), Method::ResourcesRead, "a://b") else {
            panic!("an error");
        };
        assert_eq!(e.message, "resource `a://b` failed: boom");
        assert_eq!(error_code(&"boom".into()), codes::INTERNAL_ERROR);
    }
}
