//! Sampling: `sampling/createMessage` params and result, sampling messages and their
//! content blocks (which add `tool_use` and `tool_result` to the plain content blocks).
//!
//! On 2026-07-28 a sampling request travels inside an
//! [`InputRequiredResult`](super::mrtr::InputRequiredResult); on legacy sessions it is a
//! server-to-client request.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::annotations::Role;
use super::capabilities::JsonObject;
use super::content::{AudioContent, Content, ImageContent, TextContent};
use super::primitives::Tool;

/// The model's request to call a tool (`{"type":"tool_use"}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Identifies this tool use; a later [`ToolResultContent`] refers to it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub input: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of a tool use, sent back to the model (`{"type":"tool_result"}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The [`ToolUseContent::id`] this answers.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<Content>,
    /// Structured result (any JSON value on 2026-07-28, an object on 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata (clients should keep it when echoing the block back).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A content block of a sampling message (`SamplingMessageContentBlock`).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingMessageContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`.
    Audio(AudioContent),
    /// `"tool_use"`.
    ToolUse(ToolUseContent),
    /// `"tool_result"`.
    ToolResult(ToolResultContent),
}

impl SamplingMessageContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<TextContent> for SamplingMessageContentBlock {
    fn from(c: TextContent) -> Self {
        Self::Text(c)
    }
}

impl From<ImageContent> for SamplingMessageContentBlock {
    fn from(c: ImageContent) -> Self {
        Self::Image(c)
    }
}

impl From<AudioContent> for SamplingMessageContentBlock {
    fn from(c: AudioContent) -> Self {
        Self::Audio(c)
    }
}

impl From<ToolUseContent> for SamplingMessageContentBlock {
    fn from(c: ToolUseContent) -> Self {
        Self::ToolUse(c)
    }
}

impl From<ToolResultContent> for SamplingMessageContentBlock {
    fn from(c: ToolResultContent) -> Self {
        Self::ToolResult(c)
    }
}

/// The `content` of a sampling message or result: the schema allows one block or an array.
///
/// Both spellings are kept as received, so a message round-trips unchanged.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContent {
    /// A single block (`"content": {…}`).
    One(SamplingMessageContentBlock),
    /// Several blocks (`"content": [{…}, …]`).
    Many(Vec<SamplingMessageContentBlock>),
}

impl SamplingMessageContent {
    /// The blocks, whichever spelling was used.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            Self::One(b) => std::slice::from_ref(b),
            Self::Many(v) => v,
        }
    }

    /// The text of a single text block.
    pub fn as_text(&self) -> Option<&str> {
        match self.blocks() {
            [b] => b.as_text(),
            _ => None,
        }
    }
}

impl From<SamplingMessageContentBlock> for SamplingMessageContent {
    fn from(b: SamplingMessageContentBlock) -> Self {
        Self::One(b)
    }
}

impl From<Vec<SamplingMessageContentBlock>> for SamplingMessageContent {
    fn from(v: Vec<SamplingMessageContentBlock>) -> Self {
        Self::Many(v)
    }
}

impl<'de> Deserialize<'de> for SamplingMessageContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct OneOrMany;

        impl<'de> Visitor<'de> for OneOrMany {
            type Value = SamplingMessageContent;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block or an array of content blocks")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                SamplingMessageContentBlock::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(SamplingMessageContent::One)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(SamplingMessageContent::Many)
            }
        }

        d.deserialize_any(OneOrMany)
    }
}

/// A message in a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: SamplingMessageContent,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl SamplingMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: SamplingMessageContentBlock::text(text).into(),
            meta: None,
        }
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: SamplingMessageContentBlock::text(text).into(),
            meta: None,
        }
    }
}

/// A hint for model selection; the client may map it to an equivalent model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name (`"claude-3-5-sonnet"`, `"sonnet"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The server's model preferences; priorities range from 0 to 1.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// Which servers' context to include (`includeContext`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context (the default).
    #[default]
    None,
    /// Context from the requesting server (deprecated; needs `sampling.context`).
    ThisServer,
    /// Context from all servers (deprecated; needs `sampling.context`).
    AllServers,
}

/// How the model may use tools (`toolChoice.mode`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    #[default]
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use tools.
    None,
}

/// Tool selection for a sampling request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode; absent means `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// Params of `sampling/createMessage`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may modify or drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Upper bound on generated tokens.
    pub max_tokens: u64,
    /// Sequences that stop generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata passed through to the LLM provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call (needs the client's `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Request metadata (legacy revisions only; 2026-07-28 defines none here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CreateMessageRequestParams {
    /// A request for at most `max_tokens` tokens continuing `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            max_tokens,
            ..Self::default()
        }
    }
}

/// Result of `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who produced the message (normally the assistant).
    pub role: Role,
    /// The generated content.
    pub content: SamplingMessageContent,
    /// The model that generated it.
    pub model: String,
    /// Why generation stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or a
    /// provider-specific value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_keeps_its_spelling() {
        let one = json!({"role": "user", "content": {"type": "text", "text": "hi"}});
        let m: SamplingMessage = serde_json::from_value(one.clone()).unwrap();
        assert!(matches!(m.content, SamplingMessageContent::One(_)));
        assert_eq!(m.content.as_text(), Some("hi"));
        assert_eq!(serde_json::to_value(&m).unwrap(), one);
        assert_eq!(m, SamplingMessage::user("hi"));

        let many = json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
            {"type": "text", "text": "and"}
        ]});
        let m: SamplingMessage = serde_json::from_value(many.clone()).unwrap();
        assert_eq!(m.content.blocks().len(), 2);
        assert_eq!(m.content.as_text(), None);
        assert_eq!(serde_json::to_value(&m).unwrap(), many);
    }

    #[test]
    fn bad_content_is_reported() {
        let err = serde_json::from_str::<SamplingMessageContent>(r#""text""#).unwrap_err();
        assert!(err.to_string().contains("content block"), "{err}");
        assert!(
            serde_json::from_str::<SamplingMessageContent>(r#"{"type":"resource_link"}"#).is_err()
        );
    }

    #[test]
    fn request_params_minimal() {
        let p = CreateMessageRequestParams::new(vec![SamplingMessage::user("q")], 10);
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}],
                   "maxTokens": 10})
        );
    }
}
