//! From a classified request to a reply: the era of the request ([`era`]), the method
//! table, the handlers' runs ([`call`], [`complete`], [`run`]) and the era's rendering.
//! Transports call [`dispatch`] for requests, [`open_session`] for `initialize` and
//! [`on_notification`] for notifications; what a tool is stays here and below.
//!
//! Imports: what a request uses (context, sessions, subscriptions), rendering, the runtime
//! and the leaves; never the facade or a transport.

mod access;
mod call;
mod carrier;
mod complete;
mod era;
mod kind;
mod pipeline;
mod reply;
mod resolve;
mod run;
mod skills;
mod task;
mod views;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::future::{Either, Ready, ready};
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tracing::Instrument as _;

#[cfg_attr(not(feature = "http"), allow(unused_imports))]
pub(crate) use access::refusal_before_running;
pub(crate) use carrier::Carrier;
pub(crate) use reply::{Failure, Reply};

use self::era::Era;
use self::views::{ListView, SetLevelView, UriView, parse};
use crate::admission::Refusal;
use crate::cache::{ListKind, decode_cursor};
use crate::inflight::InFlight;
use crate::protocol::jsonrpc::{Notification, Request};
use crate::protocol::meta::{RequestMeta, read_request_meta};
use crate::protocol::{CancelledNotificationParams, ErrorObject, LoggingLevel};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::session::legacy::LegacySession;
use crate::subscriptions::{Listen, OpenError, TaskListen};
use crate::telemetry;
use crate::telemetry::propagation::TraceContext;
use crate::telemetry::span::Transport;

/// Serves one request, in its span (see [`telemetry`](crate::telemetry)).
pub(crate) async fn dispatch(
    server: &Arc<ServerInner>,
    request: Request,
    mut carrier: Carrier,
) -> Reply {
    let (meta, raw_meta) = match carrier
        .meta
        .take()
        .map_or_else(|| read_request_meta(request.params.as_deref()), Ok)
    {
        Ok(m) => m,
        Err(e) => return Reply::bad(e),
    };
    let version = match (&meta.protocol_version, &carrier.session) {
        (Some(v), _) => Some(v.as_str()),
        (None, Some(session)) => Some(session.version.as_str()),
        (None, None) => None,
    };
    let transport = Transport::from(carrier.transport());
    let span = telemetry::span::request(
        &request.method,
        &request.id,
        request.params.as_deref(),
        version,
        transport,
    );
    if !span.is_disabled() {
        TraceContext::of(&meta, carrier.http.as_deref()).join(&span);
    }
    #[cfg(feature = "metrics")]
    let timer = telemetry::metrics::get().map(|m| {
        m.start(
            &request.method,
            served_target(server, &request).as_deref(),
            version.and_then(crate::protocol::ProtocolVersion::parse),
            transport,
        )
    });
    // Pinned here and awaited in place: wrapping it by value would copy the whole request
    // state machine into the wrapper's.
    // What route checks before the run exists happens in the span too.
    let routed = span.in_scope(|| route(server, request, carrier, meta, raw_meta));
    let routed = std::pin::pin!(routed.instrument(span.clone()));
    #[cfg(feature = "metrics")]
    let (reply, tool_error) = if timer.is_some() {
        telemetry::metrics::watching_tool_errors(routed).await
    } else {
        (routed.await, false)
    };
    #[cfg(not(feature = "metrics"))]
    let reply = routed.await;
    let code = match &reply {
        Reply::Error(e, _) => Some(e.code),
        _ => None,
    };
    if let Some(code) = code {
        telemetry::span::record_error(&span, tracing::field::display(code));
    }
    #[cfg(feature = "metrics")]
    if let Some(timer) = timer {
        let error_type = match code {
            Some(c) => Some(c.to_string()),
            None => tool_error.then(|| "tool_error".to_owned()),
        };
        timer.finish(error_type.as_deref());
    }
    reply
}

/// The tool or prompt a request names, when the server serves it (a metric label: its
/// values stay bounded whatever clients send).
#[cfg(feature = "metrics")]
fn served_target<'a>(
    server: &ServerInner,
    request: &'a Request,
) -> Option<std::borrow::Cow<'a, str>> {
    let target = telemetry::target::of(&request.method, request.params.as_deref())?;
    let catalog = server.catalog.load();
    let served = match request.method.as_str() {
        "tools/call" => catalog.tool(&target).is_some(),
        "prompts/get" => catalog.prompt(&target).is_some(),
        _ => false,
    };
    served.then_some(target)
}

/// A routed request's future: an answer already there, the run of a tool (the hot path:
/// not boxed, so that a tool call's state is moved and copied as little as possible), or
/// another handler's run, boxed so that its state stays out of the tool call's.
type Routed<'a, T> =
    Either<Either<Ready<Reply>, T>, Pin<Box<dyn Future<Output = Reply> + Send + 'a>>>;

fn now<'a, T>(reply: Reply) -> Routed<'a, T> {
    Either::Left(Either::Left(ready(reply)))
}

fn boxed<'a, T>(run: impl Future<Output = Reply> + Send + 'a) -> Routed<'a, T> {
    Either::Right(Box::pin(run))
}

/// The method table: the methods that run a handler, as their runs; the rest answered
/// at once ([`answer`]). Not an `async fn`: what it reads and checks keeps no state in the
/// returned future (see [`Routed`]).
fn route(
    server: &Arc<ServerInner>,
    request: Request,
    carrier: Carrier,
    meta: RequestMeta,
    raw_meta: Option<Box<RawValue>>,
) -> impl Future<Output = Reply> + Send + '_ {
    let era = match Era::resolve(meta, raw_meta, carrier.session.as_ref()) {
        Ok(era) => era,
        Err(e) => return now(Reply::bad(e)),
    };
    let legacy = era.legacy();
    match request.method.as_str() {
        "tools/call" => match call::call_tool(server, request, era, carrier) {
            Ok(run) => Either::Left(Either::Right(run)),
            Err(reply) => now(reply),
        },
        "prompts/get" => boxed(call::get_prompt(server, request, era, carrier)),
        "resources/read" => boxed(call::read_resource(server, request, era, carrier)),
        "completion/complete" => boxed(complete::complete(server, request, era, carrier)),
        "tasks/get" | "tasks/update" | "tasks/cancel" if !legacy && server.tasks.is_some() => {
            boxed(async move {
                let tasks = server.tasks.as_ref().expect("tasks");
                let (method, params) = (request.method.as_str(), request.params.as_deref());
                task::method(server, tasks, method, &era, &carrier, params).await
            })
        }
        _ => now(answer(server, &request, &era, &carrier)),
    }
}

/// The methods answered without running a handler.
fn answer(server: &Arc<ServerInner>, request: &Request, era: &Era, carrier: &Carrier) -> Reply {
    let params = request.params.as_deref();
    let method = request.method.as_str();
    let legacy = era.legacy();
    match method {
        "server/discover" if !legacy => Reply::Result(render::discover(server)),
        "tools/list" => list(server, ListKind::Tools, era, carrier, params),
        "prompts/list" => list(server, ListKind::Prompts, era, carrier, params),
        "resources/list" => list(server, ListKind::Resources, era, carrier, params),
        "resources/templates/list" => list(server, ListKind::Templates, era, carrier, params),
        "skills/list" | "skills/get" | "resources/directory/read"
            if !legacy && server.skills.is_some() =>
        {
            let index = server.skills.as_ref().expect("skills").load();
            skills::method(server, &index, method, params)
        }
        "subscriptions/listen" if !legacy && server.config.listen.enabled => {
            let tasks = TaskListen {
                declared: task::declared(era),
                owner: carrier.principal().map(|p| p.subject().to_owned()),
            };
            let (peer, principal) = (carrier.peer.as_ref(), carrier.principal());
            match Listen::open(server, request, params, peer, principal, tasks) {
                Ok(listen) => Reply::Listen(Box::new(listen)),
                Err(OpenError::Params(e)) => Reply::bad(e),
                Err(OpenError::Resources(e)) => subscription_refused(e),
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
                        return subscription_refused(e);
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

/// A refused resource subscription: a challenge for scopes the caller lacks (HTTP 403),
/// else an answered error (an unknown resource, a limit).
fn subscription_refused(e: ErrorObject) -> Reply {
    if e.code == crate::protocol::codes::INSUFFICIENT_SCOPE {
        Reply::Error(e, Failure::Forbidden)
    } else {
        Reply::error(e)
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
    // A client that renders no MCP Apps views lists only the tools meant for the model.
    let catalog = if kind == ListKind::Tools && !crate::apps::client_renders(&era.caps) {
        loaded.for_model()
    } else {
        &loaded
    };
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
/// among `inflight`. (`notifications/initialized` needs nothing: a legacy session serves
/// requests from its `initialize` on.)
pub(crate) fn on_notification(notification: &Notification, inflight: &InFlight) {
    match notification.method.as_str() {
        "notifications/cancelled" => {
            let id = notification
                .params
                .as_deref()
                .and_then(|p| serde_json::from_str::<CancelledNotificationParams>(p.get()).ok())
                .and_then(|c| c.request_id);
            if let Some(id) = id {
                inflight.cancel(&id);
            }
        }
        other => tracing::trace!(method = other, "notification ignored"),
    }
}
