//! JSON-RPC 2.0 framing: request ids, error objects, the incoming-message classifier and
//! the hand-written envelope encoder used on the hot path.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON-RPC request id: a string or an integer (never `null` in MCP).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        Self::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Number(n) => s.serialize_i64(*n),
            Self::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(Self::String(s)),
            Value::Number(n) => n
                .as_i64()
                .map(Self::Number)
                .ok_or_else(|| de::Error::custom("request id must be an integer or a string")),
            _ => Err(de::Error::custom(
                "request id must be an integer or a string",
            )),
        }
    }
}

impl RequestId {
    /// The id as a JSON value (keeps its JSON type).
    pub fn to_value(&self) -> Value {
        match self {
            Self::Number(n) => Value::from(*n),
            Self::String(s) => Value::from(s.as_str()),
        }
    }

    fn from_raw(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        match text.as_bytes().first()? {
            b'"' => serde_json::from_str::<String>(text).ok().map(Self::String),
            b'-' | b'0'..=b'9' => text.parse::<i64>().ok().map(Self::Number),
            _ => None,
        }
    }

    /// How many bytes [`write_json`](Self::write_json) writes.
    fn json_len(&self) -> usize {
        /// Counts what is written.
        struct Count(usize);
        impl std::io::Write for Count {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0 += bytes.len();
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        match self {
            Self::Number(n) => itoa_buf(*n).as_bytes().len(),
            Self::String(s) => {
                let mut count = Count(0);
                serde_json::to_writer(&mut count, s).expect("strings serialize");
                count.0
            }
        }
    }

    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Self::Number(n) => {
                let buf = itoa_buf(*n);
                out.extend_from_slice(buf.as_bytes());
            }
            Self::String(s) => write_json_string(out, s),
        }
    }
}

/// Standard and MCP-defined JSON-RPC error codes.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters (also: unknown tool, prompt or resource).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// HTTP headers do not match the body, or required headers are missing (2026-07-28).
    pub const HEADER_MISMATCH: i32 = -32020;
    /// The request needs a client capability the client did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// The requested protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// Resource not found, as legacy revisions (2025-11-25 and earlier) report it.
    pub const LEGACY_RESOURCE_NOT_FOUND: i32 = -32002;
    /// The caller's token lacks the scopes the item needs (this framework's code: the
    /// specification answers with HTTP `403` and `WWW-Authenticate`, which HTTP sends
    /// around this error; `data.requiredScopes` lists the scopes).
    pub const INSUFFICIENT_SCOPE: i32 = -32003;
}

/// A JSON-RPC error object: `{code, message, data?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code (see [`codes`]).
    pub code: i32,
    /// A short description.
    pub message: String,
    /// Additional information.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700 Parse error`.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600 Invalid Request`.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(codes::INVALID_REQUEST, format!("Invalid Request: {detail}"))
    }

    /// `-32601 Method not found`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// `-32602 Invalid params`.
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, detail)
    }

    /// `-32603 Internal error`.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, detail)
    }

    /// A resource that does not exist: `-32602` with `data.uri` (legacy sessions see the
    /// code their revision used, `-32002`). Return it from a resource handler whose
    /// template matched a URI that names nothing.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(codes::INVALID_PARAMS, format!("Resource not found: {uri}"))
            .with_data(serde_json::json!({ "uri": uri }))
    }

    /// A resource that does not exist, with the code of `version`'s era: `-32602` from
    /// 2026-07-28 on, `-32002` before.
    pub(crate) fn resource_not_found_in(
        version: super::version::ProtocolVersion,
        uri: &str,
    ) -> Self {
        let code = if version.is_modern() {
            codes::INVALID_PARAMS
        } else {
            codes::LEGACY_RESOURCE_NOT_FOUND
        };
        Self::new(code, format!("Resource not found: {uri}"))
            .with_data(serde_json::json!({ "uri": uri }))
    }

    /// `-32003`: the caller lacks `scopes` (every scope the item requires), listed in
    /// `data.requiredScopes` (over HTTP: `403` with a step-up challenge for them).
    pub(crate) fn insufficient_scope(scopes: Vec<String>) -> Self {
        let message = format!(
            "Forbidden: this needs the scope{} {}",
            if scopes.len() == 1 { "" } else { "s" },
            scopes.join(" ")
        );
        let mut data = serde_json::Map::new();
        data.insert("requiredScopes".to_owned(), Value::from(scopes));
        Self::new(codes::INSUFFICIENT_SCOPE, message).with_data(Value::Object(data))
    }

    /// `-32020 HeaderMismatch`.
    pub fn header_mismatch(detail: impl fmt::Display) -> Self {
        Self::new(codes::HEADER_MISMATCH, format!("Header mismatch: {detail}"))
    }

    /// `-32021 MissingRequiredClientCapability` listing what is missing.
    pub fn missing_capability(required: Value) -> Self {
        // Clients show the message only: it names the capabilities (`elicitation.form`).
        let mut names = Vec::new();
        capability_names(&required, &mut String::new(), &mut names);
        let message = match names.as_slice() {
            [] => "Missing required client capability".to_owned(),
            [one] => format!("Missing required client capability `{one}`"),
            many => format!(
                "Missing required client capabilities {}",
                many.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Self::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message).with_data(Value::Object(
            serde_json::Map::from_iter([("requiredCapabilities".to_owned(), required)]),
        ))
    }
}

/// The dotted paths of a capabilities object's leaves (`{"elicitation": {"form": {}}}`:
/// `elicitation.form`).
fn capability_names(value: &Value, prefix: &mut String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, inner) in map {
                let len = prefix.len();
                if !prefix.is_empty() {
                    prefix.push('.');
                }
                prefix.push_str(key);
                capability_names(inner, prefix, out);
                prefix.truncate(len);
            }
        }
        _ if !prefix.is_empty() => out.push(prefix.clone()),
        _ => {}
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// One message received from the peer, classified.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request: expects exactly one response.
    Request(Request),
    /// A notification: no response.
    Notification(Notification),
    /// A response to a request this server sent (legacy sessions only).
    Response(Response),
}

/// An incoming request.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) params: Option<Box<RawValue>>,
}

/// An incoming notification.
#[derive(Debug)]
pub(crate) struct Notification {
    pub(crate) method: String,
    pub(crate) params: Option<Box<RawValue>>,
}

/// An incoming response (to a server-to-client request).
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) id: RequestId,
    pub(crate) outcome: Result<Box<RawValue>, ErrorObject>,
}

/// Why a message could not be classified: answer with this error (`id` when it was readable).
#[derive(Debug)]
pub(crate) struct Rejected {
    pub(crate) id: Option<RequestId>,
    pub(crate) error: ErrorObject,
}

#[derive(Deserialize)]
struct RawEnvelope<'a> {
    #[serde(default, deserialize_with = "version_two")]
    jsonrpc: bool,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

/// Whether `jsonrpc` is `"2.0"` (`null` is not), read without copying it.
fn version_two<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct Two;
    impl de::Visitor<'_> for Two {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E>(self, s: &str) -> Result<bool, E> {
            Ok(s == "2.0")
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(false)
        }
    }
    d.deserialize_any(Two)
}

/// Deserializes a field that is present (even when `null`) as `Some(raw)`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Classifies one JSON-RPC message. Batches (arrays) and anything that is not a single
/// request, notification or response is rejected with the JSON-RPC error to send back.
// A rejection is the rare path; boxing it would cost every valid message an allocation check.
#[allow(clippy::result_large_err)]
pub(crate) fn parse_message(bytes: &[u8]) -> Result<Incoming, Rejected> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        // Still valid JSON? Then it is a batch, which MCP does not allow.
        return Err(Rejected {
            id: None,
            error: if serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok() {
                ErrorObject::invalid_request("batches are not supported")
            } else {
                ErrorObject::parse_error("invalid JSON")
            },
        });
    }
    let env: RawEnvelope<'_> = match serde_json::from_slice(bytes) {
        Ok(env) => env,
        Err(e) if e.is_syntax() || e.is_eof() => {
            return Err(Rejected {
                id: None,
                error: ErrorObject::parse_error(e),
            });
        }
        Err(e) => {
            // Valid JSON but not an object of the expected shape.
            return Err(Rejected {
                id: None,
                error: ErrorObject::invalid_request(e),
            });
        }
    };
    let id = match env.id {
        None => None,
        Some(raw) => match RequestId::from_raw(raw) {
            Some(id) => Some(id),
            None => {
                return Err(Rejected {
                    id: None,
                    error: ErrorObject::invalid_request("id must be a string or an integer"),
                });
            }
        },
    };
    if !env.jsonrpc {
        return Err(Rejected {
            id,
            error: ErrorObject::invalid_request("jsonrpc must be \"2.0\""),
        });
    }
    let params = match env.params {
        Some(raw) if raw.get() == "null" => None,
        Some(raw) => {
            if !raw.get().starts_with('{') {
                return Err(Rejected {
                    id,
                    error: ErrorObject::invalid_request("params must be an object"),
                });
            }
            Some(raw.to_owned())
        }
        None => None,
    };
    match (env.method, id) {
        (Some(method), Some(id)) => Ok(Incoming::Request(Request {
            id,
            method: method.into_owned(),
            params,
        })),
        (Some(method), None) => Ok(Incoming::Notification(Notification {
            method: method.into_owned(),
            params,
        })),
        (None, Some(id)) => {
            let outcome = match (env.result, env.error) {
                (Some(result), None) => Ok(result.to_owned()),
                (None, Some(error)) => Err(error),
                _ => {
                    return Err(Rejected {
                        id: Some(id),
                        error: ErrorObject::invalid_request(
                            "a response needs exactly one of result and error",
                        ),
                    });
                }
            };
            Ok(Incoming::Response(Response { id, outcome }))
        }
        (None, None) => Err(Rejected {
            id: None,
            error: ErrorObject::invalid_request("missing method"),
        }),
    }
}

// Encoding: every outgoing message is one of these four, written by hand around its
// already-serialized parts.

/// `{"jsonrpc":"2.0","id":…,"result":…}` around an already-encoded result.
/// Sized exactly, so that it becomes `Bytes` without another allocation.
pub(crate) fn result_message(id: &RequestId, result: &[u8]) -> Vec<u8> {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &[u8] = br#","result":"#;
    let mut out = Vec::with_capacity(HEAD.len() + id.json_len() + RESULT.len() + result.len() + 1);
    out.extend_from_slice(HEAD);
    id.write_json(&mut out);
    out.extend_from_slice(RESULT);
    out.extend_from_slice(result);
    out.push(b'}');
    debug_assert_eq!(out.len(), out.capacity());
    out
}

/// `{"jsonrpc":"2.0","id":…,"error":…}`; `id: null` when it could not be read.
pub(crate) fn error_message(id: Option<&RequestId>, error: &ErrorObject) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    match id {
        Some(id) => id.write_json(&mut out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","error":"#);
    serde_json::to_writer(&mut out, error).expect("error objects serialize");
    out.push(b'}');
    out
}

/// `{"jsonrpc":"2.0","method":…,"params":…}`.
pub(crate) fn notification_message(method: &str, params: &impl Serialize) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    write_json_string(&mut out, method);
    out.extend_from_slice(br#","params":"#);
    serde_json::to_writer(&mut out, params).expect("notification params serialize");
    out.push(b'}');
    out
}

/// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}` (legacy server-to-client request).
pub(crate) fn request_message(id: &RequestId, method: &str, params: &impl Serialize) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    id.write_json(&mut out);
    out.extend_from_slice(br#","method":"#);
    write_json_string(&mut out, method);
    out.extend_from_slice(br#","params":"#);
    serde_json::to_writer(&mut out, params).expect("request params serialize");
    out.push(b'}');
    out
}

pub(crate) fn write_json_string(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("strings serialize");
}

struct ItoaBuf {
    bytes: [u8; 20],
    start: usize,
}

impl ItoaBuf {
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[self.start..]
    }
}

fn itoa_buf(n: i64) -> ItoaBuf {
    let mut bytes = [0u8; 20];
    let mut pos = bytes.len();
    let neg = n < 0;
    let mut v = n.unsigned_abs();
    loop {
        pos -= 1;
        bytes[pos] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if neg {
        pos -= 1;
        bytes[pos] = b'-';
    }
    ItoaBuf { bytes, start: pos }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_capability_is_named_in_the_message() {
        let e = ErrorObject::missing_capability(serde_json::json!({"elicitation": {"form": {}}}));
        assert_eq!(
            e.message,
            "Missing required client capability `elicitation.form`"
        );
        let e = ErrorObject::missing_capability(serde_json::json!({"sampling": {}, "roots": {}}));
        assert_eq!(
            e.message,
            "Missing required client capabilities `sampling`, `roots`"
        );
        assert_eq!(
            e.data.unwrap()["requiredCapabilities"],
            serde_json::json!({"sampling": {}, "roots": {}})
        );
    }

    #[allow(clippy::result_large_err)]
    fn classify(s: &str) -> Result<Incoming, Rejected> {
        parse_message(s.as_bytes())
    }

    #[test]
    fn requests_notifications_responses() {
        let Ok(Incoming::Request(r)) =
            classify(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"a":1}}"#)
        else {
            panic!("request")
        };
        assert_eq!(r.id, RequestId::Number(7));
        assert_eq!(r.method, "tools/list");
        assert_eq!(r.params.unwrap().get(), r#"{"a":1}"#);

        let Ok(Incoming::Notification(n)) =
            classify(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#)
        else {
            panic!("notification")
        };
        assert_eq!(n.method, "notifications/cancelled");

        let Ok(Incoming::Response(r)) = classify(r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#)
        else {
            panic!("response")
        };
        assert_eq!(r.id, RequestId::String("s1".into()));
        assert!(r.outcome.is_ok());
    }

    #[test]
    fn rejects_bad_messages() {
        assert_eq!(
            classify("{not json").unwrap_err().error.code,
            codes::PARSE_ERROR
        );
        assert_eq!(
            classify("\u{0}\u{1}").unwrap_err().error.code,
            codes::PARSE_ERROR
        );
        assert_eq!(
            classify("[]").unwrap_err().error.code,
            codes::INVALID_REQUEST
        );
        assert_eq!(classify("[1,").unwrap_err().error.code, codes::PARSE_ERROR);
        assert_eq!(
            classify("42").unwrap_err().error.code,
            codes::INVALID_REQUEST
        );
        let null_id = classify(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).unwrap_err();
        assert_eq!(null_id.error.code, codes::INVALID_REQUEST);
        let float_id = classify(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#).unwrap_err();
        assert_eq!(float_id.error.code, codes::INVALID_REQUEST);
        let no_version = classify(r#"{"id":3,"method":"x"}"#).unwrap_err();
        assert_eq!(no_version.id, Some(RequestId::Number(3)));
        for version in [r#""1.0""#, "null", r#""2.0 ""#] {
            let wrong = classify(&format!(r#"{{"jsonrpc":{version},"id":3,"method":"x"}}"#));
            let wrong = wrong.unwrap_err();
            assert_eq!(
                (wrong.id, wrong.error.code),
                (Some(RequestId::Number(3)), codes::INVALID_REQUEST),
                "{version}"
            );
        }
        let number = classify(r#"{"jsonrpc":2,"id":3,"method":"x"}"#).unwrap_err();
        assert_eq!(number.error.code, codes::INVALID_REQUEST);
        // An escaped "2.0" is still "2.0".
        assert!(classify(r#"{"jsonrpc":"2\u002e0","id":3,"method":"x"}"#).is_ok());
        let bad_params = classify(r#"{"jsonrpc":"2.0","id":3,"method":"x","params":[1]}"#);
        assert_eq!(bad_params.unwrap_err().error.code, codes::INVALID_REQUEST);
    }

    #[test]
    fn encodes_envelopes() {
        let out = result_message(&RequestId::Number(-12), br#"{"x":1}"#);
        assert_eq!(out, br#"{"jsonrpc":"2.0","id":-12,"result":{"x":1}}"#);
        let out = error_message(None, &ErrorObject::new(-32700, "bad"));
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], -32700);
        // Sized exactly (a `debug_assert` checks it) whatever the id needs escaped.
        for id in ["a\"b", "", "\u{1}é\\"] {
            let out = result_message(&RequestId::String(id.into()), b"{}");
            assert_eq!(out.len(), out.capacity());
            let v: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["id"], id);
        }
        let out = result_message(&RequestId::Number(i64::MIN), b"{}");
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], i64::MIN);
    }
}
