//! Reserved `_meta` keys and the per-request protocol fields of 2026-07-28.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::value::RawValue;

use super::capabilities::ClientCapabilities;
use super::implementation::Implementation;
use super::jsonrpc::{ErrorObject, RequestId};
use super::version::ProtocolVersion;

/// Reserved `_meta` key names.
pub mod keys {
    /// Protocol version of a request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Client capabilities relevant to a request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Client name and version.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Minimum log level for a request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Server name and version, on results.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Correlates a notification with its `subscriptions/listen` request.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The Tasks extension (`capabilities.extensions`, client and server).
    pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
    /// The Skills extension (`capabilities.extensions` of the server).
    pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
    /// The MCP Apps extension (`capabilities.extensions`, client and server).
    pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
    /// Opts a request into progress notifications.
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// A progress token: a string or an integer, echoed back with its JSON type.
pub type ProgressToken = RequestId;

/// The `_meta` fields this crate reads from a request. The parsed capabilities and client
/// information are shared (the request's context holds them), and parsed once per thread
/// while a client keeps sending the same text (see [`Memo`]).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RequestMeta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
    pub(crate) protocol_version: Option<RequestedVersion>,
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        deserialize_with = "shared"
    )]
    pub(crate) client_capabilities: Option<Arc<ClientCapabilities>>,
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        deserialize_with = "shared"
    )]
    pub(crate) client_info: Option<Arc<Implementation>>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
    pub(crate) log_level: Option<String>,
    #[serde(rename = "progressToken", default)]
    pub(crate) progress_token: Option<ProgressToken>,
    /// W3C trace context of the client's span (SEP-414: plain `traceparent`/`tracestate`).
    #[serde(default)]
    pub(crate) traceparent: Option<String>,
    #[serde(default)]
    pub(crate) tracestate: Option<String>,
}

/// A request's protocol version: one this crate speaks, or the text of one it does not
/// (for the error that says which it does). A known one is read without copying it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RequestedVersion {
    /// A revision this crate speaks.
    Known(ProtocolVersion),
    /// Any other string.
    Unknown(String),
}

impl RequestedVersion {
    /// The version as the request wrote it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Known(version) => version.as_str(),
            Self::Unknown(text) => text,
        }
    }

    /// The revision, if this crate speaks it.
    pub(crate) fn known(&self) -> Option<ProtocolVersion> {
        match self {
            Self::Known(version) => Some(*version),
            Self::Unknown(_) => None,
        }
    }
}

impl<'de> Deserialize<'de> for RequestedVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl de::Visitor<'_> for Text {
            type Value = RequestedVersion;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a protocol version string")
            }
            fn visit_str<E>(self, s: &str) -> Result<RequestedVersion, E> {
                Ok(ProtocolVersion::parse(s).map_or_else(
                    || RequestedVersion::Unknown(s.to_owned()),
                    RequestedVersion::Known,
                ))
            }
        }
        d.deserialize_str(Text)
    }
}

/// An optional value parsed into an `Arc`, through the thread's memo of its type: a
/// client sends the same capabilities and client information with every request, and a
/// request whose text is the one the thread parsed last shares that value instead of
/// parsing and allocating it again.
fn shared<'de, D, T>(d: D) -> Result<Option<Arc<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Memo,
{
    let Some(raw) = Option::<&'de RawValue>::deserialize(d)? else {
        return Ok(None);
    };
    T::memo(raw.get()).map(Some).map_err(de::Error::custom)
}

/// The longest text a memo keeps: longer ones are parsed every time.
const MEMO_MAX: usize = 4096;

/// A type parsed through a per-thread memo of the last text it was parsed from.
trait Memo: de::DeserializeOwned + Sized + 'static {
    /// The value `text` parses to: the thread's last one if `text` is the same.
    fn memo(text: &str) -> Result<Arc<Self>, serde_json::Error>;
}

/// The memo of one type: the last text (at most [`MEMO_MAX`] bytes) and its value.
type Slot<T> = std::cell::RefCell<Option<(Box<str>, Arc<T>)>>;

/// Parses `text` through `slot` (see [`Memo`]).
fn through<T: de::DeserializeOwned>(
    slot: &'static std::thread::LocalKey<Slot<T>>,
    text: &str,
) -> Result<Arc<T>, serde_json::Error> {
    let hit = slot.with_borrow(|last| match last {
        Some((key, value)) if **key == *text => Some(value.clone()),
        _ => None,
    });
    if let Some(value) = hit {
        return Ok(value);
    }
    let value = Arc::new(serde_json::from_str::<T>(text)?);
    if text.len() <= MEMO_MAX {
        slot.set(Some((text.into(), value.clone())));
    }
    Ok(value)
}

thread_local! {
    static CAPABILITIES: Slot<ClientCapabilities> = const { std::cell::RefCell::new(None) };
    static CLIENT_INFO: Slot<Implementation> = const { std::cell::RefCell::new(None) };
}

impl Memo for ClientCapabilities {
    fn memo(text: &str) -> Result<Arc<Self>, serde_json::Error> {
        through(&CAPABILITIES, text)
    }
}

impl Memo for Implementation {
    fn memo(text: &str) -> Result<Arc<Self>, serde_json::Error> {
        through(&CLIENT_INFO, text)
    }
}

/// What one pass over a request's params reads: `_meta`, and the members later steps
/// read, unparsed (their shape is the method's business).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadView<'a> {
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<&'a RawValue>,
    #[serde(default, borrow)]
    name: Option<&'a RawValue>,
    #[serde(default, borrow)]
    uri: Option<&'a RawValue>,
    #[serde(default, borrow)]
    task_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default, borrow)]
    input_responses: Option<&'a RawValue>,
    #[serde(default, borrow)]
    request_state: Option<&'a RawValue>,
}

/// Where a member sits in the text of the params it was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// `member`'s place in `params` (`member` borrowed from it).
    fn of(params: &str, member: &RawValue) -> Result<Self, ErrorObject> {
        let start = member.get().as_ptr() as usize - params.as_ptr() as usize;
        match (u32::try_from(start), u32::try_from(member.get().len())) {
            (Ok(start), Ok(len)) => Ok(Self { start, len }),
            _ => Err(ErrorObject::invalid_params("Invalid params: too large")),
        }
    }

    /// The member's JSON text in `params`, the text it was found in.
    pub(crate) fn text(self, params: &str) -> &str {
        let (start, len) = (self.start as usize, self.len as usize);
        params.get(start..start + len).unwrap_or("null")
    }
}

/// The members of a request's params that later steps read, located by the pass that
/// reads `_meta`, so that each is read from its own bytes, not by walking the params
/// again: `name`, `uri` and `taskId` name what the request is for (HTTP compares them with
/// `Mcp-Name`); `arguments`, `inputResponses` and `requestState` are what a call is made
/// with.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Members {
    pub(crate) name: Option<Span>,
    pub(crate) uri: Option<Span>,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) task_id: Option<Span>,
    pub(crate) arguments: Option<Span>,
    pub(crate) input_responses: Option<Span>,
    pub(crate) request_state: Option<Span>,
}

impl Members {
    /// The member at `span` of `params` (the text the spans were found in), read as `T`;
    /// absent or `null`, `None`. A member of the wrong shape is `-32602`, naming `key`.
    pub(crate) fn read<'a, T: Deserialize<'a>>(
        params: &'a str,
        span: Option<Span>,
        key: &str,
    ) -> Result<Option<T>, ErrorObject> {
        let Some(span) = span else { return Ok(None) };
        serde_json::from_str(span.text(params))
            .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: `{key}`: {e}")))
    }

    /// A member the method requires (see [`Members::read`]).
    pub(crate) fn require<'a, T: Deserialize<'a>>(
        params: &'a str,
        span: Option<Span>,
        key: &str,
    ) -> Result<T, ErrorObject> {
        Self::read(params, span, key)?.ok_or_else(|| {
            ErrorObject::invalid_params(format!("Invalid params: missing field `{key}`"))
        })
    }

    /// A string member, borrowed from `params` unless it has escapes (see
    /// [`Members::read`]).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn read_str<'a>(
        params: &'a str,
        span: Option<Span>,
        key: &str,
    ) -> Result<Option<Cow<'a, str>>, ErrorObject> {
        let Some(span) = span else { return Ok(None) };
        let text = span.text(params);
        match serde_json::from_str::<&str>(text) {
            Ok(borrowed) => Ok(Some(Cow::Borrowed(borrowed))),
            Err(_) => Ok(Self::read::<Option<String>>(params, Some(span), key)?
                .flatten()
                .map(Cow::Owned)),
        }
    }
}

/// What the first pass over a request's params reads: `_meta`, parsed and raw (for
/// `Context::meta`), and where the other members are.
#[derive(Debug, Default)]
pub(crate) struct Head {
    pub(crate) meta: RequestMeta,
    pub(crate) raw: Option<Box<RawValue>>,
    pub(crate) members: Members,
}

/// Reads `params._meta`: the parsed known fields and the raw object (for `Context::meta`).
pub(crate) fn read_request_meta(
    params: Option<&RawValue>,
) -> Result<(RequestMeta, Option<Box<RawValue>>), ErrorObject> {
    read_request_head(params).map(|head| (head.meta, head.raw))
}

/// [`read_request_meta`], and where the request's [`Members`] are, from the same pass over
/// its params.
pub(crate) fn read_request_head(params: Option<&RawValue>) -> Result<Head, ErrorObject> {
    let Some(params) = params else {
        return Ok(Head::default());
    };
    let text = params.get();
    let head: HeadView<'_> = serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?;
    let span = |member: Option<&RawValue>| member.map(|m| Span::of(text, m)).transpose();
    let members = Members {
        name: span(head.name)?,
        uri: span(head.uri)?,
        task_id: span(head.task_id)?,
        arguments: span(head.arguments)?,
        input_responses: span(head.input_responses)?,
        request_state: span(head.request_state)?,
    };
    let raw = match head.meta {
        Some(raw) if raw.get() != "null" => raw,
        _ => {
            return Ok(Head {
                meta: RequestMeta::default(),
                raw: None,
                members,
            });
        }
    };
    let meta: RequestMeta = serde_json::from_str(raw.get())
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid _meta: {e}")))?;
    Ok(Head {
        meta,
        raw: Some(raw.to_owned()),
        members,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps_of(meta: &str) -> Result<Option<Arc<ClientCapabilities>>, ErrorObject> {
        let params: Box<RawValue> =
            serde_json::from_str(&format!(r#"{{"_meta":{meta}}}"#)).unwrap();
        read_request_meta(Some(&params)).map(|(meta, _)| meta.client_capabilities)
    }

    #[test]
    fn the_same_capabilities_text_is_parsed_once_per_thread() {
        let key = keys::CLIENT_CAPABILITIES;
        let a = caps_of(&format!(r#"{{"{key}":{{"sampling":{{}}}}}}"#))
            .unwrap()
            .unwrap();
        let b = caps_of(&format!(r#"{{"{key}":{{"sampling":{{}}}}}}"#))
            .unwrap()
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b), "parsed again");
        assert!(b.sampling.is_some());
        // Other text, another value, which is then the one remembered.
        let c = caps_of(&format!(r#"{{"{key}":{{}}}}"#)).unwrap().unwrap();
        assert!(!Arc::ptr_eq(&a, &c) && c.sampling.is_none());
        let d = caps_of(&format!(r#"{{"{key}":{{}}}}"#)).unwrap().unwrap();
        assert!(Arc::ptr_eq(&c, &d));
        // Text longer than the memo keeps is parsed each time, and not remembered.
        let pad = "x".repeat(MEMO_MAX);
        let long = format!(r#"{{"{key}":{{"experimental":{{"pad":"{pad}"}}}}}}"#);
        let e = caps_of(&long).unwrap().unwrap();
        let f = caps_of(&long).unwrap().unwrap();
        assert!(!Arc::ptr_eq(&e, &f));
        let g = caps_of(&format!(r#"{{"{key}":{{}}}}"#)).unwrap().unwrap();
        assert!(Arc::ptr_eq(&c, &g), "the long text replaced the memo");
        // Absent or null: none; the wrong shape: the request's error, as before.
        assert!(caps_of("{}").unwrap().is_none());
        assert!(caps_of(&format!(r#"{{"{key}":null}}"#)).unwrap().is_none());
        let e = caps_of(&format!(r#"{{"{key}":{{"sampling":5}}}}"#)).unwrap_err();
        assert!(
            e.message.starts_with("Invalid _meta: invalid type"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_string_member_is_borrowed_unless_escaped() {
        let params: Box<RawValue> =
            serde_json::from_str(r#"{"name":"plain","uri":"a\u0041b","taskId":null}"#).unwrap();
        let at = read_request_head(Some(&params)).unwrap().members;
        let text = params.get();
        let name = Members::read_str(text, at.name, "name").unwrap().unwrap();
        assert!(matches!(name, Cow::Borrowed("plain")));
        let uri = Members::read_str(text, at.uri, "uri").unwrap().unwrap();
        assert!(matches!(uri, Cow::Owned(ref s) if s == "aAb"));
        assert!(
            Members::read_str(text, at.task_id, "taskId")
                .unwrap()
                .is_none()
        );
        assert!(
            Members::read_str(text, at.arguments, "arguments")
                .unwrap()
                .is_none()
        );
        let numeric: Box<RawValue> = serde_json::from_str(r#"{"name":5}"#).unwrap();
        let at = read_request_head(Some(&numeric)).unwrap().members;
        let e = Members::read_str(numeric.get(), at.name, "name").unwrap_err();
        assert!(
            e.message
                .starts_with("Invalid params: `name`: invalid type"),
            "{}",
            e.message
        );
    }

    #[test]
    fn reads_meta() {
        let params: Box<RawValue> = serde_json::from_str(
            r#"{"name":"x","arguments":{"_meta":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"progressToken":"t","other":true}}"#,
        )
        .unwrap();
        let (meta, raw) = read_request_meta(Some(&params)).unwrap();
        assert_eq!(
            meta.protocol_version,
            Some(RequestedVersion::Known(ProtocolVersion::V2026_07_28))
        );
        assert!(meta.client_capabilities.unwrap().supports_roots());
        assert_eq!(meta.progress_token, Some(RequestId::String("t".into())));
        assert!(raw.unwrap().get().contains("other"));
        let members = read_request_head(Some(&params)).unwrap().members;
        let text = |s: Option<Span>| s.map(|s| s.text(params.get()));
        assert_eq!(text(members.name), Some(r#""x""#));
        assert_eq!(text(members.arguments), Some(r#"{"_meta":1}"#));
        assert!(members.uri.is_none() && members.task_id.is_none());
    }

    #[test]
    fn keeps_the_text_of_an_unknown_version() {
        let params: Box<RawValue> = serde_json::from_str(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01"}}"#,
        )
        .unwrap();
        let (meta, _) = read_request_meta(Some(&params)).unwrap();
        let version = meta.protocol_version.unwrap();
        assert_eq!((version.as_str(), version.known()), ("2030-01-01", None));
        let params: Box<RawValue> = serde_json::from_str(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}"#,
        )
        .unwrap();
        assert!(read_request_meta(Some(&params)).is_err());
    }

    #[test]
    fn rejects_malformed_meta() {
        let params: Box<RawValue> =
            serde_json::from_str(r#"{"_meta":{"progressToken":1.5}}"#).unwrap();
        assert!(read_request_meta(Some(&params)).is_err());
    }
}
