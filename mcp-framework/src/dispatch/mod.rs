//! From a classified request to a reply: the era of the request ([`era`]), the method
//! table, the handlers' runs ([`call`], [`complete`], [`run`]) and the era's rendering.
//! Transports call [`dispatch`] for requests, [`open_session`] for `initialize` and
//! [`on_notification`] for notifications; what a tool is stays here and below.
//!
//! Imports: what a request uses (context, sessions, subscriptions), rendering, the runtime
//! and the leaves; never the facade or a transport.

mod access;
mod carrier;
mod complete;
mod era;
mod kind;
mod pipeline;
mod reply;
mod resolve;
mod rpc;
mod run;
mod task;
mod views;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::future::Either;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tracing::Instrument as _;

pub(crate) use carrier::Carrier;
pub(crate) use reply::{Failure, Reply};

use self::era::Era;
use self::resolve::ResolvedRead;
use self::views::{ListView, SetLevelView, UriView, parse};
use crate::admission::Refusal;
use crate::cache::{ListKind, decode_cursor};
use crate::context::Asker;
use crate::inflight::InFlight;
use crate::protocol::jsonrpc::{Notification, Request};
use crate::protocol::meta::{Head, read_request_head};
use crate::protocol::{CancelledNotificationParams, ErrorObject, LoggingLevel};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::session::legacy::LegacySession;
use crate::subscriptions::{Listen, OpenError, TaskListen};
use crate::tasks::TaskSupport;
use crate::telemetry;
use crate::telemetry::propagation::TraceContext;
use crate::telemetry::span::Transport;

/// Serves one request, in its span (see [`telemetry`](crate::telemetry)).
pub(crate) async fn dispatch(
    server: &Arc<ServerInner>,
    request: Request,
    carrier: Carrier,
) -> Reply {
    let cancel = carrier.cancel.clone();
    let (routed, record) = start(server, request, carrier);
    // Pinned here and awaited in place: wrapping it by value would copy the whole request
    // state machine into the wrapper's. (`map_or_else` takes the whole of `routed`: a
    // `match` would leave it partly moved, and kept, beside its pinned copy.)
    let running = std::pin::pin!(routed.map_or_else(
        |reply| Either::Right(std::future::ready(reply)),
        |running| {
            Either::Left(cut_at_cutoff(server, cancel, running).instrument(record.span().clone()))
        },
    ));
    record.run(running).await
}

/// Runs a request to its end; if the grace period after a shutdown runs out first
/// (`ServerInner::cutoff`), cancels it (`cancel`: its handler sees it) and, once it has
/// stopped, answers the shutdown's error (not the silence of a request the client
/// cancelled) and logs it. A request that does not wait never looks at the cutoff.
pub(crate) async fn cut_at_cutoff(
    server: &ServerInner,
    cancel: tokio_util::sync::CancellationToken,
    running: impl Future<Output = Reply>,
) -> Reply {
    let mut running = std::pin::pin!(running);
    if let std::task::Poll::Ready(reply) =
        std::future::poll_fn(|cx| std::task::Poll::Ready(running.as_mut().poll(cx))).await
    {
        return reply;
    }
    tokio::select! {
        biased;
        reply = running.as_mut() => reply,
        () = server.cutoff.cancelled() => {
            cancel.cancel();
            let _ = running.await;
            tracing::warn!("cut by the shutdown: still running when the grace period ended");
            Reply::Error(
                ErrorObject::new(
                    crate::protocol::codes::INTERNAL_ERROR,
                    "the server shut down before the request finished",
                ),
                Failure::Unavailable,
            )
        }
    }
}

/// Resolves one request at once: the reply when nothing has to run (`Err`: a refusal, an
/// unknown name, a list…), else the run that answers it; and what records it (its span,
/// named for the item the request resolved to, and its metrics). A transport that must
/// know the answer's class before it starts a stream (legacy HTTP: a `403` goes out before
/// it) starts the request itself.
// Inlined into `dispatch`, so that the run it returns is built where it is pinned
// (callgrind: 148 fewer instructions per tools/call).
#[inline(always)]
pub(crate) fn start(
    server: &Arc<ServerInner>,
    mut request: Request,
    mut carrier: Carrier,
) -> (
    Result<impl Future<Output = Reply> + Send + '_, Reply>,
    Record,
) {
    // JSON-RPC middleware first: what it changes (the params, their `_meta`) is what the
    // request carries from here on.
    let around = match &server.rpc {
        None => None,
        Some(chain) => match rpc::enter(chain, request, carrier) {
            Ok((r, c, around)) => {
                request = r;
                carrier = c;
                Some(around)
            }
            Err(reply) => return (Err(reply), Record::none()),
        },
    };
    let head = match carrier
        .head
        .take()
        .map_or_else(|| read_request_head(request.params.as_deref()), Ok)
    {
        Ok(m) => m,
        Err(e) => return (Err(Reply::bad(e)), Record::none()),
    };
    // The revision the request names (a version this crate does not speak names none).
    let version = match (&head.meta.protocol_version, &carrier.session) {
        (Some(v), _) => v.known(),
        (None, Some(session)) => Some(session.version),
        (None, None) => None,
    };
    let transport = Transport::from(carrier.transport());
    // Read only when a subscriber wants the request's span.
    let traced = tracing::enabled!(target: telemetry::span::TARGET, tracing::Level::DEBUG);
    let trace = traced.then(|| TraceContext::of(&head.meta, carrier.http.as_deref()));
    // The method stays here, for the span and the metrics; the request goes on without it.
    let method = std::mem::take(&mut request.method);
    let id = traced.then(|| request.id.clone());
    let (routed, target) = route(server, &method, request, carrier, head);
    // Its reply back through the JSON-RPC middleware that saw the request.
    let routed = match around {
        None => routed,
        Some(around) => match routed {
            Err(reply) => Err(rpc::leave(&around, reply)),
            Ok(run) => Ok(Box::pin(async move { rpc::leave(&around, run.await) }) as Routed<'_>),
        },
    };
    let span = telemetry::span::request(
        &method,
        id.as_ref(),
        target.as_deref(),
        version.map(crate::protocol::ProtocolVersion::as_str),
        transport,
    );
    if let Some(trace) = trace.filter(|_| !span.is_disabled()) {
        trace.join(&span);
    }
    #[cfg(feature = "metrics")]
    let timer =
        telemetry::metrics::get().map(|m| m.start(&method, target.as_deref(), version, transport));
    let line = telemetry::line::RequestLine::start(&method, target.as_deref());
    let record = Record {
        span,
        line,
        #[cfg(feature = "metrics")]
        timer,
    };
    (routed, record)
}

/// What dispatch records of a request: its span and, with metrics, its timer.
pub(crate) struct Record {
    span: tracing::Span,
    /// The request's log line, when it is wanted.
    line: Option<telemetry::line::RequestLine>,
    #[cfg(feature = "metrics")]
    timer: Option<telemetry::metrics::Timer>,
}

impl Record {
    fn none() -> Self {
        Self {
            span: tracing::Span::none(),
            line: None,
            #[cfg(feature = "metrics")]
            timer: None,
        }
    }

    /// The request's span: run it in it (`Instrument`) before [`run`](Self::run).
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Runs the request (pinned by the caller, in its span) and records how it ended.
    pub(crate) async fn run<F: Future<Output = Reply>>(self, running: Pin<&mut F>) -> Reply {
        #[cfg(feature = "metrics")]
        let (reply, tool_error) = if self.timer.is_some() {
            telemetry::metrics::watching_tool_errors(running).await
        } else {
            (running.await, false)
        };
        #[cfg(not(feature = "metrics"))]
        let (reply, tool_error) = (running.await, false);
        self.finish(&reply, tool_error);
        reply
    }

    /// Records a request answered without running anything (legacy HTTP's refusal).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn answered(self, reply: Reply) -> Reply {
        self.finish(&reply, false);
        reply
    }

    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    fn finish(self, reply: &Reply, tool_error: bool) {
        let code = match reply {
            Reply::Error(e, _) => Some(e.code),
            _ => None,
        };
        if let Some(code) = code {
            telemetry::span::record_error(&self.span, tracing::field::display(code));
        }
        if let Some(line) = self.line {
            use telemetry::line::Outcome;
            // In the span, when it is on: the line then shows its attributes.
            let _in = self.span.enter();
            line.finish(match (reply, code) {
                (_, Some(code)) => Outcome::Error(code),
                (Reply::Cancelled, _) => Outcome::Cancelled,
                (Reply::Listen(_), _) => Outcome::Listening,
                _ => Outcome::Ok,
            });
        }
        #[cfg(feature = "metrics")]
        if let Some(timer) = self.timer {
            let error_type = match code {
                Some(c) => Some(c.to_string()),
                None => tool_error.then(|| "tool_error".to_owned()),
            };
            timer.finish(error_type.as_deref());
        }
    }
}

/// A routed request's run, boxed: made once where it is resolved, and from then on moved
/// (into the request's span, its cutoff, a transport's task) as a pointer. (Unboxed, a
/// tool call's state was copied at each of those moves: callgrind, 743 more instructions
/// a `tools/call` than the one allocation.)
type Routed<'a> = Pin<Box<dyn Future<Output = Reply> + Send + 'a>>;

fn boxed<'a>(run: impl Future<Output = Reply> + Send + 'a) -> Result<Routed<'a>, Reply> {
    Ok(Box::pin(run))
}

/// The method table: the methods that run a handler, resolved now and returned as their
/// runs (with the item they resolved to); the rest answered at once ([`answer`]). Not an
/// `async fn`: what it reads and checks keeps no state in the returned run.
#[inline(always)]
fn route<'a>(
    server: &'a Arc<ServerInner>,
    method: &str,
    request: Request,
    carrier: Carrier,
    head: Head,
) -> (Result<Routed<'a>, Reply>, Option<Arc<str>>) {
    let members = head.members;
    let era = match Era::resolve(head.meta, head.raw, carrier.session.as_ref()) {
        Ok(era) => era,
        Err(e) => return (Err(Reply::bad(e)), None),
    };
    let legacy = era.legacy();
    match method {
        "tools/call" => match resolve::tool(server, request, members, era, carrier) {
            Ok(call) => {
                let target = Some(call.name.clone());
                let run = if call.item.task.support == TaskSupport::Forbidden {
                    boxed(pipeline::run(server, call, None))
                } else {
                    boxed(task::call_tool(server, call))
                };
                (run, target)
            }
            Err(reply) => (Err(reply), None),
        },
        "prompts/get" => match resolve::prompt(server, request, members, era, carrier) {
            Ok(call) => {
                let target = Some(call.name.clone());
                (boxed(pipeline::run(server, call, None)), target)
            }
            Err(reply) => (Err(reply), None),
        },
        "resources/read" => match resolve::read(server, request, members, era, carrier) {
            Ok(ResolvedRead::Fixed(call)) => {
                let target = Some(call.name.clone());
                (boxed(pipeline::run(server, call, None)), target)
            }
            Ok(ResolvedRead::Template(call)) => {
                let target = Some(call.name.clone());
                (boxed(pipeline::run(server, call, None)), target)
            }
            Err(reply) => (Err(reply), None),
        },
        "completion/complete" => match complete::complete(server, request, era, carrier) {
            Ok(run) => (boxed(run), None),
            Err(reply) => (Err(reply), None),
        },
        _ => match server.extensions.request(method, legacy) {
            Some(handler) => {
                let declared = era.caps.extensions.as_ref();
                if let Some(id) = server.extensions.undeclared(method, declared) {
                    let required = serde_json::json!({"extensions": {id: {}}});
                    return (
                        Err(Reply::bad(ErrorObject::missing_capability(required))),
                        None,
                    );
                }
                let handler = handler.clone();
                let params: Value = request
                    .params
                    .as_deref()
                    .and_then(|p| serde_json::from_str(p.get()).ok())
                    .unwrap_or(Value::Null);
                let modern = !legacy;
                let cx = run::context(server, request.id, era, carrier, Asker::None, None);
                let run = extension_call(server.clone(), modern, handler, params, cx);
                // The method names what is called: no target beside it.
                (boxed(run), None)
            }
            None => (Err(answer(server, method, &request, &era, &carrier)), None),
        },
    }
}

/// A custom request of an extension: its handler's result (stamped as every result of the
/// client's revision is), or its error; a panic is an internal error, as a handler's is; a
/// cancelled request stops its handler and answers nothing.
async fn extension_call(
    server: Arc<ServerInner>,
    modern: bool,
    handler: crate::extension::RequestFn,
    params: Value,
    cx: crate::context::Context,
) -> Reply {
    use futures_util::FutureExt as _;
    let cancel = cx.cancellation_token().clone();
    let outcome = tokio::select! {
        biased;
        outcome = std::panic::AssertUnwindSafe(handler(params, cx)).catch_unwind() => outcome,
        // Cancelled: the handler is dropped and nothing more is sent.
        () = cancel.cancelled() => return Reply::Cancelled,
    };
    match outcome {
        Ok(Ok(result)) => Reply::Result(render::custom_result(&server, modern, result)),
        Ok(Err(crate::extension::Refused::Params(e))) => Reply::bad(e),
        Ok(Err(crate::extension::Refused::Handler(e))) => Reply::error(e),
        Err(panic) => Reply::error(ErrorObject::internal(format!(
            "the handler panicked: {}",
            run::panic_message(panic.as_ref())
        ))),
    }
}

/// The methods answered without running a handler.
fn answer(
    server: &Arc<ServerInner>,
    method: &str,
    request: &Request,
    era: &Era,
    carrier: &Carrier,
) -> Reply {
    let params = request.params.as_deref();
    let legacy = era.legacy();
    match method {
        "server/discover" if !legacy => Reply::Result(render::discover(server)),
        "tools/list" => list(server, ListKind::Tools, era, carrier, params),
        "prompts/list" => list(server, ListKind::Prompts, era, carrier, params),
        "resources/list" => list(server, ListKind::Resources, era, carrier, params),
        "resources/templates/list" => list(server, ListKind::Templates, era, carrier, params),
        "subscriptions/listen" if !legacy && server.config.listen.enabled => {
            let tasks = TaskListen {
                declared: task::declared(era),
                owner: carrier.principal().map(|p| p.subject().to_owned()),
            };
            let (peer, principal) = (carrier.peer.as_ref(), carrier.principal());
            match Listen::open(server, request, params, peer, principal, tasks) {
                Ok(listen) => Reply::Listen(Box::new(listen)),
                Err(OpenError::Params(e)) => Reply::bad(e),
                Err(OpenError::Resources(e)) => Reply::refusal(e),
                Err(OpenError::Refused(Refusal::PeerFull(e))) => Reply::Error(e, Failure::Busy),
                Err(OpenError::Refused(Refusal::Full(e))) => Reply::Error(e, Failure::Unavailable),
            }
        }
        "ping" if legacy => Reply::Result(render::empty()),
        "logging/setLevel" if legacy => match (parse::<SetLevelView>(params), &era.session) {
            (Ok(v), Some(session)) => match v.level.parse::<LoggingLevel>() {
                Ok(level) => {
                    session.set_log_level(level);
                    Reply::Result(render::empty())
                }
                Err(e) => Reply::error(ErrorObject::invalid_params(format!(
                    "Invalid log level: {e}"
                ))),
            },
            (Err(e), _) => Reply::bad(e),
            (_, None) => Reply::error(ErrorObject::invalid_params(
                "logging/setLevel needs a session",
            )),
        },
        "resources/subscribe" | "resources/unsubscribe"
            if legacy && server.config.listen.enabled =>
        {
            match (parse::<UriView>(params), &era.session) {
                (Ok(v), Some(session)) => {
                    let mut watched = session.subscriptions.lock().expect("subscriptions");
                    if method == "resources/unsubscribe" {
                        watched.remove(&v.uri);
                    } else if let Err(e) =
                        watched.subscribe(server, carrier.principal().cloned(), era.version, v.uri)
                    {
                        return Reply::refusal(e);
                    }
                    Reply::Result(render::empty())
                }
                (Err(e), _) => Reply::bad(e),
                (_, None) => Reply::error(ErrorObject::invalid_params(format!(
                    "{method} needs a session"
                ))),
            }
        }
        "initialize" if legacy => Reply::error(ErrorObject::invalid_request(
            "initialize is only valid as the first request of a legacy session",
        )),
        _ => Reply::Error(ErrorObject::method_not_found(method), Failure::NotFound),
    }
}

fn list(
    server: &ServerInner,
    kind: ListKind,
    era: &Era,
    carrier: &Carrier,
    params: Option<&RawValue>,
) -> Reply {
    let view: ListView = match parse(params) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let loaded = server.catalog.load();
    // Tools an extension hides from this request are not listed (MCP Apps: a client that
    // renders no views lists only the tools meant for the model).
    let screens = &server.extensions.screens;
    let screened = (kind == ListKind::Tools && !screens.is_empty())
        .then(|| loaded.screened_for(screens, server.extensions.screening(&era.caps)))
        .flatten();
    let catalog: &crate::catalog::Catalog = screened.as_deref().unwrap_or(&loaded);
    // Items hidden from some callers make every list of their kind private; the caller's
    // own list leaves out what it may not see (rendered for it, not cached).
    let private = catalog.may_hide(kind, server.config.scope_policy);
    let mine = private
        .then(|| catalog.visible(kind, |r| access::visible(server, carrier, r)))
        .flatten();
    let catalog = mine.as_ref().unwrap_or(catalog);
    let page = match view.cursor {
        None => 0,
        Some(c) => match decode_cursor(kind, &c, catalog.page_count(kind)) {
            Ok(p) => p,
            Err(e) => return Reply::error(e),
        },
    };
    let rendered = render::list_page(server, catalog, kind, era.version, page, private);
    if kind == ListKind::Tools {
        crate::schema::warm_up_validators();
    }
    Reply::Result(rendered)
}

/// `initialize`: opens a legacy session (for the transport to keep) with its session-wide
/// stream `outbound`, and renders the result.
pub(crate) fn open_session(
    server: &Arc<ServerInner>,
    params: Option<&RawValue>,
    outbound: Option<mpsc::Sender<Bytes>>,
) -> Result<(Arc<LegacySession>, Bytes), ErrorObject> {
    let session = LegacySession::open(params, server, outbound)?;
    let result = render::initialize_result(server, session.version);
    Ok((session, result))
}

/// A notification from the client: `notifications/cancelled` stops the request it names
/// among `inflight` (the connection's or the legacy session's; a modern HTTP notification
/// has none), an extension's notification runs its handler on a task of its own.
/// (`notifications/initialized` needs nothing: a legacy session serves requests from its
/// `initialize` on.)
pub(crate) fn on_notification(
    server: &ServerInner,
    notification: &Notification,
    inflight: Option<&InFlight>,
) {
    // Through the JSON-RPC middleware first (which may drop it or change its params).
    let passed;
    let notification = match &server.rpc {
        None => notification,
        Some(chain) => match rpc::notification(chain, notification) {
            Some(n) => {
                passed = n;
                &passed
            }
            None => return,
        },
    };
    match notification.method.as_str() {
        "notifications/cancelled" => {
            let Some(inflight) = inflight else { return };
            let id = notification
                .params
                .as_deref()
                .and_then(|p| serde_json::from_str::<CancelledNotificationParams>(p.get()).ok())
                .and_then(|c| c.request_id);
            if let Some(id) = id {
                inflight.cancel(&id);
            }
        }
        other => match server.extensions.notification(other) {
            Some(handler) => {
                let params: Value = notification
                    .params
                    .as_deref()
                    .and_then(|p| serde_json::from_str(p.get()).ok())
                    .unwrap_or(Value::Null);
                tokio::spawn(handler(params));
            }
            None => tracing::trace!(method = other, "notification ignored"),
        },
    }
}
