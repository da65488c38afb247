//! Roots: `roots/list`, the client's filesystem boundaries.
//!
//! On 2026-07-28 `roots/list` travels inside an
//! [`InputRequiredResult`](super::mrtr::InputRequiredResult); on legacy sessions it is a
//! server-to-client request.

use serde::{Deserialize, Serialize};

use super::capabilities::JsonObject;

/// A directory or file the server may operate on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// The root's URI (`file://` for now).
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Root {
    /// A root with a URI and a display name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: Some(name.into()),
            meta: None,
        }
    }
}

/// Params of `roots/list` (optional; only `_meta`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ListRootsRequestParams {
    /// Whether there is nothing to send (then `params` can be left out).
    pub fn is_empty(&self) -> bool {
        self.meta.is_none()
    }
}

/// Result of `roots/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Result metadata (legacy revisions only; 2026-07-28 defines none here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip() {
        let r = ListRootsResult {
            roots: vec![Root::new("file:///a", "A")],
            meta: None,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v, json!({"roots": [{"uri": "file:///a", "name": "A"}]}));
        assert_eq!(serde_json::from_value::<ListRootsResult>(v).unwrap(), r);
    }
}
