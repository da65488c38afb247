//! [`Context`]: what a handler can ask of the request it serves. Progress, logging,
//! cancellation, client identity and capabilities, application state, and questions to the
//! client ([`ask`]: elicitation, sampling, roots) that work the same in both protocol eras.
//!
//! What handlers see, below everything that runs them: the context names no server, no
//! session and no dispatch. The runtime reaches it through two small traits, [`Host`] (the
//! server: application state, and itself for the runtime's own injectables such as
//! `ServerHandle`) and [`SessionPeer`] (a legacy session: its log level, requests to its
//! client). Imports: the leaves only.

pub(crate) mod ask;
pub(crate) mod form;

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use futures_util::task::AtomicWaker;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::error::ContextError;
use crate::mrtr::Round;
use crate::peer::{HttpParts, Sink, StreamCloser, Transport};
use crate::principal::Principal;
use crate::protocol::jsonrpc::notification_message;
use crate::protocol::{
    ClientCapabilities, ErrorObject, Implementation, LoggingLevel,
    LoggingMessageNotificationParams, ProgressNotificationParams, ProgressToken, ProtocolVersion,
    RequestId,
};
use crate::tasks::live::{LiveTask, TaskSlot};

/// The server a request runs on, as its context reaches it (the runtime implements it).
pub(crate) trait Host: std::any::Any + Send + Sync {
    /// The application state of this type, if the server was given one.
    fn state(&self, ty: std::any::TypeId) -> Option<Arc<dyn std::any::Any + Send + Sync>>;
    /// Cancelled when the server begins to shut down.
    fn shutdown(&self) -> &CancellationToken;
    /// Whether a caller with `principal` holds every one of `scopes`.
    fn grants(&self, principal: Option<&Principal>, scopes: &mut dyn Iterator<Item = &str>)
    -> bool;
}

/// A legacy session, as a handler's context reaches it (the session implements it).
pub(crate) trait SessionPeer: fmt::Debug + Send + Sync {
    /// The level at or above which log messages are sent (`logging/setLevel`).
    fn log_level(&self) -> Option<LoggingLevel>;
    /// Sends a server-to-client request (on the `related` request's stream when there is
    /// one) and waits for the answer, or for `cancel`.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: &'a Value,
        related: Option<&'a Sink>,
        cancel: &'a CancellationToken,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<Value, ContextError>> + Send + 'a>>;
}

/// How this request may ask the client for input.
#[derive(Debug)]
pub(crate) enum Asker {
    /// 2026-07-28: replay rounds and `InputRequiredResult`.
    Mrtr(Mutex<Round>),
    /// A legacy session: real server-to-client requests.
    Legacy(Arc<dyn SessionPeer>),
    /// Nothing can be asked (e.g. a stateless legacy-version request, or `completion/complete`).
    None,
}

/// The flag that stops a handler, and the waker of whoever runs it. Polling it is two
/// atomic operations (a `Notify` took a lock and queued a waiter on every poll of every
/// request); the runners that wait on it (the request's, and a middleware stack's
/// innermost step) run in the request's task, where one waker serves both.
#[derive(Debug, Default)]
pub(crate) struct Suspension {
    stopped: AtomicBool,
    waker: AtomicWaker,
}

impl Suspension {
    /// Stops the handler: wakes its runner.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.waker.wake();
    }

    /// Whether [`stop`](Self::stop) was called.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// Completes once [`stop`](Self::stop) was called.
    pub(crate) fn stopped(&self) -> impl Future<Output = ()> + '_ {
        std::future::poll_fn(|cx| {
            if self.stopped.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            self.waker.register(cx.waker());
            if self.stopped.load(Ordering::SeqCst) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

/// The log-level gate of this request.
#[derive(Debug)]
pub(crate) enum LogGate {
    /// `_meta.io.modelcontextprotocol/logLevel` (absent: no log messages at all).
    Request(Option<LoggingLevel>),
    /// The session's `logging/setLevel`.
    Session(Arc<dyn SessionPeer>),
}

/// Everything a [`Context`] holds; built by dispatch for one handler run.
pub(crate) struct ContextInner {
    /// The server the request runs on.
    pub(crate) host: Arc<dyn Host>,
    pub(crate) request_id: RequestId,
    pub(crate) version: ProtocolVersion,
    pub(crate) transport: Transport,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    pub(crate) meta: Option<Box<RawValue>>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log: LogGate,
    /// The request's: cancelled when the client cancels the request or, under
    /// middleware, when a layer drops the handler before it finishes (then `dropped` is
    /// set first).
    pub(crate) cancel: CancellationToken,
    pub(crate) sink: Option<Sink>,
    pub(crate) asker: Asker,
    pub(crate) http: Option<Arc<HttpParts>>,
    /// The identity of a stdio session (`ServerBuilder::stdio_principal`).
    pub(crate) session_principal: Option<Principal>,
    pub(crate) close_stream: Option<StreamCloser>,
    /// Set when the handler must stop: a question without an answer (MRTR) or a fatal error.
    pub(crate) suspension: Suspension,
    /// Why the handler was stopped, when it was stopped by an error.
    pub(crate) fatal: Mutex<Option<ErrorObject>>,
    /// Set when a middleware layer dropped the handler before it ended (a timeout): the
    /// token's cancellation is then not the client's, and the call is still answered.
    pub(crate) dropped: AtomicBool,
    /// The task this call is or may become (the Tasks extension).
    pub(crate) task: Option<Arc<TaskSlot>>,
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

/// A handler parameter injected from the request rather than decoded from its arguments.
/// The framework's own (`Context`, `State<T>`, `ServerHandle`, `CancellationToken`,
/// `Option<Principal>`) are recognized by the macros; a parameter of any other type
/// implementing it is marked `#[ctx]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a handler",
    note = "`#[ctx]` parameters must be `Context`, `State<T>`, `ServerHandle` or another type implementing `FromContext`",
    note = "to decode the parameter from the request's arguments instead, remove `#[ctx]` (or mark it `#[arg]`)"
)]
pub trait FromContext: Sized {
    /// Extracts the value.
    fn from_context(cx: &Context) -> Self;

    /// The application state extracting it needs (`State<T>`: `T`), which
    /// [`ServerBuilder::build`](crate::ServerBuilder::build) checks is registered for the
    /// handlers the macros define.
    #[doc(hidden)]
    fn state_need() -> Option<StateNeed> {
        None
    }
}

/// Application state a handler's parameter needs: `build()` refuses a handler whose
/// state was never registered.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct StateNeed {
    pub(crate) id: std::any::TypeId,
    pub(crate) name: &'static str,
}

/// What the macros ask of an injected parameter's type `T` for its definition: its
/// [`FromContext::state_need`] through autoref specialization (`ViaFromContext` when `T`
/// is `FromContext`, else `ViaNothing`), so that a type that is not `FromContext` is
/// reported once, where the handler extracts it, and not again by the definition.
#[doc(hidden)]
#[derive(Debug)]
pub struct Injected<T>(std::marker::PhantomData<T>);

impl<T> Injected<T> {
    #[doc(hidden)]
    pub const NEW: Self = Self(std::marker::PhantomData);
}

#[doc(hidden)]
pub trait ViaFromContext {
    fn state_need(&self) -> Option<StateNeed>;
}

impl<T: FromContext> ViaFromContext for &Injected<T> {
    fn state_need(&self) -> Option<StateNeed> {
        T::state_need()
    }
}

#[doc(hidden)]
pub trait ViaNothing {
    fn state_need(&self) -> Option<StateNeed>;
}

impl<T> ViaNothing for Injected<T> {
    fn state_need(&self) -> Option<StateNeed> {
        None
    }
}

impl FromContext for Context {
    fn from_context(cx: &Context) -> Self {
        cx.clone()
    }
}

/// Application state registered with [`ServerBuilder::state`](crate::ServerBuilder::state):
/// take it as a `db: State<Db>` parameter (no `#[ctx]` needed). Dereferences to `T`.
///
/// `build()` refuses a `#[tool]`, `#[prompt]` or `#[resource]` taking a `State<T>` whose
/// `T` was never registered; a handler added otherwise (or at run time) asking for one
/// fails its request with an internal error naming the type.
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
    fn state_need() -> Option<StateNeed> {
        Some(StateNeed {
            id: std::any::TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        })
    }

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

/// The authenticated principal, when an authentication layer provided one
/// ([`Context::principal`]).
impl FromContext for Option<Principal> {
    fn from_context(cx: &Context) -> Self {
        cx.principal().cloned()
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

    /// The transport the request arrived on.
    pub fn transport(&self) -> Transport {
        self.inner.transport
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

    /// The authenticated principal: over HTTP, the one an authentication layer provided;
    /// over stdio, the identity the server gives its sessions
    /// ([`ServerBuilder::stdio_principal`](crate::ServerBuilder::stdio_principal)).
    pub fn principal(&self) -> Option<&Principal> {
        match &self.inner.http {
            Some(http) => http.principal.as_ref(),
            None => self.inner.session_principal.as_ref(),
        }
    }

    /// The application state of type `T` registered with
    /// [`ServerBuilder::state`](crate::ServerBuilder::state).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.inner
            .host
            .state(std::any::TypeId::of::<T>())
            .and_then(|v| v.downcast::<T>().ok())
    }

    /// The server the request runs on, for the runtime's own injectables (its
    /// `ServerHandle`).
    pub(crate) fn host(&self) -> &Arc<dyn Host> {
        &self.inner.host
    }

    /// Whether the request was cancelled: by the client, or by a middleware layer that
    /// stopped the handler (a timeout).
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the request is cancelled: by the client, or by a middleware layer
    /// that stopped the handler (a timeout). Select on it in long loops and in tasks the
    /// handler spawns.
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

    /// The task this call runs as (the Tasks extension), if it is one.
    pub(crate) fn live_task(&self) -> Option<&Arc<LiveTask>> {
        self.inner.task.as_ref().and_then(|slot| slot.live())
    }

    /// The id of the task this call runs as, if it is one: a tool that allows tasks
    /// ([`TaskSupport`](crate::TaskSupport)) called by a client that declared the Tasks
    /// extension.
    pub fn task_id(&self) -> Option<&str> {
        self.live_task().map(|live| &*live.id)
    }

    /// Turns this call into a task now, for a tool whose handler starts its task
    /// ([`TaskStart::Handler`](crate::TaskStart::Handler)): the request is answered with
    /// the task (a `CreateTaskResult`), and the handler goes on; its result becomes the
    /// task's. Questions asked before this are rounds of the request; questions after it
    /// are the task's `inputRequests`. Returns whether the call is a task: `false` when
    /// the client did not declare the extension, the tool does not allow tasks, or the
    /// server could not keep another task (the call then goes on as an ordinary request).
    pub async fn run_as_task(&self) -> bool {
        match &self.inner.task {
            Some(slot) => slot.promote().await,
            None => false,
        }
    }

    /// Sets the status message of the task this call runs as (what `tasks/get` shows in
    /// `statusMessage`); does nothing when it is not a task.
    pub async fn set_status_message(&self, message: impl Into<String>) {
        if let (Some(slot), Some(live)) = (&self.inner.task, self.live_task()) {
            slot.tasks.report(live, Some(message.into())).await;
        }
    }

    /// Resolves when the server begins to shut down: a long-running handler (a stream)
    /// ends there with its final result, before the grace period runs out and it is
    /// cancelled.
    pub async fn shutting_down(&self) {
        self.host().shutdown().cancelled().await;
    }

    /// Whether the caller holds every one of `scopes`, by the server's rules
    /// ([`ScopeRules`](crate::ScopeRules): a broader scope implies narrower ones). A caller
    /// without a [`Principal`] holds none, unless the server lets such callers have every
    /// scope ([`ServerBuilder::unauthenticated_callers_have_every_scope`](crate::ServerBuilder::unauthenticated_callers_have_every_scope)).
    pub fn grants<S: AsRef<str>>(&self, scopes: &[S]) -> bool {
        scopes.is_empty()
            || self
                .host()
                .grants(self.principal(), &mut scopes.iter().map(AsRef::as_ref))
    }

    /// Whether the client asked for progress (sent a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.inner.progress_token.is_some()
    }

    /// Sends the notification `method` with `params` on this request's own stream (what an
    /// extension's streaming method sends: see
    /// [`Setup::stream`](crate::extension::Setup::stream)). Waits while the client is slow
    /// to read; `false` when it cannot reach the client any more (the request was
    /// cancelled, its stream is gone, or the request has no stream: a plain HTTP request
    /// without a progress token, answered with one JSON body).
    pub async fn notify(&self, method: &str, params: &impl Serialize) -> bool {
        let Some(sink) = &self.inner.sink else {
            return false;
        };
        // A task's request has been answered: nothing streams for it any more.
        if self.inner.cancel.is_cancelled() || self.live_task().is_some() {
            return false;
        }
        sink.send(Bytes::from(notification_message(method, params)))
            .await
    }

    /// Reports progress; sent only when the request carried a `progressToken` (which is
    /// echoed unchanged). `progress` should increase with every call. In a task, which
    /// streams nothing, it becomes the task's status message (`"3/10: copying"`).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if self.live_task().is_some() {
            let mut status = match total {
                Some(total) => format!("{progress}/{total}"),
                None => progress.to_string(),
            };
            if let Some(message) = message {
                status.push_str(": ");
                status.push_str(message);
            }
            self.set_status_message(status).await;
            return;
        }
        let Some(token) = &self.inner.progress_token else {
            return;
        };
        let params = ProgressNotificationParams {
            progress_token: token.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
            meta: None,
        };
        self.notify("notifications/progress", &params).await;
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
        if level < min
            || self.inner.sink.is_none()
            || self.inner.cancel.is_cancelled()
            || self.live_task().is_some()
        {
            return None;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: None,
        };
        Some(Bytes::from(notification_message(
            "notifications/message",
            &params,
        )))
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
}
