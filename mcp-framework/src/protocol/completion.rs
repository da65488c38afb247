//! Argument completion: `completion/complete`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::capabilities::JsonObject;
use super::result::{ResultType, impl_result_fields};

/// The most values one `completion/complete` result may carry.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What is being completed: a prompt's argument or a resource template's variable.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Reference {
    /// `{"type":"ref/prompt","name":…}`.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// `{"type":"ref/resource","uri":…}`.
    #[serde(rename = "ref/resource")]
    Resource(ResourceTemplateReference),
}

/// A prompt, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptReference {
    /// The prompt's name.
    pub name: String,
    /// Human-readable name for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A resource template, by URI template.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// The URI template.
    pub uri: String,
}

/// The argument being completed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's name.
    pub name: String,
    /// What the user has typed so far.
    pub value: String,
}

/// Context for a completion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Params of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// The prompt or resource template.
    #[serde(rename = "ref")]
    pub reference: Reference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Other, already resolved arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The completion values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values.
    pub values: Vec<String>,
    /// The total number of matches, which may exceed `values.len()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more matches than `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// All matches: keeps the first [`MAX_COMPLETION_VALUES`] and sets `total` and `hasMore`.
    pub fn from_matches(mut matches: Vec<String>) -> Self {
        let total = matches.len();
        matches.truncate(MAX_COMPLETION_VALUES);
        Self {
            values: matches,
            total: Some(total as u64),
            has_more: Some(total > MAX_COMPLETION_VALUES),
        }
    }
}

/// Result of `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The values.
    pub completion: Completion,
    /// `resultType` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl_result_fields!(CompleteResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reference_is_tagged_on_type() {
        let p: CompleteRequestParams = serde_json::from_value(json!({
            "ref": {"type": "ref/resource", "uri": "file:///{path}"},
            "argument": {"name": "path", "value": "sr"}
        }))
        .unwrap();
        assert_eq!(
            p.reference,
            Reference::Resource(ResourceTemplateReference {
                uri: "file:///{path}".into()
            })
        );
        let v = serde_json::to_value(Reference::Prompt(PromptReference {
            name: "p".into(),
            title: None,
        }))
        .unwrap();
        assert_eq!(v, json!({"type": "ref/prompt", "name": "p"}));
    }

    #[test]
    fn completion_caps_values() {
        let c = Completion::from_matches((0..150).map(|i| i.to_string()).collect());
        assert_eq!(c.values.len(), MAX_COMPLETION_VALUES);
        assert_eq!(c.total, Some(150));
        assert_eq!(c.has_more, Some(true));
        let c = Completion::from_matches(vec!["a".into()]);
        assert_eq!(c.has_more, Some(false));
    }
}
