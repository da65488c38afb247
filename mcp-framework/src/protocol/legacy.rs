//! Shapes of 2025-11-25 (and older) that 2026-07-28 removed: the `initialize` handshake,
//! `logging/setLevel`, `resources/subscribe`/`unsubscribe`, and the URL-elicitation
//! completion notification and error.
//!
//! Shapes that merely changed are not duplicated here; the shared types carry the difference
//! as optional fields:
//! - [`ElicitRequestUrlParams::elicitation_id`](super::elicitation::ElicitRequestUrlParams)
//!   (required on 2025-11-25, gone on 2026-07-28);
//! - `resultType`, `ttlMs` and `cacheScope` on results (absent on legacy revisions);
//! - `inputResponses` and `requestState` on request params (2026-07-28 only);
//! - [`CancelledNotificationParams::request_id`](super::notifications::CancelledNotificationParams)
//!   (optional on 2025-11-25);
//! - [`RootsCapability::list_changed`](super::capabilities::RootsCapability).
//!
//! Tasks (`tasks/*`, `task` params, `Tool.execution`) of 2025-11-25 are not modelled.

use serde::{Deserialize, Serialize};

use super::capabilities::{ClientCapabilities, JsonObject, ServerCapabilities};
use super::elicitation::ElicitRequestUrlParams;
use super::implementation::Implementation;
use super::logging::LoggingLevel;

/// `-32042 URLElicitationRequiredError` (2025-11-25): the request needs URL elicitations
/// to complete first; `data` is [`UrlElicitationRequiredData`].
pub const URL_ELICITATION_REQUIRED: i32 = -32042;

/// Params of `initialize`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The newest version the client supports.
    pub protocol_version: String,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// The client's name and version.
    pub client_info: Implementation,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `initialize`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server chose.
    pub protocol_version: String,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// The server's name and version.
    pub server_info: Implementation,
    /// Guidance for the model on using the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `logging/setLevel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// The lowest level the client wants.
    pub level: LoggingLevel,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `resources/subscribe`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscribeRequestParams {
    /// The resource to watch.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `resources/unsubscribe`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnsubscribeRequestParams {
    /// The resource to stop watching.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `notifications/elicitation/complete` (2025-11-25): a URL elicitation finished.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the URL elicitation.
    pub elicitation_id: String,
}

/// `data` of a [`URL_ELICITATION_REQUIRED`] error.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations to complete (each with its `elicitationId`).
    pub elicitations: Vec<ElicitRequestUrlParams>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn initialize_round_trip() {
        let v = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": true}},
            "clientInfo": {"name": "c", "version": "1"}
        });
        let p: InitializeRequestParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(
            p.capabilities.roots.as_ref().unwrap().list_changed,
            Some(true)
        );
        assert_eq!(serde_json::to_value(&p).unwrap(), v);

        let r = InitializeResult {
            protocol_version: "2025-11-25".into(),
            server_info: Implementation {
                name: "s".into(),
                version: "1".into(),
                ..Implementation::default()
            },
            ..InitializeResult::default()
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "serverInfo": {"name": "s", "version": "1"}})
        );
    }

    #[test]
    fn set_level() {
        let p: SetLevelRequestParams = serde_json::from_value(json!({"level": "info"})).unwrap();
        assert_eq!(p.level, LoggingLevel::Info);
    }
}
