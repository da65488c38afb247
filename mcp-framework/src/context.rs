//! [`Context`]: what a handler can ask of the request it serves. Progress, logging,
//! cancellation, client identity and capabilities, and questions to the client
//! (elicitation, sampling, roots) that work the same in both protocol eras.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;

use crate::mrtr::{Question, Round};
use crate::protocol::jsonrpc::write_notification;
use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ErrorObject,
    Implementation, JsonObject, LoggingLevel, ProgressToken, ProtocolVersion, RequestId, Root,
};
use crate::server::{ServerHandle, ServerInner};
use crate::session::legacy::LegacySession;

/// Where request-scoped messages (progress, log messages, legacy server requests) go:
/// the stdio writer or the request's HTTP response stream. Nothing is sent once the
/// request is cancelled.
#[derive(Clone, Debug)]
pub(crate) struct Sink {
    tx: mpsc::Sender<Bytes>,
    cancel: CancellationToken,
}

impl Sink {
    pub(crate) fn new(tx: mpsc::Sender<Bytes>, cancel: CancellationToken) -> Self {
        Self { tx, cancel }
    }

    /// Sends one encoded message; `false` when the request is gone.
    pub(crate) async fn send(&self, message: Bytes) -> bool {
        if self.cancel.is_cancelled() {
            return false;
        }
        self.tx.send(message).await.is_ok()
    }

    /// Sends without waiting (for the `tracing` bridge); drops the message when full.
    pub(crate) fn try_send(&self, message: Bytes) -> bool {
        !self.cancel.is_cancelled() && self.tx.try_send(message).is_ok()
    }
}

/// Closes a request's response connection without ending its stream (legacy HTTP polling).
#[derive(Clone)]
pub(crate) struct StreamCloser(pub(crate) Arc<dyn Fn() + Send + Sync>);

impl fmt::Debug for StreamCloser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StreamCloser")
    }
}

/// The authenticated principal of an HTTP request. An authentication layer inserts it
/// into the request's extensions; handlers read it with [`Context::principal`], and sealed
/// MRTR state is bound to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

/// HTTP-specific request parts.
#[derive(Debug, Clone, Default)]
pub(crate) struct HttpParts {
    #[cfg(feature = "http")]
    pub(crate) headers: axum::http::HeaderMap,
    pub(crate) principal: Option<Principal>,
}

/// How this request may ask the client for input.
#[derive(Debug)]
pub(crate) enum Asker {
    /// 2026-07-28: replay rounds and `InputRequiredResult`.
    Mrtr(Mutex<Round>),
    /// A legacy session: real server-to-client requests.
    Legacy(Arc<LegacySession>),
    /// Nothing can be asked (e.g. a stateless legacy-version request, or `completion/complete`).
    None,
}

/// The log-level gate of this request.
#[derive(Debug)]
pub(crate) enum LogGate {
    /// `_meta.io.modelcontextprotocol/logLevel` (absent: no log messages at all).
    Request(Option<LoggingLevel>),
    /// The session's `logging/setLevel`.
    Session(Arc<LegacySession>),
}

pub(crate) struct ContextInner {
    pub(crate) server: Arc<ServerInner>,
    pub(crate) request_id: RequestId,
    pub(crate) version: ProtocolVersion,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    pub(crate) meta: Option<Box<RawValue>>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log: LogGate,
    pub(crate) cancel: CancellationToken,
    pub(crate) sink: Option<Sink>,
    pub(crate) asker: Asker,
    pub(crate) http: Option<Arc<HttpParts>>,
    pub(crate) close_stream: Option<StreamCloser>,
    /// Set when the handler must stop: a question without an answer (MRTR) or a fatal error.
    pub(crate) suspended: Notify,
    /// Why the handler was stopped, when it was stopped by an error.
    pub(crate) fatal: Mutex<Option<ErrorObject>>,
    pub(crate) suspend_flag: std::sync::atomic::AtomicBool,
}

/// The request a handler is serving. Cheap to clone; take it as a parameter of a
/// `#[tool]`, `#[prompt]` or `#[resource]` function (by type `Context`, or any parameter
/// marked `#[ctx]`).
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.inner.request_id)
            .field("version", &self.inner.version)
            .finish_non_exhaustive()
    }
}

/// An error while asking the client for something.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// The client answered with a JSON-RPC error.
    #[error("the client returned an error: {0}")]
    Client(ErrorObject),
    /// The client did not answer in time.
    #[error("the client did not answer in time")]
    Timeout,
    /// The request was cancelled.
    #[error("the request was cancelled")]
    Cancelled,
    /// The connection to the client is gone.
    #[error("the connection to the client is closed")]
    Closed,
    /// The client's answer does not have the expected shape.
    #[error("the client's answer is invalid: {0}")]
    InvalidResponse(String),
}

/// The outcome of an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form.
    Accept(T),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(v) => Some(v),
            _ => None,
        }
    }
}

/// A handler parameter injected from the request (mark it `#[ctx]`, or use `Context`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a handler",
    note = "`#[ctx]` parameters must be `Context`, `ServerHandle` or another type implementing `FromContext`"
)]
pub trait FromContext: Sized {
    /// Extracts the value.
    fn from_context(cx: &Context) -> Self;
}

impl FromContext for Context {
    fn from_context(cx: &Context) -> Self {
        cx.clone()
    }
}

impl FromContext for ServerHandle {
    fn from_context(cx: &Context) -> Self {
        cx.server()
    }
}

/// Application state registered with [`ServerBuilder::state`](crate::ServerBuilder::state):
/// take it as a `#[ctx] db: State<Db>` parameter. Dereferences to `T`.
///
/// A handler asking for a type that was never registered fails its request with an
/// internal error naming the type.
#[derive(Debug)]
pub struct State<T>(pub Arc<T>);

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> std::ops::Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn from_context(cx: &Context) -> Self {
        match cx.state::<T>() {
            Some(v) => Self(v),
            None => panic!(
                "no state of type `{}`: register it with ServerBuilder::state",
                std::any::type_name::<T>()
            ),
        }
    }
}

impl FromContext for CancellationToken {
    fn from_context(cx: &Context) -> Self {
        cx.inner.cancel.clone()
    }
}

impl Context {
    pub(crate) fn new(inner: ContextInner) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The protocol revision of the request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The capabilities the client declared (for this request on 2026-07-28, for the
    /// session on legacy revisions).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    /// The client's self-reported name and version, if it sent them.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_deref()
    }

    /// The request's `_meta` object.
    pub fn meta(&self) -> Option<Map<String, Value>> {
        self.inner
            .meta
            .as_ref()
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    /// The HTTP request headers (HTTP transport only).
    #[cfg(feature = "http")]
    pub fn headers(&self) -> Option<&axum::http::HeaderMap> {
        self.inner.http.as_ref().map(|h| &h.headers)
    }

    /// The authenticated principal, when an authentication layer provided one.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.http.as_ref().and_then(|h| h.principal.as_ref())
    }

    /// The application state of type `T` registered with
    /// [`ServerBuilder::state`](crate::ServerBuilder::state).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.inner
            .server
            .state
            .get(&std::any::TypeId::of::<T>())
            .cloned()
            .and_then(|v| v.downcast::<T>().ok())
    }

    /// A handle to change what the server serves.
    pub fn server(&self) -> ServerHandle {
        ServerHandle::from_inner(self.inner.server.clone())
    }

    /// Whether the client cancelled the request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the client cancels the request (select on it in long loops).
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await;
    }

    /// The cancellation token of the request.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Closes the connection carrying this request's response without ending the request,
    /// on legacy Streamable HTTP sessions (2025-11-25 polling, SEP-1699): the client
    /// reconnects with `Last-Event-ID` and receives what follows. Does nothing elsewhere
    /// (on 2026-07-28 a closed stream cancels the request).
    pub fn close_response_stream(&self) {
        if let Some(close) = &self.inner.close_stream {
            (close.0)();
        }
    }

    /// Whether the client asked for progress (sent a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.inner.progress_token.is_some()
    }

    async fn notify(&self, method: &str, params: &impl Serialize) -> bool {
        let Some(sink) = &self.inner.sink else {
            return false;
        };
        let mut out = Vec::with_capacity(128);
        write_notification(&mut out, method, params);
        sink.send(Bytes::from(out)).await
    }

    /// Reports progress; sent only when the request carried a `progressToken` (which is
    /// echoed unchanged). `progress` should increase with every call.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.inner.progress_token else {
            return;
        };
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params<'a> {
            progress_token: &'a ProgressToken,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
        }
        self.notify(
            "notifications/progress",
            &Params {
                progress_token: token,
                progress,
                total,
                message,
            },
        )
        .await;
    }

    /// The minimum level the client wants log messages at, if it wants any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        match &self.inner.log {
            LogGate::Request(level) => *level,
            LogGate::Session(session) => session.log_level(),
        }
    }

    fn log_message(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> Option<Bytes> {
        let min = self.log_level()?;
        if level < min || self.inner.sink.is_none() {
            return None;
        }
        #[derive(Serialize)]
        struct Params<'a> {
            level: LoggingLevel,
            #[serde(skip_serializing_if = "Option::is_none")]
            logger: Option<&'a str>,
            data: Value,
        }
        let mut out = Vec::with_capacity(128);
        write_notification(
            &mut out,
            "notifications/message",
            &Params {
                level,
                logger,
                data,
            },
        );
        Some(Bytes::from(out))
    }

    /// Sends a log message to the client, if it asked for messages at this level
    /// (`_meta` `logLevel` on 2026-07-28, `logging/setLevel` on legacy sessions).
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        let Ok(data) = serde_json::to_value(data) else {
            return;
        };
        if let (Some(msg), Some(sink)) = (self.log_message(level, logger, data), &self.inner.sink) {
            sink.send(msg).await;
        }
    }

    /// Sends without waiting (drops the message if the stream is full). For the tracing bridge.
    pub(crate) fn try_log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        if let (Some(msg), Some(sink)) = (self.log_message(level, logger, data), &self.inner.sink) {
            sink.try_send(msg);
        }
    }

    /// `debug` log message.
    pub async fn debug(&self, message: impl fmt::Display) {
        self.log(LoggingLevel::Debug, None, message.to_string())
            .await;
    }

    /// `info` log message.
    pub async fn info(&self, message: impl fmt::Display) {
        self.log(LoggingLevel::Info, None, message.to_string())
            .await;
    }

    /// `notice` log message.
    pub async fn notice(&self, message: impl fmt::Display) {
        self.log(LoggingLevel::Notice, None, message.to_string())
            .await;
    }

    /// `warning` log message.
    pub async fn warning(&self, message: impl fmt::Display) {
        self.log(LoggingLevel::Warning, None, message.to_string())
            .await;
    }

    /// `error` log message.
    pub async fn error(&self, message: impl fmt::Display) {
        self.log(LoggingLevel::Error, None, message.to_string())
            .await;
    }

    // --- asking the client -------------------------------------------------------------------

    /// Stops the handler: the dispatcher answers with `error` instead of a result.
    async fn fail(&self, error: ErrorObject) -> ! {
        self.inner
            .fatal
            .lock()
            .expect("fatal lock")
            .get_or_insert(error);
        self.suspend().await
    }

    async fn suspend(&self) -> ! {
        self.inner
            .suspend_flag
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.inner.suspended.notify_one();
        std::future::pending().await
    }

    /// Completes once the handler must stop (see [`Self::fail`] and MRTR questions).
    pub(crate) async fn wait_suspended(&self) {
        loop {
            let notified = self.inner.suspended.notified();
            if self
                .inner
                .suspend_flag
                .load(std::sync::atomic::Ordering::SeqCst)
            {
                return;
            }
            notified.await;
        }
    }

    /// Form elicitation for `T` (a flat struct of strings, numbers, booleans and enums, as
    /// elicitation allows): asks the user to fill in a form and returns what they did.
    /// Requires the client's `elicitation` capability; without it the request fails with
    /// `-32021`. Await it; [`Ask::key`] names the question.
    pub fn elicit<T>(&self, message: impl Into<String>) -> Ask<'_, Elicitation<T>>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        let form = match elicitation_schema::<T>() {
            Ok(schema) => self.elicit_with_schema(message, (*schema).clone()),
            Err(reason) => {
                self.elicit_with_schema(message, JsonObject::new())
                    .broken(ErrorObject::internal(format!(
                        "`{}` cannot be elicited: {reason}",
                        std::any::type_name::<T>()
                    )))
            }
        };
        form.map(read_form::<T>)
    }

    /// Form elicitation with a hand-written `requestedSchema`.
    pub fn elicit_with_schema(
        &self,
        message: impl Into<String>,
        requested_schema: JsonObject,
    ) -> Ask<'_, Elicitation<JsonObject>> {
        let missing = (!self.inner.client_capabilities.supports_elicitation_form())
            .then(|| serde_json::json!({"elicitation": {"form": {}}}));
        let mut params = Map::new();
        if self.inner.version >= ProtocolVersion::V2025_11_25 {
            params.insert("mode".into(), "form".into());
        }
        params.insert("message".into(), Value::String(message.into()));
        params.insert("requestedSchema".into(), Value::Object(requested_schema));
        let params = Value::Object(params);
        Ask::new(
            self,
            "elicitation/create",
            params,
            missing,
            read_elicitation,
        )
    }

    /// Asks the user to visit `url` (URL-mode elicitation; 2025-11-25 and later). The
    /// outcome tells whether they agreed, not what happened there.
    pub fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Ask<'_, Elicitation<()>> {
        let missing = (!self.inner.client_capabilities.supports_elicitation_url())
            .then(|| serde_json::json!({"elicitation": {"url": {}}}));
        let mut params = serde_json::json!({
            "mode": "url",
            "message": message.into(),
            "url": url.into(),
        });
        if self.inner.version == ProtocolVersion::V2025_11_25 {
            // The legacy shape correlates the out-of-band flow with an id.
            params["elicitationId"] = Value::String(format!("{}", self.inner.request_id));
        }
        Ask::new(self, "elicitation/create", params, missing, read_url)
    }

    /// Asks the client's LLM for a completion (`sampling/createMessage`). Requires the
    /// client's `sampling` capability (and `sampling.tools` when `tools` are given).
    pub fn sample(&self, params: CreateMessageRequestParams) -> Ask<'_, CreateMessageResult> {
        let caps = &self.inner.client_capabilities;
        let missing = if !caps.supports_sampling() {
            Some(serde_json::json!({"sampling": {}}))
        } else if params.tools.is_some() && !caps.supports_sampling_tools() {
            Some(serde_json::json!({"sampling": {"tools": {}}}))
        } else {
            None
        };
        let ask = Ask::new(
            self,
            "sampling/createMessage",
            Value::Null,
            missing,
            read_json,
        );
        match serde_json::to_value(params) {
            Ok(params) => Ask { params, ..ask },
            Err(e) => ask.broken(ErrorObject::internal(format!("sampling params: {e}"))),
        }
    }

    /// The client's roots (`roots/list`). Requires the client's `roots` capability.
    pub fn roots(&self) -> Ask<'_, Vec<Root>> {
        let missing = (!self.inner.client_capabilities.supports_roots())
            .then(|| serde_json::json!({"roots": {}}));
        Ask::new(
            self,
            "roots/list",
            serde_json::json!({}),
            missing,
            read_roots,
        )
    }
}

/// A question to the client (elicitation, sampling, roots), asked when awaited.
///
/// It is answered the same way in both eras: a 2026-07-28 request is stopped and answered
/// with an `InputRequiredResult` carrying the question under an input key, then replayed
/// when the client retries with the answer; in a legacy session the question is a real
/// server-to-client request.
///
/// Input keys are positional by default (`elicitation-1`, `sampling-2`, … in the order the
/// handler asks), which is enough when the client only echoes them. Name a question with
/// [`key`](Self::key) when clients are told what to answer ahead of time. Questions awaited
/// together (`tokio::join!`) go to the client in one `InputRequiredResult`.
///
/// In the 2026-07-28 era an answer that does not parse as the question's result (say, a
/// number where an `ElicitResult` belongs) fails the request with `-32602`; in a legacy
/// session it is [`ContextError::InvalidResponse`].
#[must_use = "a question is asked when it is awaited"]
pub struct Ask<'a, T> {
    cx: &'a Context,
    method: &'static str,
    params: Value,
    key: Option<String>,
    /// The capability the client must have declared (`requiredCapabilities` otherwise).
    missing: Option<Value>,
    /// Fails the request when awaited (a question that cannot be built).
    broken: Option<ErrorObject>,
    read: Reader<T>,
}

/// Reads the client's answer; the `Err` says what is wrong with it.
type Reader<T> = Box<dyn FnOnce(Value) -> Result<T, String> + Send>;

impl<T> fmt::Debug for Ask<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ask")
            .field("method", &self.method)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl<'a, T: Send + 'static> Ask<'a, T> {
    fn new(
        cx: &'a Context,
        method: &'static str,
        params: Value,
        missing: Option<Value>,
        read: fn(Value) -> Result<T, String>,
    ) -> Self {
        Self {
            cx,
            method,
            params,
            key: None,
            missing,
            broken: None,
            read: Box::new(read),
        }
    }

    /// Names the question: its key in the `InputRequiredResult`'s `inputRequests` and in
    /// the client's `inputResponses` (2026-07-28; legacy requests have no keys). Keys must
    /// be unique within a request.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    fn broken(mut self, error: ErrorObject) -> Self {
        self.broken = Some(error);
        self
    }

    fn map<U: Send + 'static>(self, f: fn(T) -> Result<U, String>) -> Ask<'a, U> {
        let read = self.read;
        Ask {
            cx: self.cx,
            method: self.method,
            params: self.params,
            key: self.key,
            missing: self.missing,
            broken: self.broken,
            read: Box::new(move |v| read(v).and_then(f)),
        }
    }
}

impl<'a, T: Send + 'static> std::future::IntoFuture for Ask<'a, T> {
    type Output = Result<T, ContextError>;
    type IntoFuture =
        std::pin::Pin<Box<dyn std::future::Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let cx = self.cx;
            if let Some(error) = self.broken {
                cx.fail(error).await;
            }
            if let Some(required) = self.missing {
                cx.fail(ErrorObject::missing_capability(required)).await;
            }
            let question = Question {
                method: self.method,
                params: self.params,
            };
            match &cx.inner.asker {
                Asker::Mrtr(round) => {
                    let asked = round.lock().expect("round lock").ask(question, self.key);
                    match asked {
                        Ok((_, None)) => cx.suspend().await,
                        Ok((key, Some(answer))) => match (self.read)(answer) {
                            Ok(v) => Ok(v),
                            Err(reason) => {
                                cx.fail(ErrorObject::invalid_params(format!(
                                    "Invalid inputResponses[{key:?}]: {reason}"
                                )))
                                .await
                            }
                        },
                        Err(e) => cx.fail(e).await,
                    }
                }
                Asker::Legacy(session) => {
                    let answer = session
                        .request(
                            question.method,
                            question.params,
                            cx.inner.sink.as_ref(),
                            &cx.inner.cancel,
                        )
                        .await?;
                    (self.read)(answer).map_err(ContextError::InvalidResponse)
                }
                Asker::None => {
                    cx.fail(ErrorObject::internal(format!(
                        "`{}` is not available for this request",
                        question.method
                    )))
                    .await
                }
            }
        })
    }
}

fn read_json<T: DeserializeOwned>(answer: Value) -> Result<T, String> {
    serde_json::from_value(answer).map_err(|e| e.to_string())
}

fn read_elicitation(answer: Value) -> Result<Elicitation<JsonObject>, String> {
    #[derive(serde::Deserialize)]
    struct Raw {
        action: String,
        #[serde(default)]
        content: Option<JsonObject>,
    }
    let raw: Raw = read_json(answer).map_err(|e| format!("elicitation result: {e}"))?;
    match raw.action.as_str() {
        "accept" => Ok(Elicitation::Accept(raw.content.unwrap_or_default())),
        "decline" => Ok(Elicitation::Decline),
        "cancel" => Ok(Elicitation::Cancel),
        other => Err(format!("unknown elicitation action {other:?}")),
    }
}

fn read_form<T: DeserializeOwned>(
    outcome: Elicitation<JsonObject>,
) -> Result<Elicitation<T>, String> {
    Ok(match outcome {
        Elicitation::Accept(content) => Elicitation::Accept(
            read_json(Value::Object(content)).map_err(|e| format!("elicitation content: {e}"))?,
        ),
        Elicitation::Decline => Elicitation::Decline,
        Elicitation::Cancel => Elicitation::Cancel,
    })
}

fn read_url(answer: Value) -> Result<Elicitation<()>, String> {
    Ok(match read_elicitation(answer)? {
        Elicitation::Accept(_) => Elicitation::Accept(()),
        Elicitation::Decline => Elicitation::Decline,
        Elicitation::Cancel => Elicitation::Cancel,
    })
}

fn read_roots(answer: Value) -> Result<Vec<Root>, String> {
    #[derive(serde::Deserialize)]
    struct Raw {
        roots: Vec<Root>,
    }
    let raw: Raw = read_json(answer).map_err(|e| format!("roots result: {e}"))?;
    Ok(raw.roots)
}

type SchemaCache = Mutex<HashMap<std::any::TypeId, Result<Arc<JsonObject>, String>>>;

/// The `requestedSchema` for `T`, checked against what elicitation allows (computed once
/// per type).
pub(crate) fn elicitation_schema<T: JsonSchema + 'static>() -> Result<Arc<JsonObject>, String> {
    static CACHE: OnceLock<SchemaCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let id = std::any::TypeId::of::<T>();
    if let Some(hit) = cache.lock().expect("schema cache").get(&id) {
        return hit.clone();
    }
    let result = build_elicitation_schema::<T>().map(Arc::new);
    cache
        .lock()
        .expect("schema cache")
        .insert(id, result.clone());
    result
}

fn build_elicitation_schema<T: JsonSchema>() -> Result<JsonObject, String> {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let obj = schema
        .as_object_mut()
        .ok_or("its schema is not an object schema")?;
    obj.remove("title");
    obj.remove("$defs");
    obj.remove("additionalProperties");
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Err("it must be a struct (an object schema)".into());
    }
    let props = obj
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .ok_or("it has no fields")?;
    for (name, prop) in props.iter_mut() {
        let p = prop
            .as_object_mut()
            .ok_or_else(|| format!("field `{name}` has a boolean schema"))?;
        // `Option<T>` gives `["string", "null"]`: optional fields are simply not required.
        if let Some(Value::Array(types)) = p.get("type") {
            let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            if non_null.len() != 1 {
                return Err(format!("field `{name}` must have exactly one type"));
            }
            p.insert("type".into(), non_null[0].clone());
        }
        if let Some(Value::Array(any)) = p.remove("anyOf") {
            // `Option<Enum>` inlines as `anyOf: [{enum…}, {type: null}]`.
            let mut rest: Vec<Value> = any
                .into_iter()
                .filter(|s| s.get("type") != Some(&Value::from("null")))
                .collect();
            if rest.len() != 1 {
                return Err(format!(
                    "field `{name}` uses a union elicitation cannot express"
                ));
            }
            if let Value::Object(inner) = rest.remove(0) {
                for (k, v) in inner {
                    p.entry(k).or_insert(v);
                }
            }
        }
        if let Some(Value::Array(variants)) = p.get("enum") {
            let strings: Vec<Value> = variants.iter().filter(|v| !v.is_null()).cloned().collect();
            p.insert("enum".into(), Value::Array(strings));
        }
        let ty = p
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_else(|| {
                if p.contains_key("enum") || p.contains_key("oneOf") {
                    "string"
                } else {
                    ""
                }
            })
            .to_owned();
        match ty.as_str() {
            "string" | "number" | "integer" | "boolean" => {
                p.entry("type").or_insert_with(|| ty.clone().into());
            }
            "array" => {
                let items_ok = p
                    .get("items")
                    .and_then(Value::as_object)
                    .is_some_and(|i| i.contains_key("enum") || i.contains_key("anyOf"));
                if !items_ok {
                    return Err(format!(
                        "field `{name}` is an array; only arrays of enum values (multi-select) are allowed"
                    ));
                }
            }
            _ => {
                return Err(format!(
                    "field `{name}` is not a string, number, integer, boolean or enum (elicitation forms are flat)"
                ));
            }
        }
        for forbidden in ["properties", "$ref", "allOf", "not", "if"] {
            if p.contains_key(forbidden) {
                return Err(format!(
                    "field `{name}` uses `{forbidden}`, which elicitation forms cannot express"
                ));
            }
        }
    }
    Ok(std::mem::take(obj))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Color {
        Red,
        Green,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        /// Your name.
        name: String,
        age: Option<u32>,
        color: Color,
        subscribe: bool,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Form,
    }

    #[test]
    fn elicitation_schemas_are_flat() {
        let s = elicitation_schema::<Form>().unwrap();
        assert_eq!(s["properties"]["name"]["type"], "string");
        assert_eq!(s["properties"]["name"]["description"], "Your name.");
        assert_eq!(s["properties"]["age"]["type"], "integer");
        assert_eq!(s["properties"]["color"]["type"], "string");
        assert_eq!(
            s["properties"]["color"]["enum"],
            serde_json::json!(["Red", "Green"])
        );
        let required: Vec<&str> = s["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(!required.contains(&"age"));
        let err = elicitation_schema::<Nested>().unwrap_err();
        assert!(err.contains("inner"), "{err}");
    }
}
