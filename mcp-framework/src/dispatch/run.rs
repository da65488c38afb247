//! Running a call: its handler's [`Context`] (with the MRTR round or the legacy session it
//! asks through), then the run with cancellation and suspension, how each ending becomes a
//! [`Reply`], and how the answer of the innermost step or a stack is read ([`read`]).

use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::FutureExt as _;

use tracing::Instrument as _;

use super::carrier::Carrier;
use super::era::Era;
use super::reply::{Failure, Reply};
use super::views::{Retry, Sent};
use crate::context::{Asker, Context, ContextInner, Suspension};
use crate::middleware::{BoxError, CallOutput, Method, Rejection, rejection};
use crate::mrtr::{Binding, Round};
use crate::principal::Principal;
use crate::protocol::{ErrorObject, InputRequiredResult, RequestId, codes};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::tasks::live::TaskSlot;
use crate::telemetry;

/// What a handler is called for: the method, the item's name (a resource's URI), the MRTR
/// state and answers of a retry, and the arguments as sent (what a state is bound to).
pub(super) struct Invocation {
    pub(super) method: Method,
    pub(super) name: Arc<str>,
    pub(super) retry: Retry,
    pub(super) sent: Sent,
}

/// A handler's context, ready to run, and the arguments as sent, whose digest its sealed
/// state is bound to (MRTR).
pub(super) struct Prepared {
    pub(super) cx: Context,
    sent: Option<Sent>,
    method: Method,
    name: Arc<str>,
}

/// Builds the handler's context: MRTR rounds on modern requests (the state opened and
/// checked against this request), the session on legacy ones, nothing to ask otherwise.
/// `task`: the task it is or may become.
pub(super) fn prepare(
    server: &Arc<ServerInner>,
    id: RequestId,
    era: Era,
    carrier: Carrier,
    call: Invocation,
    task: Option<Arc<TaskSlot>>,
) -> Result<Prepared, ErrorObject> {
    let (asker, sent) = if let Some(session) = &era.session {
        (Asker::Legacy(session.clone()), None)
    } else if era.version.is_modern() {
        let opened = match call.retry.request_state {
            Some(token) => {
                let binding = Binding {
                    method: call.method.as_str(),
                    name: &call.name,
                    arguments: call.sent.digest(),
                    principal: carrier.principal().map(Principal::subject),
                };
                Some(server.sealer.open(&token, &binding)?)
            }
            None => None,
        };
        let round = Round::new(opened, call.retry.input_responses.unwrap_or_default());
        (Asker::Mrtr(Mutex::new(round)), Some(call.sent))
    } else {
        (Asker::None, None)
    };
    let cx = context(server, id, era, carrier, asker, task);
    Ok(Prepared {
        cx,
        sent,
        method: call.method,
        name: call.name,
    })
}

/// The [`Context`] of a request, asking through `asker`, cancelled by the carrier's token.
pub(super) fn context(
    server: &Arc<ServerInner>,
    id: RequestId,
    era: Era,
    carrier: Carrier,
    asker: Asker,
    task: Option<Arc<TaskSlot>>,
) -> Context {
    Context::new(ContextInner {
        host: server.clone(),
        request_id: id,
        version: era.version,
        transport: carrier.transport(),
        client_capabilities: era.caps,
        client_info: era.client_info,
        meta: era.meta,
        progress_token: era.progress_token,
        log: era.log,
        cancel: carrier.cancel,
        sink: carrier.sink,
        asker,
        http: carrier.http,
        session_principal: carrier.session_principal,
        close_stream: carrier.close_stream,
        suspension: Suspension::default(),
        fatal: Mutex::new(None),
        dropped: AtomicBool::new(false),
        task,
    })
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// A handler's future in its span (see [`telemetry`]), with its context available to the
/// `tracing` bridge.
pub(super) fn as_handler<F: Future>(
    cx: &Context,
    method: Method,
    name: &str,
    fut: F,
) -> impl Future<Output = F::Output> {
    crate::logging::scope(cx.clone(), fut).instrument(telemetry::span::handler(method.kind(), name))
}

/// Runs `fut` (the innermost step of a call, or a middleware stack around it; pinned by
/// the caller, so that it is not copied into this future): its outcome, or the reply for
/// how else it ended (cancelled, or a panic outside the handler, in a layer).
///
/// The innermost step answers a handler's questions (MRTR) and its fatal errors itself,
/// as an output: the reply for them comes from [`read`].
///
/// The handler's token is the request's. A layer that drops the handler before it ends
/// (a timeout) cancels it too, so that what the handler spawned stops, and marks the
/// context: that cancellation is not the client's, and the layer's answer is still sent.
pub(super) async fn execute<T, F: Future<Output = T>>(
    prepared: &Prepared,
    fut: Pin<&mut F>,
) -> Result<T, Reply> {
    let inner = &prepared.cx.inner;
    let dropped = || inner.dropped.load(Ordering::Acquire);
    let mut fut = AssertUnwindSafe(fut).catch_unwind();
    let ran = tokio::select! {
        biased;
        out = &mut fut => out,
        () = inner.cancel.cancelled() => {
            if !dropped() {
                return Err(Reply::Cancelled);
            }
            fut.await
        }
    };
    // A handler that watches its own cancellation may finish with a value: a cancelled
    // request still gets no response (the receiver of `notifications/cancelled` SHOULD
    // not send one), on every transport.
    if inner.cancel.is_cancelled() && !dropped() {
        return Err(Reply::Cancelled);
    }
    ran.map_err(|payload| {
        Reply::error(handler_panicked(
            prepared.method.kind(),
            &prepared.name,
            &panic_message(&*payload),
        ))
    })
}

/// The error a panic is answered with (and logged).
pub(super) fn handler_panicked(kind: &str, name: &str, message: &str) -> ErrorObject {
    tracing::error!(%kind, %name, panic = %message, "handler panicked");
    ErrorObject::internal(format!("{kind} `{name}` panicked: {message}"))
}

/// Reads what the innermost step or a middleware stack answered: the handler's kind of
/// outcome (`pick` takes it out of the output), or the reply to send instead.
pub(super) fn read<T>(
    server: &ServerInner,
    prepared: &Prepared,
    answer: Result<CallOutput, BoxError>,
    pick: fn(CallOutput) -> Result<T, &'static str>,
) -> Result<Result<T, ErrorObject>, Reply> {
    match answer {
        Ok(CallOutput::InputRequired(_)) => Err(suspended(server, prepared)),
        Ok(output) => pick(output).map(Ok).map_err(|other| {
            Reply::error(ErrorObject::internal(format!(
                "a middleware layer answered {} `{}` with {other}",
                prepared.method, &prepared.name,
            )))
        }),
        Err(e) => match rejection(e, prepared.method, &prepared.name) {
            Rejection::Error(e) if e.code == codes::MISSING_REQUIRED_CLIENT_CAPABILITY => {
                Err(Reply::bad(e))
            }
            // A layer's own scope check: the same 403 challenge as the framework's.
            Rejection::Error(e) if e.code == codes::INSUFFICIENT_SCOPE => Err(Reply::refusal(e)),
            Rejection::Error(e) => Ok(Err(e)),
            Rejection::Limited(e) => Err(Reply::Error(e, Failure::Busy)),
        },
    }
}

/// Turns a suspended run into its reply: the fatal error, or an `InputRequiredResult`.
fn suspended(server: &ServerInner, prepared: &Prepared) -> Reply {
    if let Some(e) = prepared.cx.inner.fatal.lock().expect("fatal").take() {
        return if e.code == codes::MISSING_REQUIRED_CLIENT_CAPABILITY {
            Reply::bad(e)
        } else {
            Reply::error(e)
        };
    }
    let (Asker::Mrtr(round), Some(sent)) = (&prepared.cx.inner.asker, &prepared.sent) else {
        return Reply::error(ErrorObject::internal("handler stopped without a reason"));
    };
    let binding = Binding {
        method: prepared.method.as_str(),
        name: &prepared.name,
        arguments: sent.digest(),
        principal: prepared.cx.principal().map(Principal::subject),
    };
    let round = round.lock().expect("round");
    let mut result = InputRequiredResult::new();
    let mut pending = BTreeMap::new();
    for (key, (question_digest, question)) in &round.unanswered {
        result = result.with_input_request(key.clone(), question.request.clone());
        pending.insert(key.clone(), question_digest.clone());
    }
    let state = server.sealer.seal(&binding, round.answers(), pending);
    Reply::Result(render::input_required(
        server,
        result.with_request_state(state),
    ))
}
