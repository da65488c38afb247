//! Parameter objects shared by several methods: `RequestParams`, `PaginatedRequestParams`,
//! `NotificationParams`.

use serde::{Deserialize, Serialize};

use super::capabilities::JsonObject;

/// Params of a request that has nothing but `_meta` (`server/discover`, legacy `ping`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request metadata: on 2026-07-28 it carries the protocol version and client capabilities.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of a paginated list request (`tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// The `nextCursor` of the previous page; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of a notification that has nothing but `_meta` (the `list_changed` notifications).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// Notification metadata (`io.modelcontextprotocol/subscriptionId` on 2026-07-28).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
