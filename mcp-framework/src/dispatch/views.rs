//! Views of the request params dispatch reads. `_meta` is not among their fields, so serde
//! skips it instead of building it a second time (the era already read it).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::ErrorObject;

/// Reads params into a view; a shape error is `-32602 Invalid params`.
pub(super) fn parse<'a, T: Deserialize<'a>>(
    params: Option<&'a RawValue>,
) -> Result<T, ErrorObject> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
}

#[derive(Deserialize)]
pub(super) struct ListView {
    #[serde(default)]
    pub(super) cursor: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CallView {
    pub(super) name: String,
    #[serde(default)]
    pub(super) arguments: Option<Value>,
    #[serde(default)]
    pub(super) input_responses: Option<Map<String, Value>>,
    #[serde(default)]
    pub(super) request_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GetPromptView {
    pub(super) name: String,
    #[serde(default)]
    pub(super) arguments: Option<Map<String, Value>>,
    #[serde(default)]
    pub(super) input_responses: Option<Map<String, Value>>,
    #[serde(default)]
    pub(super) request_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReadView {
    pub(super) uri: String,
    #[serde(default)]
    pub(super) input_responses: Option<Map<String, Value>>,
    #[serde(default)]
    pub(super) request_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "type")]
pub(super) enum RefView {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Deserialize)]
pub(super) struct ArgumentView {
    pub(super) name: String,
    #[serde(default)]
    pub(super) value: String,
}

#[derive(Deserialize, Default)]
pub(super) struct CompletionContextView {
    #[serde(default)]
    pub(super) arguments: BTreeMap<String, String>,
}

#[derive(Deserialize)]
pub(super) struct CompleteView {
    #[serde(rename = "ref")]
    pub(super) reference: RefView,
    pub(super) argument: ArgumentView,
    #[serde(default)]
    pub(super) context: Option<CompletionContextView>,
}

#[derive(Deserialize)]
pub(super) struct SetLevelView {
    pub(super) level: String,
}

#[derive(Deserialize)]
pub(super) struct UriView {
    pub(super) uri: String,
}
