//! Prompts: `prompts/list` and `prompts/get` (the [`Prompt`] definition is a
//! [primitive](super::primitives)).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::annotations::Role;
use super::capabilities::JsonObject;
use super::content::Content;
use super::mrtr::InputResponses;
pub use super::primitives::{Prompt, PromptArgument};
use super::result::{CacheScope, ResultType, de_ttl, impl_result_fields};

/// One message of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A message from `role` with `content`.
    pub fn new(role: Role, content: impl Into<Content>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }

    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, Content::text(text))
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, Content::text(text))
    }
}

/// Params of `prompts/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// The prompt's name.
    pub name: String,
    /// Argument values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
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

/// Result of `prompts/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// A description of the rendered prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// `resultType` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }
}

/// Result of `prompts/list` (paginated, cacheable).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// This page of prompts.
    pub prompts: Vec<Prompt>,
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

impl_result_fields!(GetPromptResult);
impl_result_fields!(cacheable: ListPromptsResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn get_prompt_result_round_trip() {
        let r = GetPromptResult::new(vec![
            PromptMessage::user("hi"),
            PromptMessage::assistant("hello"),
        ]);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": {"type": "text", "text": "hello"}}
            ]})
        );
        assert_eq!(serde_json::from_value::<GetPromptResult>(v).unwrap(), r);
    }

    #[test]
    fn arguments_must_be_strings() {
        let ok = json!({"name": "p", "arguments": {"a": "1"}});
        assert!(serde_json::from_value::<GetPromptRequestParams>(ok).is_ok());
        let bad = json!({"name": "p", "arguments": {"a": 1}});
        assert!(serde_json::from_value::<GetPromptRequestParams>(bad).is_err());
    }
}
