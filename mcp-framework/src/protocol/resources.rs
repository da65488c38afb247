//! Resources: `resources/list`, `resources/templates/list`, `resources/read` and
//! `notifications/resources/updated` (the [`Resource`] and [`ResourceTemplate`] definitions
//! are [primitives](super::primitives)).

use serde::{Deserialize, Serialize};

use super::capabilities::JsonObject;
use super::content::ResourceContents;
use super::mrtr::InputResponses;
pub use super::primitives::{Resource, ResourceTemplate};
use super::result::{CacheScope, ResultType, de_ttl, impl_result_fields};

/// Params of `resources/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// The URI to read.
    pub uri: String,
    /// Answers to the previous `InputRequiredResult`'s `inputRequests` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous `InputRequiredResult`'s `requestState`, echoed back (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `resources/read` (cacheable).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// The contents (a template read may yield several resources).
    pub contents: Vec<ResourceContents>,
    /// `resultType` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Cache freshness in milliseconds (2026-07-28).
    #[serde(
        default,
        deserialize_with = "de_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ReadResourceResult {
    /// A result with these contents and no other fields.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        Self {
            contents,
            ..Self::default()
        }
    }
}

/// Result of `resources/list` (paginated, cacheable).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// This page of resources.
    pub resources: Vec<Resource>,
    /// Cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `resultType` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Cache freshness in milliseconds (2026-07-28).
    #[serde(
        default,
        deserialize_with = "de_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `resources/templates/list` (paginated, cacheable).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// This page of templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `resultType` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Cache freshness in milliseconds (2026-07-28).
    #[serde(
        default,
        deserialize_with = "de_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl_result_fields!(cacheable: ReadResourceResult, ListResourcesResult, ListResourceTemplatesResult);

/// Params of `notifications/resources/updated`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdatedNotificationParams {
    /// The URI of the resource that changed (possibly a sub-resource of the subscribed one).
    pub uri: String,
    /// Notification metadata (`io.modelcontextprotocol/subscriptionId` on 2026-07-28).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::result::Cacheable;
    use serde_json::json;

    #[test]
    fn read_result_legacy_and_modern() {
        let mut r =
            ReadResourceResult::new(vec![ResourceContents::text("file:///a", "text/plain", "x")]);
        let legacy =
            json!({"contents": [{"uri": "file:///a", "mimeType": "text/plain", "text": "x"}]});
        assert_eq!(serde_json::to_value(&r).unwrap(), legacy);
        r.result_type = Some(ResultType::Complete);
        r.set_cache_hints(Some(0), Some(CacheScope::Private));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["ttlMs"], 0);
        assert_eq!(v["cacheScope"], "private");
        assert_eq!(v["resultType"], "complete");
        assert_eq!(serde_json::from_value::<ReadResourceResult>(v).unwrap(), r);
    }
}
