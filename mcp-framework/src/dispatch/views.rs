//! Views of the request params dispatch reads. `_meta` is not among their fields, so serde
//! skips it instead of building it a second time (the era already read it). The views of
//! a call are read member by member, from where the pass that read `_meta` found each
//! ([`Members`]): the params are not walked again.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::mrtr::ValueDigest;
use crate::protocol::ErrorObject;
use crate::protocol::meta::{Members, Span};

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

/// What a retry of a call carries (MRTR): its sealed state and the answers.
pub(super) struct Retry {
    pub(super) input_responses: Option<Map<String, Value>>,
    pub(super) request_state: Option<String>,
}

impl Retry {
    /// None: a first call, or a task's run (its answers come another way).
    pub(super) fn none() -> Self {
        Self {
            input_responses: None,
            request_state: None,
        }
    }

    fn read(params: &str, at: &Members) -> Result<Self, ErrorObject> {
        Ok(Self {
            input_responses: Members::read(params, at.input_responses, "inputResponses")?,
            request_state: Members::read(params, at.request_state, "requestState")?,
        })
    }
}

/// The call's arguments as the client sent them: the params, kept, and where in them the
/// arguments are. A sealed state (MRTR) is bound to their digest, taken only when a state
/// is opened or sealed (most calls do neither), from this text: the handler has the parsed
/// arguments by then, and the kind may have coerced them.
pub(super) struct Sent {
    params: Option<Box<RawValue>>,
    arguments: Option<Span>,
}

impl Sent {
    pub(super) fn new(params: Option<Box<RawValue>>, at: &Members) -> Self {
        Self {
            params,
            arguments: at.arguments,
        }
    }

    /// The digest of the arguments (absent or `null`: as `{}`).
    pub(super) fn digest(&self) -> ValueDigest {
        let text = match (&self.params, self.arguments) {
            (Some(params), Some(at)) => at.text(params.get()),
            _ => "{}",
        };
        match serde_json::from_str(text) {
            Ok(Value::Null) | Err(_) => ValueDigest::of(&Value::Object(Map::new())),
            Ok(value) => ValueDigest::of(&value),
        }
    }
}

/// The params of a call that names its item: `tools/call` (arguments any JSON, checked
/// against the tool's schema) and `prompts/get` (arguments an object of strings).
pub(super) struct NamedView<A> {
    pub(super) name: String,
    pub(super) arguments: Option<A>,
    pub(super) retry: Retry,
}

/// The params of `tools/call`.
pub(super) type CallView = NamedView<Value>;

/// The params of `prompts/get`.
pub(super) type GetPromptView = NamedView<Map<String, Value>>;

impl<A: serde::de::DeserializeOwned> NamedView<A> {
    pub(super) fn read(params: Option<&RawValue>, at: &Members) -> Result<Self, ErrorObject> {
        let params = params.map_or("", RawValue::get);
        Ok(Self {
            name: Members::require(params, at.name, "name")?,
            arguments: Members::read(params, at.arguments, "arguments")?,
            retry: Retry::read(params, at)?,
        })
    }
}

/// The params of `resources/read`.
pub(super) struct ReadView {
    pub(super) uri: String,
    pub(super) retry: Retry,
}

impl ReadView {
    pub(super) fn read(params: Option<&RawValue>, at: &Members) -> Result<Self, ErrorObject> {
        let params = params.map_or("", RawValue::get);
        Ok(Self {
            uri: Members::require(params, at.uri, "uri")?,
            retry: Retry::read(params, at)?,
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::meta::read_request_head;

    fn raw(text: &str) -> Box<RawValue> {
        serde_json::from_str(text).unwrap()
    }

    fn sent(text: &str) -> Sent {
        let params = raw(text);
        let members = read_request_head(Some(&params)).unwrap().members;
        Sent::new(Some(params), &members)
    }

    #[test]
    fn a_call_is_read_member_by_member() {
        let params = raw(
            r#"{"_meta":{"progressToken":1},"arguments":{"a":[1,2]},"name":"add","requestState":"s"}"#,
        );
        let members = read_request_head(Some(&params)).unwrap().members;
        let view = CallView::read(Some(&params), &members).unwrap();
        assert_eq!(view.name, "add");
        assert_eq!(view.arguments, Some(serde_json::json!({"a": [1, 2]})));
        assert_eq!(view.retry.request_state.as_deref(), Some("s"));
        assert!(view.retry.input_responses.is_none());
    }

    #[test]
    fn a_member_of_the_wrong_shape_is_named() {
        let params = raw(r#"{"name":5}"#);
        let members = read_request_head(Some(&params)).unwrap().members;
        let Err(e) = CallView::read(Some(&params), &members) else {
            panic!("a number is no name");
        };
        assert!(
            e.message
                .starts_with("Invalid params: `name`: invalid type"),
            "{}",
            e.message
        );
        let params = raw(r#"{"arguments":{}}"#);
        let members = read_request_head(Some(&params)).unwrap().members;
        let Err(e) = CallView::read(Some(&params), &members) else {
            panic!("no name");
        };
        assert_eq!(e.message, "Invalid params: missing field `name`");
    }

    #[test]
    fn the_digest_is_of_the_arguments_whatever_their_order_and_spacing() {
        let a = sent(r#"{"name":"t","arguments":{"a":1,"b":[true,null]}}"#).digest();
        let b = sent(r#"{ "arguments" : { "b" : [ true , null ] , "a" : 1 } , "name":"t"}"#);
        assert_eq!(a, b.digest());
        assert_ne!(
            a,
            sent(r#"{"name":"t","arguments":{"a":2,"b":[true,null]}}"#).digest()
        );
        // Absent, `null` and `{}` are the same call.
        let empty = sent(r#"{"name":"t","arguments":{}}"#).digest();
        assert_eq!(empty, sent(r#"{"name":"t"}"#).digest());
        assert_eq!(empty, sent(r#"{"name":"t","arguments":null}"#).digest());
    }
}
