//! Tools: `tools/list` and `tools/call` (the [`Tool`] definition is a
//! [primitive](super::primitives)).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capabilities::JsonObject;
use super::content::Content;
use super::mrtr::InputResponses;
pub use super::primitives::{Tool, ToolAnnotations};
use super::result::{CacheScope, ResultType, de_ttl, impl_result_fields};

/// Params of `tools/call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool's name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
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

/// Result of `tools/call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured result.
    pub content: Vec<Content>,
    /// Structured result, conforming to the tool's `outputSchema`. Any JSON value on
    /// 2026-07-28; an object on legacy revisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed (a tool error, not a protocol error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `resultType` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result with this content (`isError` omitted).
    pub fn success(content: Vec<Content>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A failed result (`isError: true`) with this content.
    pub fn error(content: Vec<Content>) -> Self {
        Self {
            content,
            is_error: Some(true),
            ..Self::default()
        }
    }

    /// A successful result carrying `structuredContent` and, for older clients, the same value
    /// serialized as a text block.
    pub fn structured(value: Value) -> Self {
        Self {
            content: vec![Content::text(value.to_string())],
            structured_content: Some(value),
            ..Self::default()
        }
    }

    /// Whether `isError` is `true`.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// Result of `tools/list` (paginated, cacheable).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// This page of tools.
    pub tools: Vec<Tool>,
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

impl_result_fields!(CallToolResult);
impl_result_fields!(cacheable: ListToolsResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn call_tool_result_constructors() {
        assert_eq!(
            serde_json::to_value(CallToolResult::success(vec![Content::text("ok")])).unwrap(),
            json!({"content": [{"type": "text", "text": "ok"}]})
        );
        let err = CallToolResult::error(vec![Content::text("bad")]);
        assert!(err.is_error());
        assert_eq!(serde_json::to_value(&err).unwrap()["isError"], true);
        let s = CallToolResult::structured(json!([1, 2]));
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            json!({"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": [1, 2]})
        );
    }

    #[test]
    fn tool_round_trip() {
        let mut schema = JsonObject::new();
        schema.insert("type".into(), json!("object"));
        let mut tool = Tool::new("add", schema);
        tool.annotations = Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        });
        let v = serde_json::to_value(&tool).unwrap();
        assert_eq!(
            v,
            json!({"name": "add", "inputSchema": {"type": "object"},
                   "annotations": {"readOnlyHint": true}})
        );
        assert_eq!(serde_json::from_value::<Tool>(v).unwrap(), tool);
    }
}
