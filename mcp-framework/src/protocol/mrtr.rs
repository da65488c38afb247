//! Multi round-trip requests (2026-07-28): instead of sending requests to the client, a
//! server answers `tools/call`, `prompts/get` or `resources/read` with an
//! [`InputRequiredResult`]; the client fulfils its [`InputRequests`] and retries the original
//! request with the matching [`InputResponses`] and the echoed `requestState`.

use std::collections::BTreeMap;

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capabilities::JsonObject;
use super::elicitation::{ElicitRequestParams, ElicitResult};
use super::result::{ResultType, impl_result_fields};
use super::roots::{ListRootsRequestParams, ListRootsResult};
use super::sampling::{CreateMessageRequestParams, CreateMessageResult};

/// `sampling/createMessage`.
pub const METHOD_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `roots/list`.
pub const METHOD_LIST_ROOTS: &str = "roots/list";
/// `elicitation/create`.
pub const METHOD_ELICIT: &str = "elicitation/create";

/// A request the server needs the client to fulfil: `{"method": …, "params": …}`, with no
/// `jsonrpc` or `id` (it is not a JSON-RPC message of its own).
///
/// Serialized by hand rather than with `#[serde(tag = "method", content = "params")]` so that
/// `roots/list` may omit `params` (the schema makes them optional there and required for the
/// other two). Extra members such as a stray `id` are ignored.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum InputRequest {
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequestParams),
    /// `roots/list`; empty params are left out on the wire.
    ListRoots(ListRootsRequestParams),
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
}

impl InputRequest {
    /// The prefix of a question's default key (`elicitation-1`, `sampling-2`, `roots-3`).
    pub(crate) const fn key_prefix(&self) -> &'static str {
        match self {
            Self::Elicit(_) => "elicitation",
            Self::CreateMessage(_) => "sampling",
            Self::ListRoots(_) => "roots",
        }
    }

    /// The JSON-RPC method name.
    pub const fn method(&self) -> &'static str {
        match self {
            Self::CreateMessage(_) => METHOD_CREATE_MESSAGE,
            Self::ListRoots(_) => METHOD_LIST_ROOTS,
            Self::Elicit(_) => METHOD_ELICIT,
        }
    }

    /// `roots/list` without params.
    pub fn list_roots() -> Self {
        Self::ListRoots(ListRootsRequestParams::default())
    }
}

impl From<CreateMessageRequestParams> for InputRequest {
    fn from(p: CreateMessageRequestParams) -> Self {
        Self::CreateMessage(p)
    }
}

impl From<ListRootsRequestParams> for InputRequest {
    fn from(p: ListRootsRequestParams) -> Self {
        Self::ListRoots(p)
    }
}

impl From<ElicitRequestParams> for InputRequest {
    fn from(p: ElicitRequestParams) -> Self {
        Self::Elicit(p)
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let omit_params = matches!(self, Self::ListRoots(p) if p.is_empty());
        let mut map = s.serialize_map(Some(if omit_params { 1 } else { 2 }))?;
        map.serialize_entry("method", self.method())?;
        match self {
            Self::CreateMessage(p) => map.serialize_entry("params", p)?,
            Self::Elicit(p) => map.serialize_entry("params", p)?,
            Self::ListRoots(p) if !omit_params => map.serialize_entry("params", p)?,
            Self::ListRoots(_) => {}
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }

        let Raw { method, params } = Raw::deserialize(d)?;
        let required = |params: Option<Value>| -> Result<Value, D::Error> {
            params.ok_or_else(|| de::Error::custom(format!("{method}: missing field `params`")))
        };
        match method.as_str() {
            METHOD_CREATE_MESSAGE => from_value(required(params)?).map(Self::CreateMessage),
            METHOD_ELICIT => from_value(required(params)?).map(Self::Elicit),
            METHOD_LIST_ROOTS => match params {
                None | Some(Value::Null) => Ok(Self::list_roots()),
                Some(p) => from_value(p).map(Self::ListRoots),
            },
            other => Err(de::Error::custom(format!(
                "unsupported input request method {other:?}, expected {METHOD_CREATE_MESSAGE}, \
                 {METHOD_LIST_ROOTS} or {METHOD_ELICIT}"
            ))),
        }
    }
}

fn from_value<T: DeserializeOwned, E: de::Error>(v: Value) -> Result<T, E> {
    serde_json::from_value(v).map_err(E::custom)
}

/// Server-assigned keys → the requests to fulfil.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answer to one [`InputRequest`].
///
/// The three result shapes have disjoint required members, so deserialization picks the
/// variant by key rather than trying each in turn (which is what `#[serde(untagged)]`
/// would do, with an unhelpful error when none fits): `action` means
/// [`Elicit`](Self::Elicit), `roots` means [`ListRoots`](Self::ListRoots), and `model`,
/// `role` or `content` mean [`CreateMessage`](Self::CreateMessage). The server knows which
/// kind it asked for under each key; use the `as_*` accessors to get at it.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// Answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
}

impl InputResponse {
    /// The sampling result, if this is one.
    pub fn as_create_message(&self) -> Option<&CreateMessageResult> {
        match self {
            Self::CreateMessage(r) => Some(r),
            _ => None,
        }
    }

    /// The roots, if this is a `roots/list` answer.
    pub fn as_list_roots(&self) -> Option<&ListRootsResult> {
        match self {
            Self::ListRoots(r) => Some(r),
            _ => None,
        }
    }

    /// The elicitation result, if this is one.
    pub fn as_elicit(&self) -> Option<&ElicitResult> {
        match self {
            Self::Elicit(r) => Some(r),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let obj = JsonObject::deserialize(d)?;
        let v = Value::Object(obj);
        if v.get("action").is_some() {
            from_value(v).map(Self::Elicit)
        } else if v.get("roots").is_some() {
            from_value(v).map(Self::ListRoots)
        } else if ["model", "role", "content"]
            .iter()
            .any(|k| v.get(k).is_some())
        {
            from_value(v).map(Self::CreateMessage)
        } else {
            Err(de::Error::custom(
                "unrecognized input response: expected an ElicitResult (`action`), a \
                 ListRootsResult (`roots`) or a CreateMessageResult (`role`, `content`, `model`)",
            ))
        }
    }
}

impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        Self::CreateMessage(r)
    }
}

impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        Self::ListRoots(r)
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        Self::Elicit(r)
    }
}

/// Keys of the [`InputRequests`] → the client's answers.
pub type InputResponses = BTreeMap<String, InputResponse>;

/// The server needs more input before it can complete the request.
///
/// At least one of `inputRequests` and `requestState` must be present.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// What the client should ask for before retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes back on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `"input_required"` (set by [`new`](Self::new)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl InputRequiredResult {
    /// An empty result with `resultType: "input_required"`; add requests and/or state.
    pub fn new() -> Self {
        Self {
            input_requests: None,
            request_state: None,
            result_type: Some(ResultType::InputRequired),
            meta: None,
        }
    }

    /// Adds a request under `key`.
    #[must_use]
    pub fn with_input_request(
        mut self,
        key: impl Into<String>,
        request: impl Into<InputRequest>,
    ) -> Self {
        self.input_requests
            .get_or_insert_with(BTreeMap::new)
            .insert(key.into(), request.into());
        self
    }

    /// Sets `requestState`.
    #[must_use]
    pub fn with_request_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    /// Whether the result has what the spec requires (a request or state).
    pub fn is_valid(&self) -> bool {
        self.request_state.is_some() || self.input_requests.as_ref().is_some_and(|r| !r.is_empty())
    }
}

impl Default for InputRequiredResult {
    fn default() -> Self {
        Self::new()
    }
}

impl_result_fields!(InputRequiredResult);

/// A result that may instead be an [`InputRequiredResult`] (`tools/call`, `prompts/get`,
/// `resources/read` on 2026-07-28).
///
/// Deserialization checks `resultType`: `"input_required"` selects
/// [`InputRequired`](Self::InputRequired); anything else, or no `resultType`, selects
/// [`Complete`](Self::Complete).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MaybeInputRequired<T> {
    /// The final result.
    Complete(T),
    /// More input is needed.
    InputRequired(InputRequiredResult),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for MaybeInputRequired<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let obj = JsonObject::deserialize(d)?;
        let input_required = obj.get("resultType").and_then(Value::as_str)
            == Some(ResultType::InputRequired.as_str());
        let v = Value::Object(obj);
        if input_required {
            from_value(v).map(Self::InputRequired)
        } else {
            from_value(v).map(Self::Complete)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::sampling::SamplingMessage;
    use crate::protocol::tools::CallToolResult;
    use serde_json::json;

    #[test]
    fn input_required_with_only_request_state() {
        let r = InputRequiredResult::new().with_request_state("s1");
        assert!(r.is_valid());
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({"resultType": "input_required", "requestState": "s1"})
        );
        assert_eq!(serde_json::from_value::<InputRequiredResult>(v).unwrap(), r);
        assert!(!InputRequiredResult::new().is_valid());
    }

    #[test]
    fn input_requests_round_trip() {
        let r = InputRequiredResult::new()
            .with_input_request("roots", InputRequest::list_roots())
            .with_input_request(
                "ask",
                CreateMessageRequestParams::new(vec![SamplingMessage::user("q")], 5),
            );
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["inputRequests"]["roots"], json!({"method": "roots/list"}));
        assert_eq!(
            v["inputRequests"]["ask"]["method"],
            "sampling/createMessage"
        );
        assert_eq!(serde_json::from_value::<InputRequiredResult>(v).unwrap(), r);
    }

    #[test]
    fn input_request_errors() {
        let err =
            serde_json::from_value::<InputRequest>(json!({"method": "tools/call", "params": {}}))
                .unwrap_err();
        assert!(err.to_string().contains("tools/call"), "{err}");
        let err = serde_json::from_value::<InputRequest>(json!({"method": "elicitation/create"}))
            .unwrap_err();
        assert!(err.to_string().contains("params"), "{err}");
        let roots: InputRequest =
            serde_json::from_value(json!({"method": "roots/list", "params": null})).unwrap();
        assert_eq!(roots, InputRequest::list_roots());
    }

    #[test]
    fn input_responses_pick_their_variant() {
        let responses: InputResponses = serde_json::from_value(json!({
            "a": {"action": "decline"},
            "b": {"roots": []},
            "c": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}
        }))
        .unwrap();
        assert!(responses["a"].as_elicit().is_some());
        assert!(responses["b"].as_list_roots().is_some());
        assert_eq!(
            responses["c"]
                .as_create_message()
                .unwrap()
                .content
                .as_text(),
            Some("x")
        );
        assert!(serde_json::from_value::<InputResponse>(json!({"foo": 1})).is_err());
        // A malformed result of a recognised kind reports that kind's error.
        let err = serde_json::from_value::<InputResponse>(json!({"action": "maybe"})).unwrap_err();
        assert!(err.to_string().contains("maybe"), "{err}");
    }

    #[test]
    fn maybe_input_required() {
        let done: MaybeInputRequired<CallToolResult> =
            serde_json::from_value(json!({"resultType": "complete", "content": []})).unwrap();
        assert!(matches!(done, MaybeInputRequired::Complete(_)));
        let legacy: MaybeInputRequired<CallToolResult> =
            serde_json::from_value(json!({"content": []})).unwrap();
        assert!(matches!(legacy, MaybeInputRequired::Complete(_)));
        let more: MaybeInputRequired<CallToolResult> =
            serde_json::from_value(json!({"resultType": "input_required", "requestState": "s"}))
                .unwrap();
        assert!(matches!(more, MaybeInputRequired::InputRequired(_)));
    }
}
