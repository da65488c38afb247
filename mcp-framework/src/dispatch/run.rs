//! Running a handler: its [`Context`] (with the MRTR round or the legacy session it asks
//! through), then the run itself with cancellation, panic capture and suspension, and how
//! each ending becomes a [`Reply`].

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use futures_util::FutureExt as _;
use serde_json::{Map, Value};
use tokio::sync::Notify;
use tracing::Instrument as _;

use super::carrier::Carrier;
use super::era::Era;
use super::reply::Reply;
use crate::context::{Asker, Context, ContextInner};
use crate::future::BoxFuture;
use crate::mrtr::{Binding, Round, digest};
use crate::protocol::{ErrorObject, InputRequiredResult, RequestId, codes};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::telemetry;

/// What a handler is called for: the method, the item's name (a resource's URI), its
/// arguments, and the MRTR state and answers of a retry.
pub(super) struct Invocation<'a, 'v> {
    pub(super) method: &'static str,
    /// `tool`, `prompt` or `resource` (for messages).
    pub(super) kind: &'static str,
    pub(super) name: &'a str,
    pub(super) arguments: &'v Value,
    pub(super) request_state: Option<String>,
    pub(super) input_responses: Option<Map<String, Value>>,
}

/// A handler's context, ready to run, and what its sealed state is bound to (MRTR).
pub(super) struct Prepared<'a> {
    pub(super) cx: Context,
    binding: Option<Binding>,
    kind: &'static str,
    name: &'a str,
}

/// Builds the handler's context: MRTR rounds on modern requests (the state opened and
/// checked against this request), the session on legacy ones, nothing to ask otherwise.
pub(super) fn prepare<'a>(
    server: &Arc<ServerInner>,
    id: RequestId,
    era: Era,
    carrier: Carrier,
    call: Invocation<'a, '_>,
) -> Result<Prepared<'a>, ErrorObject> {
    let (asker, binding) = if let Some(session) = &era.session {
        (Asker::Legacy(session.clone()), None)
    } else if era.version.is_modern() {
        let binding = Binding {
            method: call.method.to_owned(),
            name: call.name.to_owned(),
            arguments_digest: digest(call.arguments),
            principal: carrier
                .http
                .as_ref()
                .and_then(|h| h.principal.as_ref())
                .map(|p| p.0.clone()),
        };
        let opened = match call.request_state {
            Some(token) => Some(server.sealer.open(&token, &binding)?),
            None => None,
        };
        let round = Round::new(opened, call.input_responses.unwrap_or_default());
        (Asker::Mrtr(Mutex::new(round)), Some(binding))
    } else {
        (Asker::None, None)
    };
    let cx = Context::new(ContextInner {
        server: server.clone(),
        request_id: id,
        version: era.version,
        client_capabilities: era.caps,
        client_info: era.client_info,
        meta: era.meta,
        progress_token: era.progress_token,
        log: era.log,
        cancel: carrier.cancel,
        sink: carrier.sink,
        asker,
        http: carrier.http,
        close_stream: carrier.close_stream,
        suspended: Notify::new(),
        fatal: Mutex::new(None),
        suspend_flag: AtomicBool::new(false),
    });
    Ok(Prepared {
        cx,
        binding,
        kind: call.kind,
        name: call.name,
    })
}

/// How a handler run ended.
enum Run<T> {
    Done(T),
    /// Stopped: questions to ask (MRTR) or a fatal error.
    Suspended,
    Cancelled,
    Panicked(String),
}

pub(super) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

async fn run<T>(cx: &Context, fut: BoxFuture<T>, span: tracing::Span) -> Run<T> {
    let cancel = cx.inner.cancel.clone();
    let fut =
        crate::logging::scope(cx.clone(), AssertUnwindSafe(fut).catch_unwind()).instrument(span);
    let ran = tokio::select! {
        biased;
        out = fut => match out {
            Ok(v) => Run::Done(v),
            Err(payload) => Run::Panicked(panic_message(&*payload)),
        },
        () = cx.wait_suspended() => Run::Suspended,
        () = cancel.cancelled() => Run::Cancelled,
    };
    // A handler that watches its own cancellation may finish with a value: a cancelled
    // request still gets no response (the receiver of `notifications/cancelled` SHOULD
    // not send one), on every transport.
    if cancel.is_cancelled() {
        Run::Cancelled
    } else {
        ran
    }
}

/// Runs a handler and turns how it ended into a reply; `done` renders its outcome.
pub(super) async fn execute<T>(
    server: &ServerInner,
    prepared: &Prepared<'_>,
    fut: BoxFuture<Result<T, ErrorObject>>,
    done: impl FnOnce(Result<T, ErrorObject>) -> Reply,
) -> Reply {
    let span = telemetry::span::handler(prepared.kind, prepared.name);
    match run(&prepared.cx, fut, span).await {
        Run::Done(outcome) => done(outcome),
        Run::Suspended => suspended(server, prepared),
        Run::Cancelled => Reply::Cancelled,
        Run::Panicked(m) => handler_panicked(prepared.kind, prepared.name, &m),
    }
}

pub(super) fn handler_panicked(kind: &str, name: &str, message: &str) -> Reply {
    tracing::error!(%kind, %name, panic = %message, "handler panicked");
    Reply::error(ErrorObject::internal(format!(
        "{kind} `{name}` panicked: {message}"
    )))
}

/// Turns a suspended run into its reply: the fatal error, or an `InputRequiredResult`.
fn suspended(server: &ServerInner, prepared: &Prepared<'_>) -> Reply {
    if let Some(e) = prepared.cx.inner.fatal.lock().expect("fatal").take() {
        return if e.code == codes::MISSING_REQUIRED_CLIENT_CAPABILITY {
            Reply::bad(e)
        } else {
            Reply::error(e)
        };
    }
    let (Asker::Mrtr(round), Some(binding)) = (&prepared.cx.inner.asker, &prepared.binding) else {
        return Reply::error(ErrorObject::internal("handler stopped without a reason"));
    };
    let round = round.lock().expect("round");
    let mut result = InputRequiredResult::new();
    let mut pending = BTreeMap::new();
    for (key, (question_digest, question)) in &round.unanswered {
        result = result.with_input_request(key.clone(), question.request.clone());
        pending.insert(key.clone(), question_digest.clone());
    }
    let state = server.sealer.seal(binding, round.answers(), pending);
    Reply::Result(render::input_required(
        server,
        result.with_request_state(state),
    ))
}
