//! Params of `notifications/progress`, `notifications/message` and
//! `notifications/cancelled`. (The `list_changed` notifications take
//! [`NotificationParams`](super::params::NotificationParams); `resources/updated` is in
//! [`resources`](super::resources); the subscription acknowledgement is in
//! [`subscriptions`](super::subscriptions).)

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capabilities::JsonObject;
use super::jsonrpc::RequestId;
use super::logging::LoggingLevel;
use super::meta::ProgressToken;

/// Params of `notifications/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    pub progress: f64,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `notifications/message` (a log message).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Severity.
    pub level: LoggingLevel,
    /// The logger's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value.
    pub data: Value,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `notifications/cancelled`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The request to cancel. Required on 2026-07-28; optional on 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn progress_keeps_the_token_type() {
        let v = json!({"progressToken": 7, "progress": 0.5});
        let p: ProgressNotificationParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.progress_token, RequestId::Number(7));
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }

    #[test]
    fn log_data_may_be_any_value() {
        let v = json!({"level": "warning", "data": null});
        let p: LoggingMessageNotificationParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.level, LoggingLevel::Warning);
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }
}
