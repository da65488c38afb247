//! `server/discover` (2026-07-28): what the server supports, without a handshake.
//!
//! The request's params are [`RequestParams`](super::params::RequestParams).

use serde::{Deserialize, Serialize};

use super::capabilities::{JsonObject, ServerCapabilities};
use super::result::{CacheScope, ResultType, de_ttl, impl_result_fields};

/// Result of `server/discover` (cacheable).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// The protocol versions the server speaks.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Guidance for the model on using the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Cache freshness in milliseconds.
    #[serde(
        default,
        deserialize_with = "de_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// Cache scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata (`io.modelcontextprotocol/serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl_result_fields!(cacheable: DiscoverResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip() {
        let v = json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 1000,
            "cacheScope": "public"
        });
        let r: DiscoverResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.cache_scope, Some(CacheScope::Public));
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }
}
